#pragma once
// The axis report/html.h's latency histograms share, from the lowest range any of them uses to
// the highest, so that a slow device's bars stand to the right of its siblings'.
#include <cstdint>

#include "iotap/util/json_text.h"

namespace iotap::report::html_parts {

struct Axis {
  uint64_t from_us = UINT64_MAX;
  uint64_t to_us = 0;
};

// Widens `axis` to the ranges of `buckets` (a latency_us.histogram).
void widen(Axis& axis, const Json& buckets);

// The buckets over the whole axis, the ranges they lack counted 0.
Json on_axis(const Json& buckets, const Axis& axis);

}  // namespace iotap::report::html_parts
