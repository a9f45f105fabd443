#include "iotap/guest/guest_modules.h"

#include <filesystem>

#include "initramfs.h"
#include "kernel.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

// `ko` (under the kernel's modules dir) as the -dbg package has it, when it does.
std::string with_debuginfo(const GuestKernel& kernel, const std::string& ko,
                           const std::string& debug_root) {
  fs::path relative = fs::path(ko).lexically_relative(kernel.modules_dir);
  // 6.12 ships its modules compressed (md-mod.ko.xz); the -dbg package's are plain .ko files.
  if (relative.extension() == ".xz" || relative.extension() == ".zst" ||
      relative.extension() == ".gz")
    relative.replace_extension();
  const fs::path debug = fs::path(debug_root) / "lib/modules" / kernel.release / relative;
  std::error_code error;
  return fs::is_regular_file(debug, error) ? debug.string() : ko;
}

}  // namespace

std::string guest_module_file(const std::string& release, const std::string& name,
                              const std::string& debug_root) {
  const GuestKernel kernel = GuestKernel::find(release);
  // Dependencies first: the module itself is the last.
  return with_debuginfo(kernel, kernel.module_load_order({name}).back(), debug_root);
}

std::vector<std::string> guest_loaded_module_files(
    const std::string& release, const std::optional<stack_spec::StackPlan>& stack,
    const std::string& debug_root) {
  const GuestKernel kernel = GuestKernel::find(release);
  std::vector<std::string> names = channel_module_names();
  if (stack) names.insert(names.end(), stack->modules.begin(), stack->modules.end());
  std::vector<std::string> files;
  for (const auto& ko : kernel.module_load_order(names))
    files.push_back(with_debuginfo(kernel, ko, debug_root));
  return files;
}

}  // namespace iotap::guest
