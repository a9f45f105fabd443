#include "verbs/device_table.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace iotap::verbs {

std::vector<DeviceRow> parse_device_table(std::string_view text) {
  std::vector<DeviceRow> rows;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    DeviceRow row;
    std::string extra;
    if (!(words >> row.device >> row.rw >> row.total_us >> row.count >> row.avg_us) ||
        (words >> extra))
      continue;
    if (row.rw != "R" && row.rw != "W" && row.rw != "-") continue;
    rows.push_back(row);
  }
  return rows;
}

std::vector<SlowMember> find_slow_members(const std::vector<DeviceRow>& rows,
                                          const std::vector<StackDevice>& devices) {
  std::map<std::string, uint64_t> read_avg;
  for (const auto& row : rows) {
    if (row.rw == "R" && row.count > 0) read_avg[row.device] = row.avg_us;
  }
  std::vector<SlowMember> slow;
  for (const auto& parent : devices) {
    std::vector<const StackDevice*> members;
    for (const StackDevice* device : children_of(devices, parent)) {
      if (read_avg.contains(device->name)) members.push_back(device);
    }
    if (members.size() < 2) continue;
    for (const auto* member : members) {
      std::vector<uint64_t> others;
      for (const auto* sibling : members) {
        if (sibling != member) others.push_back(read_avg[sibling->name]);
      }
      std::sort(others.begin(), others.end());
      const uint64_t median = others.size() % 2 == 1
                                  ? others[others.size() / 2]
                                  : (others[others.size() / 2 - 1] + others[others.size() / 2]) / 2;
      const uint64_t avg = read_avg[member->name];
      if (avg > 4 * median && avg > median + 1000)
        slow.push_back({*member, parent.name, avg, median, others.size()});
    }
  }
  return slow;
}

}  // namespace iotap::verbs
