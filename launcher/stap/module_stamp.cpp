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

bool all_hex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

ModuleStamp module_stamp(const CompileRequest& request) {
  Sha256 script;
  script.update_field(kStampFormat);
  // By file name: the same iotap installed under another prefix makes the same module.
  script.update_field(std::filesystem::path(request.script_name).filename().string());
  script.update_field(request.script_text);
  script.update_field("arguments");
  for (const auto& word : request.script_args) script.update_field(word);
  script.update_field("stap options");
  for (const auto& word : request.stap_options) script.update_field(word);
  // Said only for a user's script, so that the stamps of iotap's own (compiled with interrupts
  // off, as every script once was) stay what they were.
  if (!request.interrupts_off) script.update_field("interrupts as stap has them");
  const std::string macros = tapset_paths_text(request);
  script.update_field(macros);
  // The tapsets by name within their directory and by content: the same iotap installed
  // elsewhere (a build tree here, /usr there) makes the same module.
  script.update_field("tapsets");
  for (const auto& dir : tapset_dirs(request)) {
    for (const auto& file : files_under(dir)) {
      script.update_field(file);
      script.update_file((std::filesystem::path(dir) / file).string());
    }
  }

  Sha256 programs;
  programs.update_field(kStampFormat);
  std::vector<std::string> named = quoted_absolute_paths(request.script_text);
  for (auto& path : quoted_absolute_paths(macros)) named.push_back(std::move(path));
  for (const auto& path : named) {
    programs.update_field(path);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) {
      programs.update_file(path);
    } else {
      programs.update_field("absent");
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
