#include "iotap/stap/runtime_adaptation.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <utility>

#include "iotap/config.h"
#include "iotap/stap/shared_runtime.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

void apply(const RuntimeChange& change, const std::string& dest) {
  for (const RuntimeReplacement& r : change.replacements) {
    const std::string path = dest + "/" + r.file;
    std::string text = read_file(path);
    size_t at = text.find(r.from);
    if (at == std::string::npos)
      throw UserError("SystemTap's runtime change " + change.name + ": " + r.file +
                      " lacks the text it replaces; this SystemTap is not the 4.8 iotap adapts "
                      "(Debian 12's systemtap package; stap/runtime_changes.cpp)");
    for (; at != std::string::npos; at = text.find(r.from, at + r.to.size()))
      text.replace(at, r.from.size(), r.to);
    write_file(path, text);
  }
}

}  // namespace

std::string KernelHeaders::text(const std::string& header) const {
  std::error_code error;
  for (const std::string& dir : include_dirs) {
    const fs::path path = fs::path(dir) / header;
    if (fs::is_regular_file(path, error)) return read_file(path.string());
  }
  return {};
}

KernelHeaders kernel_headers(const std::string& release) {
  const fs::path modules = fs::path("/lib/modules") / release;
  KernelHeaders headers;
  std::error_code error;
  for (const fs::path& dir :
       {modules / "build" / "include", modules / "build" / "arch" / "x86" / "include",
        modules / "source" / "include"}) {
    if (fs::is_directory(dir, error)) headers.include_dirs.push_back(dir.string());
  }
  const fs::path extrawarn = modules / "build" / "scripts" / "Makefile.extrawarn";
  if (fs::is_regular_file(extrawarn, error))
    headers.always_on_warnings = always_on_warnings(read_file(extrawarn.string()));
  return headers;
}

bool KernelHeaders::warns(const std::string& flag) const {
  return std::ranges::find(always_on_warnings, flag) != always_on_warnings.end();
}

std::vector<std::string> always_on_warnings(const std::string& extrawarn_text) {
  std::vector<std::string> flags;
  std::istringstream lines(extrawarn_text);
  int depth = 0;  // make conditionals: W=1's, CONFIG_*'s, cc-option's
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "ifeq" || first == "ifneq" || first == "ifdef" || first == "ifndef") ++depth;
    if (first == "endif" && depth > 0) --depth;
    std::string op;
    if (depth != 0 || first != "KBUILD_CFLAGS" || !(words >> op) || op != "+=") continue;
    for (std::string word; words >> word;)
      if (word.starts_with("-W")) flags.push_back(word);
  }
  return flags;
}

bool change_applies(const RuntimeChange& change, const KernelHeaders& headers) {
  const bool facts_hold = std::ranges::all_of(change.when, [&](const HeaderFact& fact) {
    const bool has = headers.text(fact.header).find(fact.text) != std::string::npos;
    return has != fact.absent;
  });
  return facts_hold && std::ranges::all_of(change.when_kbuild_warns, [&](const std::string& flag) {
           return headers.warns(flag);
         });
}

std::vector<std::string> kbuild_variables(const KernelHeaders& headers) {
  std::vector<std::string> variables;
  // Each autoconf probe defines a function without a prototype, so with -Werror most probes
  // fail and the runtime is built for features the kernel lacks (upstream added ~85 prototypes:
  // 2604d135069f "PR31288: build with gcc14"). The translator writes `} static stap_probes[];`,
  // which -Wextra's -Wold-style-declaration rejects (upstream: de8aba9a4).
  static constexpr std::array<std::pair<const char*, const char*>, 3> kSilenced{
      {{"-Wmissing-prototypes", "-Wno-missing-prototypes"},
       {"-Wmissing-declarations", "-Wno-missing-declarations"},
       {"-Wextra", "-Wno-old-style-declaration"}}};
  std::string kcflags;
  for (const auto& [on, off] : kSilenced) {
    if (headers.warns(on)) kcflags += std::string(kcflags.empty() ? "" : " ") + off;
  }
  if (!kcflags.empty()) variables.push_back("KCFLAGS=" + kcflags);
  // stap's tracepoint query modules define COUNT_ARGS, which linux/args.h now defines too; gcc
  // has no switch for a macro redefined, so those modules alone build without -Werror (the make
  // function is empty for the script's module and the autoconf probes). Upstream: 0b7f672260ae
  // "PR32209: Define the __COUNT_ARGS macro conditionally".
  if (headers.text("linux/args.h").find("#define COUNT_ARGS") != std::string::npos)
    variables.emplace_back("CFLAGS_MODULE=$(if $(findstring tracequery,$(M)),-Wno-error)");
  return variables;
}

std::vector<std::string> adapt_runtime(const std::string& system_runtime,
                                       const KernelHeaders& headers, const std::string& dest,
                                       const std::vector<RuntimeChange>& changes) {
  fs::copy(system_runtime, dest, fs::copy_options::recursive);
  std::vector<std::string> applied;
  std::string record;
  for (const RuntimeChange& change : changes) {
    if (!change_applies(change, headers)) continue;
    apply(change, dest);
    applied.push_back(change.name);
    record += change.name + "\n";
  }
  write_file(dest + "/iotap-compat.txt", record);
  return applied;
}

namespace {

// `system` adapted by `changes` to `release`'s headers, in a private directory, then shared by
// content: the same kernel's runs (and two kernels whose headers call for the same changes)
// share one copy, and with it stap's cache.
std::string adapted_copy(const std::string& system, const std::vector<RuntimeChange>& changes,
                         const std::string& release, const KernelHeaders& headers) {
  const TempDir work("iotap-runtime");
  const std::string copy = work.path() + "/copy";
  adapt_runtime(system, headers, copy, changes);
  std::string shared = shared_runtime_dir(copy, stap_state_dir());
  if (shared == copy)
    throw UserError("cannot keep SystemTap's files adapted to " + release + " under " +
                    stap_state_dir() + "/iotap-runtime (is it writable?)");
  return shared;
}

}  // namespace

namespace {

std::string runtime_copy(const std::string& release, const KernelHeaders& headers) {
  std::error_code error;
  if (headers.include_dirs.empty() || !fs::is_directory(config::kSystemStapRuntimeDir, error))
    return {};
  return adapted_copy(config::kSystemStapRuntimeDir, runtime_changes(), release, headers);
}

std::string tapset_copy(const std::string& release, const KernelHeaders& headers) {
  const std::string system =
      (fs::path(config::kSystemStapRuntimeDir).parent_path() / "tapset").string();
  std::error_code error;
  if (headers.include_dirs.empty() || !fs::is_directory(system, error) ||
      std::ranges::none_of(tapset_changes(), [&](const RuntimeChange& change) {
        return change_applies(change, headers);
      }))
    return {};
  return adapted_copy(system, tapset_changes(), release, headers);
}

}  // namespace

std::string adapted_runtime_dir(const std::string& release) {
  return runtime_copy(release, kernel_headers(release));
}

KernelAdaptation adapt_for_kernel(const std::string& release) {
  const KernelHeaders headers = kernel_headers(release);
  return {runtime_copy(release, headers), kbuild_variables(headers), tapset_copy(release, headers)};
}

}  // namespace iotap::stap
