#pragma once
// iotap latency's output: latencytap's table for a person, iotap.latency/1 for a program.
#include <string>

#include "iotap/latency/blocked_time.h"
#include "iotap/util/json_text.h"

namespace iotap::latency {

// "Reason  Count  Average(us)  Maximum(us)  Percent%" rows, most time first, then a summary
// line; with `stacks`, each reason's longest sleep's kernel stack under its row.
std::string latency_text(const latency::BlockedTime& blocked, bool stacks);

// The same, as the "reasons" and totals of iotap.latency/1 (docs/toolbox.md).
Json latency_json(const latency::BlockedTime& blocked);

}  // namespace iotap::latency
