#pragma once
// The path every tracing verb takes: resolve the command and the stack, fill in the script's
// markers, compile it for the target's kernel, run it there, and stream what it prints.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/guest/vm_runner.h"
#include "iotap/report/overhead.h"
#include "iotap/session/target_options.h"
#include "iotap/stap/stap_options.h"
#include "iotap/symbols/kernel_symbols.h"

namespace iotap::session {

struct TracedRunSinks {
  std::function<void(std::string_view)> output;  // the script's and the program's stdout
  std::function<void(std::string_view)> status;  // progress, one phrase at a time
  // Optional. A line of stap's and staprun's stderr ("WARNING: ..."); printed on stderr when
  // not set.
  std::function<void(std::string_view)> diagnostic;
  // Optional. The stack as the guest built it, once, before the script's output starts.
  std::function<void(const std::vector<StackDevice>&)> stack;
  // Optional. With TracedScript::kernel_symbols: the target's symbol table, before any output.
  std::function<void(std::shared_ptr<const symbols::KernelSymbols>)> kernel_symbols;
};

struct TracedRunResult {
  int exit_status = 0;                    // what iotap should exit with
  std::optional<int> target_exit_status;  // the -c program's, when known
  std::string program_last_stderr_line;   // the -c program's last line on stderr, if any
  int staprun_status = 0;
  bool interrupted = false;
  bool timed_out = false;
  std::string kernel_release;
  std::string top_device;            // the stack's top device path, when there is a stack
  std::vector<StackDevice> devices;  // the stack as the guest built it
  // --target vm: the kernel's disk statistics over the run (after - before), by kernel name,
  // for the devices that keep them (dm, md; not brd ram disks).
  KernelDiskStats kernel_stats;
  std::shared_ptr<const symbols::KernelSymbols> kernel_symbols;  // when asked for and received
  double compile_seconds = 0;
  double run_seconds = 0;
  // From the module's load to staprun's exit: the run the probes' time is a share of. Unset
  // when it never started.
  std::optional<double> traced_seconds;
  // --postgres: pg_stat_database's counters over the run (after - before), when the guest read
  // them.
  std::optional<runner::PostgresStats> postgres;
  // The probe hits SystemTap skipped (its closing "skipped probes" warning on stderr).
  uint64_t skipped_probes = 0;
  // With TracedScript::report_overhead, once the module reported its hits: what the probes
  // cost (printed on stderr as well; verbs with --json add it as "overhead").
  std::optional<report::Overhead> overhead;
};

// The script a verb runs: a file (usually one of examples/) and its arguments ($1, @2, ...).
struct TracedScript {
  std::string path;
  std::vector<std::string> args;
  // The user's stap options (iotap run -D, -G, -v, ...): for the compile, staprun and the module.
  stap::StapOptions stap_options{};
  // Handlers run with interrupts off (stap::CompileRequest::interrupts_off): iotap's own scripts,
  // which must not lose an interrupt's probe hit. iotap run turns it off for a user's script,
  // which gets stap's own default and budgets.
  bool interrupts_off = true;
  // The script prints kernel addresses (backtrace()): fetch the target's symbol table so they
  // can be named on the host (TracedRunResult::kernel_symbols, TracedRunSinks::kernel_symbols).
  bool kernel_symbols = false;
  // stap needs the kernel's symbol table at compile time: kprobe.function() globs, and .return
  // probes on user functions (see runner/kernel_tree.h). With --target vm, the first such
  // compile boots the guest once to read it; it is cached in build/cache.
  bool compile_kernel_symbols = false;
  // The program's stdout stays in the script's stream (iotap run, as stap -c does). Otherwise
  // (every other verb) the guest sends it with the program's stderr: a program's block-buffered
  // stdout, written mid-line into the same port as the module's events, split an event line
  // (and the program's line) in two (session/program_output.h states where it goes).
  bool program_stdout_in_stream = false;
  // Count the probes' hits (stap -t's report, taken out of the output: stap/hit_report.h), keep
  // the overhead (TracedRunResult::overhead) and print it on stderr when the run ends:
  // "iotap: overhead: 41.0k probe hits, 0 skipped, ~0.35 s (4% of the run at 9 us per hit)".
  bool report_overhead = false;
};

TracedRunResult traced_run(const TracedScript& asked, const TargetOptions& options,
                           const TracedRunSinks& asked_sinks);
inline TracedRunResult traced_run(const std::string& script_path, const TargetOptions& options,
                                  const TracedRunSinks& sinks) {
  return traced_run(TracedScript{script_path, {}}, options, sinks);
}

// The cost of one probe hit measured for the options' target (bench/overhead); none where it
// has not been measured.
std::optional<double> measured_ns_per_hit(const TargetOptions& options);

// "stack top: md0 = raid0(...)" and one "md0 raid0(...) <- ram0 ... dm-0" line per parent.
std::vector<std::string> describe_stack(const std::vector<StackDevice>& devices);

// Prints progress on stderr as "iotap: <phrase>", with the seconds since the run began.
std::function<void(std::string_view)> stderr_status_printer();

}  // namespace iotap::session
