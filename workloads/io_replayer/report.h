// io_replayer's report of a replay: counts, bytes, time, and how closely it kept the pacing.
#pragma once

#include <optional>
#include <string>

#include "options.h"
#include "plan.h"
#include "replay.h"

namespace io_replayer {

struct PacingError {
  uint64_t gaps = 0;  // consecutive request pairs within a thread
  double p50_us = 0, p99_us = 0;
};

// |replayed gap - recorded gap / speed| over each thread's consecutive requests, start to
// start. None with --pace fast (there is no recorded gap to keep).
std::optional<PacingError> pacing_error(const Plan& plan, const ReplayResult& result,
                                        const Pace& pace);

std::string format_text(const Options& options, const Plan& plan, const ReplayResult& result);
std::string format_json(const Options& options, const Plan& plan, const ReplayResult& result);

}  // namespace io_replayer
