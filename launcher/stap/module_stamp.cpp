#include "iotap/stap/module_stamp.h"

#include <filesystem>

#include "iotap/stap/module_cache.h"
#include "iotap/util/files.h"
#include "iotap/util/sha256.h"

namespace iotap::stap {
namespace {

constexpr std::string_view kStampFormat = "iotap module stamp 1";
constexpr std::string_view kPrefix = "iotap_";
constexpr size_t kScriptDigits = 16;
constexpr size_t kProgramDigits = 8;

// Each field with its length first, so that no two different field lists hash alike.
void add(Sha256& hash, std::string_view field) {
  hash.update(std::to_string(field.size())).update(":").update(field);
}

bool all_hex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

ModuleStamp module_stamp(const CompileRequest& request) {
  Sha256 script;
  add(script, kStampFormat);
  // By file name: the same iotap installed under another prefix makes the same module.
  add(script, std::filesystem::path(request.script_name).filename().string());
  add(script, request.script_text);
  add(script, "arguments");
  for (const auto& word : request.script_args) add(script, word);
  add(script, "stap options");
  for (const auto& word : request.stap_options) add(script, word);
  const std::string macros = tapset_paths_text(request);
  add(script, macros);
  // The tapsets by name within their directory and by content: the same iotap installed
  // elsewhere (a build tree here, /usr there) makes the same module.
  add(script, "tapsets");
  for (const auto& dir : tapset_dirs()) {
    for (const auto& file : files_under(dir)) {
      add(script, file);
      script.update_file((std::filesystem::path(dir) / file).string());
    }
  }

  Sha256 programs;
  add(programs, kStampFormat);
  std::vector<std::string> named = quoted_absolute_paths(request.script_text);
  for (auto& path : quoted_absolute_paths(macros)) named.push_back(std::move(path));
  for (const auto& path : named) {
    add(programs, path);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) {
      programs.update_file(path);
    } else {
      add(programs, "absent");
    }
  }
  return {script.hex().substr(0, kScriptDigits), programs.hex().substr(0, kProgramDigits)};
}

std::string stamped_module_name(const ModuleStamp& stamp) {
  return std::string(kPrefix) + stamp.script + "_" + stamp.programs;
}

std::optional<ModuleStamp> stamp_in_module_name(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  if (name.size() != kScriptDigits + 1 + kProgramDigits || name[kScriptDigits] != '_')
    return std::nullopt;
  ModuleStamp stamp{std::string(name.substr(0, kScriptDigits)),
                    std::string(name.substr(kScriptDigits + 1))};
  if (!all_hex(stamp.script) || !all_hex(stamp.programs)) return std::nullopt;
  return stamp;
}

std::string saved_module_problem(const std::string& path, const ModuleInfo& info,
                                 const ModuleStamp& here) {
  const std::optional<ModuleStamp> saved = stamp_in_module_name(info.name);
  if (!saved)
    return path + " is a module named '" + info.name +
           "', not one --save-module made: save one with --save-module FILE on a machine with "
           "stap, using this command's options";
  if (saved->script != here.script)
    return path +
           " was saved for another script or options than this run's (another verb, script, "
           "script arguments, -c program path, stap option or iotap version): save it again with "
           "this command's options";
  if (saved->programs != here.programs)
    return path +
           " was saved from another build of the traced program than this machine's (its USDT "
           "probes would be misplaced): copy that build here, or save the module again from this "
           "one";
  return "";
}

}  // namespace iotap::stap
