#include "iotap/session/traced_program.h"

#include <filesystem>
#include <optional>

#include "iotap/session/postgres_options.h"
#include "iotap/util/error.h"

namespace iotap::session {

std::string traced_program(const TargetOptions& options) {
  check_target_options(options);
  if (!options.command_line.empty()) {
    // __DEV__ in -c needs the stack's top device to resolve.
    return resolve_command(options.command_line, plan_target_stack(options),
                           postgres_program_dir(options))
        .program;
  }
  if (options.pid) return target_pid_executable(options);
  return "";
}

std::string target_pid_executable(const TargetOptions& options) {
  if (options.target != Target::kSsh) return pid_executable(*options.pid);
  const std::string& exe = host_facts(options).pid_exe;
  if (exe.empty())
    throw UserError("-x " + std::to_string(*options.pid) + ": " + options.ssh_host->name() +
                    " has no such process, or not one " + host_facts(options).user + " may trace");
  return exe;
}

std::string pid_executable(pid_t pid) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  if (ec)
    throw UserError("-x " + std::to_string(pid) + ": no such process, or not ours to trace (" +
                    ec.message() + ")");
  return exe.string();
}

}  // namespace iotap::session
