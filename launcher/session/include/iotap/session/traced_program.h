#pragma once
// Which program a run traces, known before the run starts, for scripts that take its path as
// an argument (top.stp counts its USDT probes).
#include <sys/types.h>

#include <string>

#include "iotap/session/target_options.h"

namespace iotap::session {

// The absolute host path of -c's program (a bare workload name resolved as traced_run does),
// or of -x's /proc/PID/exe; empty when there is neither. Throws UserError as traced_run would.
std::string traced_program(const TargetOptions& options);

// -x PID's program: /proc/PID/exe. Throws UserError when there is no such process or it is not
// ours to trace.
std::string pid_executable(pid_t pid);

// -x's program where the run happens: pid_executable() here, or on a --target ssh:// host the
// executable the host names (its path there, which is the path its probes need).
std::string target_pid_executable(const TargetOptions& options);

}  // namespace iotap::session
