#pragma once
// The sections of the attribution JSON (iotap.attribution/3, docs/engine.md), one writer each,
// in the order report::json puts them: requests, levels, slowest_time, unrequested, layers,
// devices, verdict, loss, remap_check, slowest, stream.
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "iotap/util/json_text.h"

namespace iotap::report::attribution_json {

// {mean, p50, p95, p99, max, histogram}: the histogram's powers of two from the lowest one used
// to the highest, the empty ones between included, so that a chart of them keeps its scale.
Json latency_us(const engine::Latency& latency);

// An absent name (no spec, no parent) is null, as in iotap.run/1's device list.
inline Json name_or_null(const std::string& name) {
  return name.empty() ? Json(nullptr) : Json(name);
}

Json requests(const engine::Result& r);
Json levels(const engine::Result& r);
Json slowest_time(const engine::Result& r);
// {reads_stack, reads_cache, writes, other} in microseconds.
Json time_split(const engine::TimeSplit& t);
Json unrequested(const engine::Result& r);
Json layers(const engine::Result& r);
Json devices(const engine::Result& r);
// verdict.reason: what was not seen, then `why` (null when the status is "ok").
Json verdict(const engine::Result& r, std::string_view why);
Json loss(const engine::Result& r);
Json remap_check(const engine::Result& r);
Json slowest(const engine::Result& r);
Json stream(const engine::Result& r);

}  // namespace iotap::report::attribution_json
