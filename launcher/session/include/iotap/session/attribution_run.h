#pragma once
// What `attribute` and `diagnose` share: examples/events.stp (USDT reads) or
// examples/syscall_events.stp (system calls; session/request_source.h chooses) run under the
// target options, its stream fed to the correlation engine as it arrives, the engine's result
// back.
#include <boost/program_options/options_description.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "iotap/provider/provider.h"
#include "iotap/report/overhead.h"
#include "iotap/session/output_file.h"
#include "iotap/session/target_options.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack/disk_stats.h"
#include "iotap/util/json_text.h"

namespace iotap::session {

struct AttributionRun {
  TracedRunResult run;
  engine::Result result;
  report::Overhead overhead;  // what the probes cost the run (report/overhead.h)
};

// For a caller that keeps every request (iotap record) or bio (--perfetto). All optional.
struct RequestHooks {
  // Once, before any request ends: the stack the run traces (empty with --target local) and
  // the request source chosen.
  std::function<void(const std::vector<StackDevice>&, engine::RequestSource)> started;
  // Each request as it ends (engine::Options::finished_request).
  std::function<void(const engine::FinishedRequest&)> finished;
  // Each bio as it ends (engine::Options::finished_bio).
  std::function<void(const engine::FinishedBio&)> finished_bio;
  // Each of a provider's requests as it ends, at any level (engine::Options::
  // finished_level_request): a query, its buffer reads, their smgr reads.
  std::function<void(const engine::FinishedLevelRequest&)> finished_level;
  // Once, before `started`, when the requests are a provider's levels (PB/PE: a generated
  // script): its declaration, whose levels' ops say which of them do I/O (iotap record).
  std::function<void(const provider::Provider&)> provider;
};

// --perfetto FILE, for the verbs that follow requests (attribute, diagnose, record, replay):
// adds the option to `options`; when it was given, `hooks` also feed a report::PerfettoTrace
// (beside what they did), which writes each request and bio as it ends. The file is checked
// when parsed options are taken (taken()), before the run; it is written under a temporary name
// and put in place by finish(), so that a run that fails leaves an older trace as it was.
class PerfettoOption {
 public:
  PerfettoOption();
  ~PerfettoOption();
  PerfettoOption(const PerfettoOption&) = delete;
  PerfettoOption& operator=(const PerfettoOption&) = delete;
  PerfettoOption(PerfettoOption&&) = delete;
  PerfettoOption& operator=(PerfettoOption&&) = delete;

  void add_to(boost::program_options::options_description& options);
  // After parsing: opens the file (an OutputFile: a directory or an unwritable path is said
  // now) and chains the trace, titled `title` (run_title()), into `hooks`.
  void taken(RequestHooks& hooks, const std::string& title);
  // The trace's end, and the file in its place; nothing without --perfetto.
  void finish();
  // --perfetto's file once taken(), for the checks that no two outputs, and no output and an
  // input, are one file; null without --perfetto.
  [[nodiscard]] const OutputFile* file() const;

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

// `requests`: --requests's value ("usdt", "syscall"), "" to choose by the program's probes.
AttributionRun run_attribution(const TargetOptions& options, size_t slowest,
                               std::string_view requests = {}, const RequestHooks& hooks = {});

// The whole of `attribute` and `diagnose`: their options (the target options, --html, and
// --slowest N when `waterfalls`), the run, and the report as text or JSON, on stdout or in -o's
// file, and as HTML in --html's.
int attribution_verb(std::span<const std::string> args, const char* help, bool waterfalls);

// How an attribution run ends for `attribute` and `diagnose`: its exit status (3 when there was
// nothing to answer from) and, when the verdict has no data, why (program_end()).
struct AttributionOutcome {
  int exit = 0;
  std::string why;
};
AttributionOutcome attribution_outcome(const TargetOptions& options, const AttributionRun& run,
                                       bool attribute_reads);
// The report as `attribute --json` prints it: the engine's JSON, the kernel's statistics, the
// stack, the exit status, how the program ended and what the probes cost.
Json attribution_json(const AttributionRun& run, const AttributionOutcome& outcome);
// The "iotap: nothing to attribute: ..." line on stderr, when the exit status is 3.
void say_nothing_to_answer(const AttributionRun& run, const AttributionOutcome& outcome);

// What a report says was traced: "-c's command on --stack's spec", or "process PID".
std::string run_title(const TargetOptions& options);

// How the run ended, for a report with no verdict: "block_hasher exited with status 1; its last
// line on stderr: ...", or staprun's status, or the timeout.
std::string program_end(const TargetOptions& options, const TracedRunResult& run);

// Whether a verdict status leaves the verb nothing to answer from (exit 3): no I/O at all for
// both; no USDT read for attribute (`attribute_reads`), no block I/O for diagnose.
bool nothing_to_answer(engine::VerdictStatus status, bool attribute_reads);

// Adds "kernel_stats" (disk_stats_json) to each entry of the JSON's devices[] that the kernel
// kept statistics for, matched by name; the others stay as they are.
void add_kernel_stats(Json& devices, const KernelDiskStats& kernel_stats);

}  // namespace iotap::session
