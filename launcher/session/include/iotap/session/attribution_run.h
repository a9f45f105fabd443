#pragma once
// What `attribute` and `diagnose` share: examples/events.stp (USDT reads) or
// examples/syscall_events.stp (system calls; session/request_source.h chooses) run under the
// target options, its stream fed to the correlation engine as it arrives, the engine's result
// back.
#include <span>
#include <string>
#include <string_view>

#include "iotap/engine.h"
#include "iotap/session/target_options.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack/disk_stats.h"

namespace iotap::verbs {

struct AttributionRun {
  TracedRunResult run;
  engine::Result result;
};

// `requests`: --requests's value ("usdt", "syscall"), "" to choose by the program's probes.
AttributionRun run_attribution(const TargetOptions& options, size_t slowest,
                               std::string_view requests = {});

// The whole of `attribute` and `diagnose`: their options (the target options, and --slowest N
// when `waterfalls`), the run, and the report as text or JSON, on stdout or in -o's file.
int attribution_verb(std::span<const std::string> args, const char* help, bool waterfalls);

// How the run ended, for a report with no verdict: "block_hasher exited with status 1; its last
// line on stderr: ...", or staprun's status, or the timeout.
std::string program_end(const TargetOptions& options, const TracedRunResult& run);

// Whether a verdict status leaves the verb nothing to answer from (exit 3): no I/O at all for
// both; no USDT read for attribute (`attribute_reads`), no block I/O for diagnose.
bool nothing_to_answer(engine::VerdictStatus status, bool attribute_reads);

// Adds "kernel_stats" (disk_stats_json) to each entry of the JSON's devices[] that the kernel
// kept statistics for, matched by name; the others stay as they are.
void add_kernel_stats(Json& devices, const KernelDiskStats& kernel_stats);

}  // namespace iotap::verbs
