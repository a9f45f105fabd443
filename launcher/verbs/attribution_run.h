#pragma once
// What `attribute` and `diagnose` share: examples/events.stp run under the target options, its
// stream fed to the correlation engine as it arrives, the engine's result back.
#include <span>
#include <string>

#include "iotap/engine.h"
#include "verbs/target_options.h"
#include "verbs/traced_run.h"

namespace iotap::verbs {

struct AttributionRun {
  TracedRunResult run;
  engine::Result result;
};

AttributionRun run_attribution(const TargetOptions& options, size_t slowest);

// The whole of `attribute` and `diagnose`: their options (the target options, and --slowest N
// when `waterfalls`), the run, and the report as text or JSON, on stdout or in -o's file.
int attribution_verb(std::span<const std::string> args, const char* help, bool waterfalls);

// The stack as the engine wants it, from what the guest reported.
std::vector<engine::StackDevice> engine_stack(const std::vector<vm::GuestDevice>& devices);

}  // namespace iotap::verbs
