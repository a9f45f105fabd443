// io_replayer's report of a replay: counts, bytes, time, and how closely it kept the pacing.
#pragma once

#include <optional>
#include <string>

#include "iotap/recording/fidelity.h"
#include "options.h"
#include "plan.h"
#include "replay.h"

namespace io_replayer {

// |replayed gap - recorded gap / speed| over each thread's consecutive requests, start to
// start, as iotap replay computes it from the trace (recording::fidelity), here from the
// replayer's own clock. None with --pace fast (there is no recorded gap to keep).
std::optional<iotap::recording::Fidelity::Pacing> pacing_error(
    const iotap::recording::Recording& recording, const Plan& plan, const ReplayResult& result,
    const Pace& pace);

std::string format_text(const Options& options, const iotap::recording::Recording& recording,
                        const Plan& plan, const ReplayResult& result);
std::string format_json(const Options& options, const iotap::recording::Recording& recording,
                        const Plan& plan, const ReplayResult& result);

}  // namespace io_replayer
