#include "html_axis.h"

#include <algorithm>
#include <map>

namespace iotap::report::html_parts {

void widen(Axis& axis, const Json& buckets) {
  for (const auto& bucket : buckets) {
    axis.from_us = std::min(axis.from_us, bucket.value("from_us", uint64_t{0}));
    axis.to_us = std::max(axis.to_us, bucket.value("to_us", uint64_t{0}));
  }
}

Json on_axis(const Json& buckets, const Axis& axis) {
  std::map<uint64_t, uint64_t> counts;
  for (const auto& bucket : buckets)
    counts[bucket.value("from_us", uint64_t{0})] = bucket.value("count", uint64_t{0});
  Json out = Json::array();
  for (uint64_t from = axis.from_us; from < axis.to_us; from = from == 0 ? 1 : from * 2) {
    const auto count = counts.find(from);
    out.push_back({{"from_us", from},
                   {"to_us", from == 0 ? 1 : from * 2},
                   {"count", count == counts.end() ? 0 : count->second}});
  }
  return out;
}

}  // namespace iotap::report::html_parts
