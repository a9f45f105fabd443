#include <cstdint>
#include <utility>

#include "sections.h"

namespace iotap::report::attribution_json {
namespace {

// Microseconds from `from` to `to`, which may be earlier. Subtracted as integers: a double
// cannot hold a nanosecond timestamp exactly.
double since(uint64_t from, uint64_t to) {
  return to >= from ? static_cast<double>(to - from) / 1000
                    : -static_cast<double>(from - to) / 1000;
}

Json stages(const engine::Waterfall& w) {
  Json stages = Json::array();
  for (const auto& s : w.stages)
    stages.push_back(
        {{"layer", s.layer},
         {"device", s.device},
         {"start_us", since(w.start_ns, s.start_ns)},
         {"dwell_us",
          s.end_ns >= s.start_ns ? static_cast<double>(s.end_ns - s.start_ns) / 1000 : 0.0},
         {"bios", s.bios}});
  return stages;
}

Json waterfall(const engine::Waterfall& w) {
  Json out{{"request", w.request_id},
           {"call", w.call},
           {"thread", w.thread},
           {"offset", w.offset},
           {"size", w.size},
           {"result", w.result},
           {"latency_us", static_cast<double>(w.latency_ns) / 1000},
           {"stages", stages(w)}};
  if (w.level.empty()) return out;
  // A provider's request (a query): its level, text and split, and the slowest I/O inside it,
  // each starting at start_us from the query's start.
  Json inner = Json::array();
  for (const auto& io : w.inner) {
    Json item = waterfall(io);
    item["start_us"] = since(w.start_ns, io.start_ns);
    inner.push_back(std::move(item));
  }
  out["level"] = w.level;
  out["text"] = w.text;
  out["time_us"] = time_split(w.time);
  out["io"] = w.leaves;
  out["inner"] = std::move(inner);
  return out;
}

}  // namespace

// The slowest requests' waterfalls: each stage's start and dwell from the request's start.
Json slowest(const engine::Result& r) {
  Json slowest = Json::array();
  for (const auto& w : r.slowest) slowest.push_back(waterfall(w));
  return slowest;
}

}  // namespace iotap::report::attribution_json
