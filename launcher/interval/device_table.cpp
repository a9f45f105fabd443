#include "iotap/interval/device_table.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

#include "iotap/slow_member_rule.h"
#include "iotap/util/lines.h"

namespace iotap::interval {

std::vector<DeviceRow> parse_device_table(std::string_view text) {
  std::vector<DeviceRow> rows;
  for_each_line(text, [&](std::string_view line) {
    std::istringstream words{std::string(line)};
    DeviceRow row;
    std::string extra;
    if (!(words >> row.device >> row.rw >> row.total_us >> row.count >> row.avg_us) ||
        (words >> extra))
      return;
    if (row.rw != "R" && row.rw != "W" && row.rw != "-") return;
    rows.push_back(row);
  });
  return rows;
}

std::vector<SlowMember> find_slow_members(const std::vector<DeviceRow>& rows,
                                          const std::vector<StackDevice>& devices) {
  std::map<std::string, uint64_t> read_avg;
  std::map<std::string, uint64_t> reads;
  for (const auto& row : rows) {
    if (row.rw == "R" && row.count > 0) {
      read_avg[row.device] = row.avg_us;
      reads[row.device] = row.count;
    }
  }
  std::vector<SlowMember> slow;
  for (const auto& parent : devices) {
    std::vector<const StackDevice*> members;
    for (const StackDevice* device : children_of(devices, parent)) {
      if (read_avg.contains(device->name)) members.push_back(device);
    }
    if (members.size() < 2) continue;
    const auto times_of = [&](const StackDevice* device) {
      return engine::MemberTimes{static_cast<double>(read_avg[device->name]) * 1000, {}};
    };
    for (const auto* member : members) {
      std::vector<engine::MemberTimes> siblings;
      for (const auto* sibling : members) {
        if (sibling != member) siblings.push_back(times_of(sibling));
      }
      const auto comparison = engine::compare_with_siblings(times_of(member), siblings);
      if (!comparison.slow) continue;
      const auto siblings_avg = static_cast<uint64_t>(comparison.siblings_mean_ns / 1000);
      const uint64_t avg = read_avg[member->name];
      slow.push_back({*member, parent.name, avg, siblings_avg, siblings.size(),
                      (avg - std::min(avg, siblings_avg)) * reads[member->name]});
    }
  }
  std::ranges::stable_sort(slow, std::greater{}, &SlowMember::excess_us);
  return slow;
}

}  // namespace iotap::interval
