// iotap latency: what the program's threads were blocked on, grouped by reason (latencytap).
#include <boost/program_options.hpp>
#include <cstdio>

#include "iotap/config.h"
#include "iotap/latency/blocked_time.h"
#include "iotap/latency/latency_format.h"
#include "iotap/report/overhead.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/program_output.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack/stack_json.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/lines.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using latency::latency_json;
using latency::latency_text;
using session::add_target_options;
using session::OutputFile;
using session::parse_options;
using session::program_line_printer;
using session::require_one_program;
using session::stderr_status_printer;
using session::TargetOptions;
using session::traced_run;
using session::TracedRunResult;
using session::TracedRunSinks;
using session::TracedScript;

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap latency -c CMD | -x PID [--target local|vm|ssh://HOST...] [--stack SPEC] [--stacks] [--json]

Time the program's threads spent asleep in the kernel, grouped by why, like SystemTap's
latencytap and latencytop before it. Every sleep is timed from the moment the thread leaves
the CPU until it is woken; its reason is read from the kernel path it slept in, named from the
target's own symbol table (/proc/kallsyms, read in the guest during the run):
  Reason        e.g. "Reading from file" (vfs_read), "Userspace lock contention" (futex_wait:
                pthread_join, mutexes), "Page fault", "Application requested delay";
                "Other: F" names the first kernel function when no known one is in the path
  Count         sleeps for that reason
  Average(us)   mean time asleep per sleep;  Maximum(us) the longest
  Percent%      share of all the threads' time asleep (thread time: 8 threads asleep together
                for 1 s count 8 s)
A preempted thread is runnable, not asleep: it is not counted. --stacks prints, under each
reason, the kernel stack of its longest sleep.

examples:
  iotap latency --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap latency --target vm --stack 'raid0(ram*4)' -c 'block_hasher -d __DEV__ -b 65536 -t 16' --stacks
  iotap latency -x 1234 --timeout 10 --json      # this kernel, as root

Lines the probes printed that never arrived (SystemTap's transport can lose one) are counted
from their per-CPU numbers: the text ends with "lost: N ..." and the JSON has events_lost.

The JSON (schema iotap.latency/1) has sleeps, total_us, unfinished_sleeps, wakeups_without_sleep,
events_lost, events_repeated and reasons[] with reason, function, count, total_us, avg_us,
max_us, percent, longest_stack[] and threads[] (tid, total_us), and the probes' overhead; see
docs/toolbox.md.

options)";

}  // namespace

int latency(Args args) {
  TargetOptions options;
  bool stacks = false;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "stacks", po::bool_switch(&stacks), "print the kernel stack of each reason's longest sleep");
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, kHelp)) return 0;
  require_one_program(options, "to watch");

  OutputFile out(options.output_path);
  const auto program_line = program_line_printer(options);
  latency::BlockedTimeTracker tracker;
  std::shared_ptr<const symbols::KernelSymbols> names;
  LineSplitter lines;
  const auto take_line = [&](std::string_view line) {
    const std::string named = names ? names->symbolize_text(line) : std::string(line);
    if (const auto event = latency::parse_sleep_event(named)) {
      tracker.add(*event);
    } else if (line != "iotap-latency 2") {
      // The program's own output: on stderr, prefixed; stdout carries the result.
      program_line(line);
    }
  };
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.kernel_symbols = [&](std::shared_ptr<const symbols::KernelSymbols> table) {
    names = std::move(table);
  };
  sinks.output = [&](std::string_view bytes) { lines.feed(bytes, take_line); };
  TracedScript script{data_paths().examples + "/latency.stp", {}};
  script.kernel_symbols = true;
  script.report_overhead = true;
  const TracedRunResult run = traced_run(script, options, sinks);
  lines.finish(take_line);

  const latency::BlockedTime blocked = tracker.finish();
  std::string text;
  if (options.json) {
    Json json{{"schema", "iotap.latency/1"}, {"kernel", run.kernel_release}};
    json.update(latency_json(blocked));
    json["stack"] = stack_json(run.devices);
    json["exit_status"] = run.exit_status;
    json["overhead"] = report::overhead_json(run.overhead);
    text = to_text(json);
  } else {
    text = latency_text(blocked, stacks);
  }
  out.write(text);
  return run.exit_status;
}

}  // namespace iotap::verbs
