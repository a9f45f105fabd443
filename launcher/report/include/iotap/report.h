#pragma once
// The engine's Result for people (text tables) and for programs (JSON, schema
// "iotap.attribution/1", documented in docs/engine.md).
#include <nlohmann/json.hpp>
#include <string>

#include "iotap/engine.h"

namespace iotap::report {

inline constexpr const char* kSchema = "iotap.attribution/1";

// Requests, layers, devices, verdict, loss and the remap check; the slowest reads' waterfalls
// when asked (and kept: Options::slowest).
std::string text(const engine::Result& result, bool with_waterfalls);

nlohmann::ordered_json json(const engine::Result& result);

}  // namespace iotap::report
