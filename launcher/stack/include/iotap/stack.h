#pragma once
// One device of a block stack (md arrays, dm targets, disks) as the guest's sysfs showed it, and
// the lookups over a stack: by name or dev_t, a device's parent, its children. The vm runner
// reports the stack in this type, the engine correlates against it and the formatters print it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iotap {

struct StackDevice {
  std::string name;          // kernel name: md0, dm-0, ram7
  uint32_t dev = 0;          // kernel dev_t, major << 20 | minor, as in the events' DEV fields
  std::string spec;          // its --stack node, e.g. "delay(ram,50ms)"; may be empty
  std::string parent;        // the parent's kernel name; empty for the top device
  std::string md_level;      // "raid0", "raid1"; empty if not md
  uint64_t chunk_bytes = 0;  // md raid0, raid10, raid5 chunk size
  int64_t md_layout = 0;     // md's layout number: raid10 near copies in its low byte (n2 is 258)
  std::vector<std::pair<std::string, uint64_t>> md_members;  // slot order: name, data offset
                                                             // in sectors
  std::vector<std::string> dm_table;  // "START LENGTH TARGET ARGS", e.g. "0 131072 delay 1:7 0 50"
};

// dev_t as the events carry it.
constexpr uint32_t make_dev(uint32_t major, uint32_t minor) {
  return major << 20U | minor;
}
constexpr uint32_t dev_major(uint32_t dev) {
  return dev >> 20U;
}
constexpr uint32_t dev_minor(uint32_t dev) {
  return dev & ((1U << 20U) - 1);
}
// "MAJ:MIN", as sysfs and dmsetup print it.
inline std::string dev_name(uint32_t dev) {
  return std::to_string(dev_major(dev)) + ":" + std::to_string(dev_minor(dev));
}

// The device of that kernel name, or null.
inline const StackDevice* find_device(std::span<const StackDevice> stack, std::string_view name) {
  for (const auto& device : stack) {
    if (device.name == name) return &device;
  }
  return nullptr;
}

// The device of that dev_t, or null.
inline const StackDevice* find_device(std::span<const StackDevice> stack, uint32_t dev) {
  for (const auto& device : stack) {
    if (device.dev == dev) return &device;
  }
  return nullptr;
}

// The device's parent in the stack, or null for the top device.
inline const StackDevice* parent_of(std::span<const StackDevice> stack, const StackDevice& device) {
  return device.parent.empty() ? nullptr : find_device(stack, device.parent);
}

// The devices whose parent it is, in the stack's order.
inline std::vector<const StackDevice*> children_of(std::span<const StackDevice> stack,
                                                   const StackDevice& device) {
  std::vector<const StackDevice*> children;
  for (const auto& other : stack) {
    if (!other.parent.empty() && other.parent == device.name) children.push_back(&other);
  }
  return children;
}

}  // namespace iotap
