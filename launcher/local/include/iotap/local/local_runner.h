#pragma once
// --target local: the compiled module runs on this machine's own kernel under staprun.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotap::local {

struct LocalRun {
  std::string module_path;
  std::vector<std::string> command;  // argv for staprun -c; empty with -x or for none
  std::optional<pid_t> pid;
  std::vector<std::string> staprun_options;  // before the module: -v
  std::vector<std::string> module_options;   // after it: NAME=VALUE (stap -G)
  std::chrono::seconds timeout{0};
};

struct LocalEvents {
  std::function<void(std::string_view)> stdout_data;
  std::function<void(std::string_view)> stderr_data;
};

// This machine's running kernel release (uname -r).
std::string local_kernel_release();

// Empty when this machine can load a module compiled elsewhere (--module): modules, staprun,
// root; otherwise why not, and what to do.
std::string local_load_problem();

// Empty when this machine can also compile one for its own kernel (its headers); otherwise why
// not, and what to do.
std::string local_kernel_problem();

struct LocalResult {
  int exit_status = 0;     // staprun's
  bool timed_out = false;  // --timeout stopped it
};

// Runs staprun to its end. A stop signal (Ctrl-C, SIGTERM), --timeout or the end of -x's process
// is passed on to staprun's process group (staprun, which stops the module after its end probes,
// and the -c program); iotap waits for it.
LocalResult run_local(const LocalRun& run, const LocalEvents& events);

}  // namespace iotap::local
