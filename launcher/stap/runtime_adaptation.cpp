#include "iotap/stap/runtime_adaptation.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

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
  return headers;
}

bool change_applies(const RuntimeChange& change, const KernelHeaders& headers) {
  return std::ranges::all_of(change.when, [&](const HeaderFact& fact) {
    const bool has = headers.text(fact.header).find(fact.text) != std::string::npos;
    return has != fact.absent;
  });
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

std::string adapted_runtime_dir(const std::string& release) {
  const KernelHeaders headers = kernel_headers(release);
  std::error_code error;
  if (headers.include_dirs.empty() || !fs::is_directory(config::kSystemStapRuntimeDir, error))
    return {};
  // Adapted in a private directory, then shared by content: the same kernel's runs (and two
  // kernels whose headers call for the same changes) share one copy, and with it stap's cache.
  const TempDir work("iotap-runtime");
  const std::string copy = work.path() + "/runtime";
  adapt_runtime(config::kSystemStapRuntimeDir, headers, copy);
  std::string shared = shared_runtime_dir(copy, stap_state_dir());
  if (shared == copy)
    throw UserError("cannot keep SystemTap's runtime adapted to " + release + " under " +
                    stap_state_dir() + "/iotap-runtime (is it writable?)");
  return shared;
}

std::string guest_runtime_dir() {
  return adapted_runtime_dir(config::kGuestKernel);
}

}  // namespace iotap::stap
