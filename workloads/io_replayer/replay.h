// The replay itself: one thread per recorded thread, each issuing its steps in order, paced.
#pragma once

#include <cstdint>
#include <vector>

#include "device.h"
#include "options.h"
#include "plan.h"

namespace io_replayer {

struct Issued {
  uint64_t issued_ns = 0;  // from the replay's start
  uint64_t latency_ns = 0;
  int64_t result = 0;  // bytes, or -errno
};

struct ReplayResult {
  std::vector<std::vector<Issued>> threads;  // parallel to Plan::threads
  uint64_t elapsed_ns = 0;
  uint64_t errors = 0;  // failed, or fewer bytes than asked
  uint64_t bytes = 0;   // read and written
};

ReplayResult replay(const Plan& plan, const Device& device, const Pace& pace);

// When a step is due, in ns from the replay's start (0 for --pace fast: at once).
uint64_t due_ns(const Step& step, const Pace& pace);

}  // namespace io_replayer
