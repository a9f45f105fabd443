#pragma once
// iotap compare: two attributions side by side, per part (requests, layers, devices, verdict),
// with the differences worth a look marked. An attribution is what `iotap attribute`,
// `diagnose` or `replay` print with --json (schema iotap.attribution/2); a recording
// (docs/recording-format.md) stands for its requests' latencies as recorded.
#include <nlohmann/json.hpp>
#include <string>

#include "iotap/recording/recording.h"

namespace iotap::compare {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSchema = "iotap.compare/1";

// A difference is marked when B differs from A by more than this part of A ...
inline constexpr double kNotableChange = 0.20;
// ... and, for latencies, by more than this many microseconds (below it, run-to-run noise).
inline constexpr double kNotableMicroseconds = 100;

// The attribution in a recording: its requests' count, kinds and latencies as recorded (no
// layers, devices or verdict: a recording holds no block I/O).
Json attribution_of(const recording::Recording& recording);

// Throws UserError (naming `name` and the field) unless `doc` is an attribution: schema
// iotap.attribution/2, checked as report/attribution_check.h does for `iotap report`.
void check_attribution(const Json& doc, const std::string& name);

// The comparison (schema iotap.compare/1): "a" and "b" (file, stack, kind: "attribution" or
// "recording"), "requests" (each statistic: a, b, change, notable), "layers", "devices" (matched
// by name in one pass; one side null when the device is only in the other) and "verdicts". When
// one side is a recording, its side of the layer and device pairs has no data: they are not
// notable and carry "no_data": "a" (or "b").
Json compare(const Json& a, const std::string& a_name, const Json& b, const std::string& b_name);

// The comparison as tables for a person, notable differences marked with "<<".
std::string compare_text(const Json& comparison);

}  // namespace iotap::compare
