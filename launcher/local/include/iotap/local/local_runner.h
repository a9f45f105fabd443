#pragma once
// --target local: the compiled module runs on this machine's own kernel under staprun.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/runner/runner.h"

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
  // Optional: called once before the first stop is passed on to staprun, if the module is live
  // then (its probes still on).
  std::function<void()> before_stop;
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

// --target local as a runner/runner.h: this machine's kernel, its staprun, its stacks.
struct LocalOptions {
  std::string release;       // the kernel compiled for: --for-kernel's, else this one's
  std::string module_path;   // --module: a module saved elsewhere, run instead of compiling
  bool save_module = false;  // --save-module: compile only, for `release`
  // --save-module --for-kernel R (not this machine's) for a script that needs the kernel's
  // symbols to compile: the table read by booting R in a guest, when R is installed here.
  std::function<std::string(const std::string& release, const runner::StatusSink&)> guest_kallsyms;
};

class LocalRunner final : public runner::Runner {
 public:
  // Checks that this machine compiles and runs (its headers, modules, root), runs a module saved
  // elsewhere (no headers needed), or only compiles, for --for-kernel's release: a UserError
  // saying what is missing otherwise.
  explicit LocalRunner(LocalOptions options);

  [[nodiscard]] std::string kernel_release() const override { return options_.release; }
  [[nodiscard]] bool is_this_machine() const override { return true; }
  std::string compile_kernel(bool symbols, const runner::StatusSink& status) override;
  runner::RunResult run(const runner::ModuleBuilder& build_module,
                        const runner::RunRequest& request,
                        const runner::RunEvents& events) override;

 private:
  LocalOptions options_;
};

}  // namespace iotap::local
