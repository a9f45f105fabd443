#pragma once
// The per-device table that examples/iotime.stp prints, read back, and the slow members it shows
// by the engine's rule (iotap/slow_member_rule.h), as iotap demo names them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/stack.h"

namespace iotap::interval {

struct DeviceRow {
  std::string device;
  std::string rw;
  uint64_t total_us = 0;
  uint64_t count = 0;
  uint64_t avg_us = 0;
};

// Rows of every table in `text`; other lines (the workload's own output) are skipped.
std::vector<DeviceRow> parse_device_table(std::string_view text);

struct SlowMember {
  StackDevice device;
  std::string parent;            // kernel name of the array or dm device it belongs to
  uint64_t avg_us = 0;           // its average read time
  uint64_t siblings_avg_us = 0;  // median of its siblings' averages
  size_t siblings = 0;
  uint64_t excess_us = 0;  // read time beyond its siblings': (avg_us - siblings_avg_us) x reads
};

// A member is slow by the engine's rule (engine::compare_with_siblings) on its average read
// against its siblings': the table has no median read, so that part of the rule is skipped.
// Reads only; members without reads are not judged. The costliest first (by excess_us), as the
// engine lists slow members by their share of the slowest requests: a member that stalled once
// is not named before the one that made every read slow.
std::vector<SlowMember> find_slow_members(const std::vector<DeviceRow>& rows,
                                          const std::vector<StackDevice>& devices);

}  // namespace iotap::interval
