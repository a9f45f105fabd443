#include "iotap/interval/skipped_probes.h"

#include <charconv>

namespace iotap::interval {

std::optional<uint64_t> skipped_probes_in(std::string_view line) {
  constexpr std::string_view kKey = "skipped probes: ";
  const size_t at = line.find(kKey);
  if (!line.starts_with("WARNING:") || at == std::string_view::npos) return std::nullopt;
  uint64_t count = 0;
  const char* first = line.data() + at + kKey.size();
  const auto [end, error] = std::from_chars(first, line.data() + line.size(), count);
  if (error != std::errc() || end == first) return std::nullopt;
  return count;
}

}  // namespace iotap::interval
