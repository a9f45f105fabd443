#include "iotap/runner/kernel_debuginfo.h"

#include <filesystem>

namespace iotap::runner {

namespace fs = std::filesystem;

std::optional<KernelDebuginfo> find_kernel_debuginfo(const std::string& release,
                                                     const std::string& debug_root) {
  const fs::path root(debug_root);
  KernelDebuginfo found{(root / "boot" / ("vmlinux-" + release)).string(),
                        (root / "boot" / ("System.map-" + release)).string(),
                        (root / "lib/modules" / release / "kernel").string()};
  std::error_code error;
  if (!fs::is_regular_file(found.vmlinux, error) || !fs::is_regular_file(found.system_map, error))
    return std::nullopt;
  if (!fs::is_directory(found.modules, error)) found.modules.clear();
  return found;
}

std::string debuginfo_package(const std::string& release) {
  return "linux-image-" + release + "-dbg";
}

std::string debuginfo_install_hint(const std::string& release) {
  return "apt-get install " + debuginfo_package(release) +
         " (about 300 MB to download; ./setup.sh does)";
}

}  // namespace iotap::runner
