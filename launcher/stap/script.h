#pragma once
// A user's .stp made ready to compile: SPDK's bpftrace.sh markers replaced.
#include <sys/types.h>

#include <optional>
#include <string>

namespace iotap::stap {

struct Markers {
  std::optional<std::string> exe;  // __EXE__: absolute path of the traced program
  std::optional<pid_t> pid;        // __PID__: the attached process
};

// Throws UserError when the script uses a marker that has no value (e.g. __PID__ without -x).
std::string prepare_script(const std::string& script_path, const Markers& markers);

}  // namespace iotap::stap
