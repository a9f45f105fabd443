#include <utility>

#include "sections.h"

namespace iotap::report::attribution_json {

// The traced program's requests, in all and by kind (read, write, ...).
Json requests(const engine::Result& r) {
  Json kinds = Json::array();
  for (const auto& k : r.request_kinds)
    kinds.push_back({{"op", k.op},
                     {"count", k.count},
                     {"errors", k.errors},
                     {"without_block_io", k.without_block_io},
                     {"latency_us", latency_us(k.latency)}});
  return {{"source", engine::to_string(r.request_source)},
          {"provider", name_or_null(r.request_provider)},
          {"count", r.requests.count},
          {"errors", r.request_errors},
          {"without_block_io", r.requests_without_block_io},
          {"latency_us", latency_us(r.requests)},
          {"kinds", std::move(kinds)}};
}

}  // namespace iotap::report::attribution_json
