#pragma once
// The engine's Result for people (text tables) and for programs (JSON, schema
// "iotap.attribution/3", documented in docs/engine.md).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "iotap/engine.h"
#include "iotap/stack/disk_stats.h"

namespace iotap::report {

inline constexpr const char* kSchema = "iotap.attribution/3";
// The version before a provider's levels (`levels`, `slowest_time`, a waterfall's `inner`):
// `report` and `compare` still read it (nothing it has changed meaning).
inline constexpr const char* kSchemaWithoutLevels = "iotap.attribution/2";

// Requests, layers, devices, verdict, loss and the remap check; the slowest reads' waterfalls
// when asked (and kept: Options::slowest). When the verdict has no data to stand on
// (engine::verdict_status), the verdict says so instead, followed by `why` when given (how the
// program ended, say). With `kernel_stats` (--target vm), the device table has a column of the
// kernel's mean per read beside iotap's.
std::string text(const engine::Result& result, bool with_waterfalls, std::string_view why = {},
                 const KernelDiskStats& kernel_stats = {});

// verdict.status is engine::verdict_status's; verdict.reason says what was not seen and `why`
// (null when the status is "ok").
nlohmann::ordered_json json(const engine::Result& result, std::string_view why = {});

// One sentence: what a verdict status other than ok means ("no I/O seen: ..."); empty for ok.
std::string verdict_status_sentence(const engine::Result& result);

}  // namespace iotap::report
