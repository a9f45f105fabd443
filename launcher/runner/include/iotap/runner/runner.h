#pragma once
// Where the probes run: a qemu guest iotap boots (guest/), a machine reached with ssh (remote/)
// or this one (local/). session/traced_run.h chooses one (session/runner_for.h) and drives it:
// checks before anything slow, the kernel tree stap compiles against, then one run of the
// compiled module, with the target's stack and its kernel's disk statistics.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/runner/postgres_stats.h"
#include "iotap/stack.h"
#include "iotap/stack/disk_stats.h"
#include "iotap/symbols/kernel_symbols.h"

namespace iotap::runner {

using StatusSink = std::function<void(std::string_view)>;

// One run of a compiled module.
struct RunRequest {
  std::vector<std::string> command;   // argv staprun -c runs; empty with -x or for none
  std::vector<std::string> programs;  // host programs the command needs (a guest copies them)
  std::vector<std::string> files;     // host files it reads, at the same paths
  std::optional<pid_t> pid;           // -x
  // staprun's options (-v) and the module's parameters (NAME=VALUE, from stap -G): words
  // stap/stap_options.h checked.
  std::vector<std::string> staprun_options;
  std::vector<std::string> module_options;
  std::chrono::seconds timeout{0};
  // Send the target kernel's symbol table (RunEvents::kernel_symbols) before any output.
  bool kernel_symbols = false;
  // The command's stdout goes where its stderr goes, not into the module's output stream.
  bool program_stdout_to_stderr = false;
  // Attached to a PostgreSQL server (neither -c nor -x): its psql, with which the target reads
  // the server's counters once the module is live and again at the stop, before the module goes
  // (RunResult::postgres, every database summed). Empty otherwise.
  std::string postgres_client;
};

struct RunEvents {
  std::function<void(std::string_view)> stdout_data;
  std::function<void(std::string_view)> stderr_data;
  StatusSink status;                               // progress, one short phrase at a time
  std::function<void(const StackDevice&)> device;  // the target's stacks, top first, once
  // With RunRequest::kernel_symbols: the target's table, before any stdout_data.
  std::function<void(std::shared_ptr<const symbols::KernelSymbols>)> kernel_symbols;
};

struct RunResult {
  int exit_status = 0;  // staprun's, on the target
  bool interrupted = false;
  bool timed_out = false;
  // The kernel's disk statistics over the run (after - before), for the devices that keep them.
  KernelDiskStats kernel_stats;
  // From the module's load to staprun's exit; unset when the run never got there.
  std::optional<double> traced_seconds;
  // --postgres (or postgres_client): pg_stat_database's counters over the run (after - before).
  std::optional<PostgresStats> postgres;
};

// Makes the module a run loads; called once, by run().
using ModuleBuilder = std::function<std::string()>;

class Runner {
 public:
  Runner() = default;
  virtual ~Runner() = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  Runner(Runner&&) = delete;
  Runner& operator=(Runner&&) = delete;

  // The release of the kernel the module is compiled for.
  [[nodiscard]] virtual std::string kernel_release() const = 0;
  // Whether that kernel is this machine's own (stap may fetch its debuginfo from debuginfod).
  [[nodiscard]] virtual bool is_this_machine() const { return false; }

  // What would otherwise fail only after minutes of compiling, said now (UserError): the
  // programs and files of the run, and -x's program (its host path here).
  virtual void check_programs(const std::vector<std::string>& /*programs*/,
                              const std::vector<std::string>& /*files*/) const {}
  virtual void check_pid_program(pid_t /*pid*/, const std::string& /*program*/) const {}
  // stap -d NAME and --all-modules name kernel modules: on a target that is not this machine,
  // its kernel's own files for them; elsewhere left to stap.
  virtual void resolve_unwind_modules(std::vector<std::string>& /*modules*/,
                                      bool& /*all_modules*/) const {}

  // The kernel tree stap compiles against (stap -r); `symbols`: one with the kernel's symbol
  // table (runner/kernel_tree.h), which may take a first boot or connection to read.
  virtual std::string compile_kernel(bool symbols, const StatusSink& status) = 0;

  // Runs the module `build_module` makes: a guest calls it while it boots, the others first.
  // A stop signal (util/stop_signal.h) stops the run after its end probes.
  virtual RunResult run(const ModuleBuilder& build_module, const RunRequest& request,
                        const RunEvents& events) = 0;
};

}  // namespace iotap::runner
