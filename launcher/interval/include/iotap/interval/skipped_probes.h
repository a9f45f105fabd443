#pragma once
// SystemTap's own count of probe hits it skipped, from its closing warning on stderr:
//   WARNING: Number of errors: 0, skipped probes: 2
// (a handler skipped because a global's lock stayed busy, as happens under qemu's emulation).
#include <cstdint>
#include <optional>
#include <string_view>

namespace iotap::interval {

std::optional<uint64_t> skipped_probes_in(std::string_view line);

}  // namespace iotap::interval
