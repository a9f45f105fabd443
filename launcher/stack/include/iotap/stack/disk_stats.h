#pragma once
// The kernel's own disk statistics of a device (/sys/block/NAME/stat), their difference over a
// run, and that difference as JSON: the kernel's view of a run, to set beside iotap's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "iotap/util/json_text.h"

namespace iotap {

// The first fields of /sys/block/NAME/stat (Documentation/block/stat.rst). The tick fields are
// milliseconds summed over ios, each io's time counted in jiffies (4 ms at the guest's HZ=250).
struct DiskStats {
  uint64_t reads = 0;  // read ios completed
  uint64_t reads_merged = 0;
  uint64_t sectors_read = 0;
  uint64_t read_ms = 0;  // read ticks
  uint64_t writes = 0;
  uint64_t writes_merged = 0;
  uint64_t sectors_written = 0;
  uint64_t write_ms = 0;
  uint64_t in_flight = 0;
  uint64_t io_ms = 0;  // time the device had ios in flight
};

// The kernel's statistics of each device over the run (after - before), by kernel name.
using KernelDiskStats = std::map<std::string, DiskStats, std::less<>>;

// The stat file's whitespace-separated numbers; nullopt when fewer than DiskStats' ten are there
// or one is not a number. Later fields (discards, flushes) are ignored.
std::optional<DiskStats> parse_disk_stats(std::string_view fields);

// after - before, field by field; a counter that went back (never, short of a wrap) gives 0.
// in_flight is after's: it is a level, not a count.
DiskStats disk_stats_difference(const DiskStats& before, const DiskStats& after);

// Whether the kernel ever counted an io on the device (brd ram disks' counters stay at zero).
bool counted_anything(const DiskStats& stats);

// Mean microseconds per read (read_ms / reads), nullopt without reads.
std::optional<double> kernel_read_mean_us(const DiskStats& stats);

// {"reads", "reads_merged", "sectors_read", "read_ms", "read_mean_us", "writes", "writes_merged",
//  "sectors_written", "write_ms", "write_mean_us", "io_ms"}; a mean is null without ios.
Json disk_stats_json(const DiskStats& stats);

}  // namespace iotap
