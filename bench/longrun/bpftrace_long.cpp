// The long run's peer: bpftrace running bench/overhead/events.bt (the events of iotap's
// events.stp) on block_hasher's 4 KiB O_DIRECT reads through linear(raid0(null:64G*2)) for
// SECONDS, in one guest boot (bpftrace_rounds.sh), as bench/longrun/long_run.sh runs iotap
// attribute and iotap record on the same workload. A program, not a test: docs/performance.md.
//
//   longrun_bpftrace [--seconds N] [--threads N]     (600, 2: the guest's vCPUs)
#include <cstdio>
#include <sstream>
#include <string>

#include "guest_rounds.h"
#include "iotap/guest/tools_image.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/stack_spec/stack_plan.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

namespace iotap::bench {
namespace {

int run(int argc, char** argv) {
  unsigned seconds = 600;
  unsigned threads = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (i + 1 >= argc)
      throw UserError(word +
                      ": unknown, or missing its value (longrun_bpftrace [--seconds N] "
                      "[--threads N])");
    const std::string value = argv[++i];
    if (word == "--seconds") {
      seconds = parse_number(word, value);
    } else if (word == "--threads") {
      threads = parse_number(word, value);
    } else {
      throw UserError("unknown option '" + word + "'");
    }
  }
  install_stop_handlers();
  const std::string bpftrace = find_in_path("bpftrace");
  if (bpftrace.empty()) throw UserError("bpftrace is not installed (apt-get install bpftrace)");
  const TempDir work("iotap-longrun");
  std::fprintf(stderr, "longrun_bpftrace: building the tools image (once, then cached)\n");
  const std::string tools = guest::tools_image({bpftrace}, data_paths().cache);
  const std::string bt = bpftrace_script(EVENTS_BT, "BLOCK_HASHER", BLOCK_HASHER, work);

  guest::VmRun run;
  run.plain_command = true;
  run.tools_image = tools;
  run.stack = stack_spec::plan_stack(stack_spec::parse_stack_spec("linear(raid0(null:64G*2))"));
  run.command = {"sh",
                 ROUNDS_SCRIPT,
                 std::to_string(seconds),
                 run.stack->top_path(),
                 std::to_string(threads),
                 BLOCK_HASHER,
                 bt};
  run.programs = {BLOCK_HASHER};
  run.files = {ROUNDS_SCRIPT, bt};
  const std::string output = run_rounds_in_guest(run, "longrun_bpftrace");
  std::istringstream in(output.substr(output.rfind("bpftrace ")));
  std::string word;
  double elapsed = 0;
  unsigned long long events = 0;
  unsigned long long rs = 0;
  unsigned long long rd = 0;
  unsigned long long lost = 0;
  if (!(in >> word >> elapsed >> events >> rs >> rd >> lost) || elapsed <= 0)
    throw UserError("the guest's run said nothing usable: " + output);
  std::printf(
      "bpftrace: %llu events in %.0f s (%.0f events/s; read_start %llu, read_done %llu), lost "
      "%llu (counted by bpftrace)\n",
      events, elapsed, static_cast<double>(events) / elapsed, rs, rd, lost);
  return 0;
}

}  // namespace
}  // namespace iotap::bench

int main(int argc, char** argv) {
  return iotap::bench::bench_main("longrun_bpftrace",
                                  [&] { return iotap::bench::run(argc, argv); });
}
