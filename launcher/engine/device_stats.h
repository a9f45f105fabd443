#pragma once
// What is known about each device's ios, filled at their completions.
#include <cstdint>

#include "histogram.h"

namespace iotap::engine {

struct DeviceStats {
  uint64_t ios = 0, bytes = 0, errors = 0;
  Histogram latency;        // queue to completion, ns
  double dwell_ns = 0;      // sum of the ios' latencies
  double exclusive_ns = 0;  // sum of the part of each io not spent in a device below it
  Histogram service;        // request-based disks: each request's issue (I) to completion (D)
};

}  // namespace iotap::engine
