#pragma once
// How faithfully a replay followed its recording, from what the trace saw of the replay (not
// from the replayer's own account): every request issued, each thread's in the recorded order,
// the same bytes, and the recorded gaps kept. `iotap replay` reports it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iotap/recording/recording.h"

namespace iotap::recording {

// One replayed request as the trace saw it.
struct Replayed {
  uint64_t id = 0;        // io_replayer's request_id: the recorded request's place by start, from 1
  uint32_t thread = 0;    // io_replayer's thread index
  uint64_t start_ns = 0;  // from the replay's first request
  int64_t result = 0;
};

struct Fidelity {
  uint64_t recorded = 0, replayed = 0;              // requests
  bool order_preserved = true;                      // each thread's requests in its recorded order
  std::string first_difference;                     // where it was not, in words; empty when it was
  uint64_t recorded_bytes = 0, replayed_bytes = 0;  // done by the requests (their results)
  // |replayed gap - recorded gap / speed| over each thread's consecutive requests, start to
  // start. Not with --pace fast.
  struct Pacing {
    uint64_t gaps = 0;
    double p50_us = 0, p99_us = 0;
  };
  std::optional<Pacing> pacing;
};

// The recorded requests in the order the replayer numbers them (by start time, equal starts in
// the file's order): element i is request id i + 1.
std::vector<const Request*> by_start(const Recording& recording);

// The nearest-rank percentile p (0..1) of `values` (reordered); values must not be empty.
double nearest_rank(std::vector<double>& values, double p);

// `speed`: the pace's (1 for recorded times, 2 for x2); none for --pace fast.
Fidelity fidelity(const Recording& recorded, std::vector<Replayed> replayed,
                  std::optional<double> speed);

}  // namespace iotap::recording
