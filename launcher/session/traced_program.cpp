#include "iotap/session/traced_program.h"

#include <filesystem>
#include <optional>

#include "iotap/util/error.h"

namespace iotap::verbs {

std::string traced_program(const TargetOptions& options) {
  check_target_options(options);
  if (!options.command_line.empty()) {
    // __DEV__ in -c needs the stack's top device to resolve.
    return resolve_command(options.command_line, plan_target_stack(options)).program;
  }
  if (options.pid) return pid_executable(*options.pid);
  return "";
}

std::string pid_executable(pid_t pid) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  if (ec)
    throw UserError("-x " + std::to_string(pid) + ": no such process, or not ours to trace (" +
                    ec.message() + ")");
  return exe.string();
}

}  // namespace iotap::verbs
