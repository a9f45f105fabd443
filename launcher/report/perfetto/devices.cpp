#include <algorithm>

#include "sections.h"

namespace iotap::report::perfetto {

// The devices: the stack's in its order, then any other a bio was on; each a process named by
// its name and spec.
std::unordered_map<std::string, int> devices(const std::vector<StackDevice>& stack,
                                             const std::vector<Bio>& bios, Json& events) {
  std::vector<std::string> devices;
  std::unordered_map<std::string, std::string> spec_of;
  for (const auto& device : stack) {
    devices.push_back(device.name);
    spec_of[device.name] = device.spec;
  }
  for (const auto& bio : bios)
    if (std::ranges::find(devices, bio.device) == devices.end()) devices.push_back(bio.device);
  std::unordered_map<std::string, int> pid_of;
  for (size_t i = 0; i < devices.size(); ++i) {
    const int pid = kFirstDevicePid + static_cast<int>(i);
    pid_of[devices[i]] = pid;
    const std::string& spec = spec_of[devices[i]];
    events.push_back(metadata("process_name", pid, 0,
                              {{"name", spec.empty() ? devices[i] : devices[i] + " " + spec}}));
    events.push_back(
        metadata("process_sort_index", pid, 0, {{"sort_index", static_cast<int>(i) + 1}}));
  }
  return pid_of;
}

}  // namespace iotap::report::perfetto
