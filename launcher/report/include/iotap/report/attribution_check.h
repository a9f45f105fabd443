#pragma once
// An attribution read back from a file (`iotap report`, `iotap compare`): checked against the
// schema report::json writes (iotap.attribution/2, docs/engine.md) before anything draws or
// compares it, so that a damaged or hand-edited file is one line naming the file and the field
// ("a.json: devices[0].name: expected a string, found null"), never a crash, an endless loop or
// an internal error. Fields a part of iotap reads must have their documented type when present;
// the names that rows are matched and drawn by (a device's, a layer's, a slow member's, a kind's
// op) must be there; device names are unique. Keys iotap does not read are left alone.
#include <cstdint>
#include <string>
#include <string_view>

#include "iotap/util/json_text.h"

namespace iotap::report {

// Histogram bounds above this many microseconds (about 292,000 years) are refused: the
// histograms are drawn over powers of two up to the highest bound, which must not overflow.
inline constexpr uint64_t kMaxHistogramBoundUs = uint64_t{1} << 62U;

// The largest attribution file read: 256 MiB (a run with --slowest 100000 writes about 100 MiB;
// parsed, a JSON document takes several times its text).
inline constexpr uint64_t kMaxAttributionBytes = uint64_t{256} << 20U;

// Throws UserError unless `doc` is an attribution. `file` names it in the message; `or_else` is
// added to the "is not an iotap attribution" message (compare: " nor a recording").
void check_attribution(const Json& doc, const std::string& file, std::string_view or_else = "");

}  // namespace iotap::report
