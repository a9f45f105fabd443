// Parses /sys/block/NAME/stat, takes a run's difference and writes it as JSON.
#include "iotap/stack/disk_stats.h"

#include <array>
#include <charconv>

namespace iotap {
namespace {

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The next whitespace-separated number of `text` from `at`; nullopt at the end or on a word that
// is not all digits.
std::optional<uint64_t> next_number(std::string_view text, size_t& at) {
  while (at < text.size() && is_space(text[at])) ++at;
  size_t end = at;
  while (end < text.size() && !is_space(text[end])) ++end;
  if (end == at) return std::nullopt;
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, value);
  if (ec != std::errc() || ptr != text.data() + end) return std::nullopt;
  at = end;
  return value;
}

uint64_t counted(uint64_t before, uint64_t after) {
  return after >= before ? after - before : 0;
}

Json mean_us_or_null(uint64_t ms, uint64_t ios) {
  return ios == 0 ? Json(nullptr) : Json(static_cast<double>(ms) * 1000 / static_cast<double>(ios));
}

}  // namespace

std::optional<DiskStats> parse_disk_stats(std::string_view fields) {
  DiskStats stats;
  const std::array<uint64_t*, 10> order{
      &stats.reads,     &stats.reads_merged,  &stats.sectors_read,    &stats.read_ms,
      &stats.writes,    &stats.writes_merged, &stats.sectors_written, &stats.write_ms,
      &stats.in_flight, &stats.io_ms};
  size_t at = 0;
  for (uint64_t* field : order) {
    const std::optional<uint64_t> value = next_number(fields, at);
    if (!value) return std::nullopt;
    *field = *value;
  }
  return stats;
}

DiskStats disk_stats_difference(const DiskStats& before, const DiskStats& after) {
  DiskStats d;
  d.reads = counted(before.reads, after.reads);
  d.reads_merged = counted(before.reads_merged, after.reads_merged);
  d.sectors_read = counted(before.sectors_read, after.sectors_read);
  d.read_ms = counted(before.read_ms, after.read_ms);
  d.writes = counted(before.writes, after.writes);
  d.writes_merged = counted(before.writes_merged, after.writes_merged);
  d.sectors_written = counted(before.sectors_written, after.sectors_written);
  d.write_ms = counted(before.write_ms, after.write_ms);
  d.in_flight = after.in_flight;
  d.io_ms = counted(before.io_ms, after.io_ms);
  return d;
}

bool counted_anything(const DiskStats& stats) {
  return stats.reads + stats.writes + stats.in_flight + stats.io_ms > 0;
}

std::optional<double> kernel_read_mean_us(const DiskStats& stats) {
  if (stats.reads == 0) return std::nullopt;
  return static_cast<double>(stats.read_ms) * 1000 / static_cast<double>(stats.reads);
}

Json disk_stats_json(const DiskStats& stats) {
  return Json{{"reads", stats.reads},
              {"reads_merged", stats.reads_merged},
              {"sectors_read", stats.sectors_read},
              {"read_ms", stats.read_ms},
              {"read_mean_us", mean_us_or_null(stats.read_ms, stats.reads)},
              {"writes", stats.writes},
              {"writes_merged", stats.writes_merged},
              {"sectors_written", stats.sectors_written},
              {"write_ms", stats.write_ms},
              {"write_mean_us", mean_us_or_null(stats.write_ms, stats.writes)},
              {"io_ms", stats.io_ms}};
}

}  // namespace iotap
