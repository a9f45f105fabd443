#include <cstdint>
#include <vector>

#include "sections.h"

namespace iotap::report::attribution_json {
namespace {

Json histogram(const std::vector<uint64_t>& log2_us) {
  Json buckets = Json::array();
  size_t first = 0;
  while (first < log2_us.size() && log2_us[first] == 0) ++first;
  for (size_t power = first; power < log2_us.size(); ++power)
    buckets.push_back({{"from_us", power == 0 ? 0 : uint64_t{1} << (power - 1)},
                       {"to_us", uint64_t{1} << power},
                       {"count", log2_us[power]}});
  return buckets;
}

}  // namespace

Json latency_us(const engine::Latency& l) {
  return Json{{"mean", l.mean_us}, {"p50", l.p50_us}, {"p95", l.p95_us},
              {"p99", l.p99_us},   {"max", l.max_us}, {"histogram", histogram(l.log2_us)}};
}

}  // namespace iotap::report::attribution_json
