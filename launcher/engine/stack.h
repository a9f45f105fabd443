#pragma once
// The stack as the engine uses it: devices by dev_t, who is whose parent, what layer each
// device is, and the geometry the remap check needs. Devices that events name but the stack
// does not are added as they appear, named "MAJ:MIN".
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flat_map.h"
#include "iotap/engine.h"

namespace iotap::engine {

// Where time spent in a device is charged. The order is the report's.
enum class LayerId : uint8_t { before_submit, md, dm, member, completion };
inline constexpr size_t kLayers = 5;
const char* layer_name(LayerId layer);

struct DmTarget {
  uint64_t start = 0, length = 0;
  std::string type;     // linear, delay, flakey, error, ...
  uint32_t dev = 0;     // the device it maps to (linear, delay, flakey)
  uint64_t offset = 0;  // the sector there that START maps to
  bool mapped = false;  // a target whose arithmetic the remap check knows
  // striped: CHUNK_SECTORS, then each stripe's device and the sector there its chunks start at
  uint64_t chunk_sectors = 0;
  std::vector<std::pair<uint32_t, uint64_t>> stripes;
};

struct Device {
  StackDevice info;
  bool in_stack = false;
  LayerId layer = LayerId::member;
  size_t parent = SIZE_MAX;          // index, SIZE_MAX for none
  std::vector<size_t> children;      // the stack's members of this device
  std::vector<uint32_t> md_slots;    // raid: the members' dev_t in slot order (0 if unknown)
  std::vector<DmTarget> dm_targets;  // dm: the parsed table
};

class Stack {
 public:
  explicit Stack(std::vector<StackDevice> devices);

  // The device's index, added under "MAJ:MIN" if the stack does not have it.
  size_t index_of(uint32_t dev);
  // The device's name without adding it: its kernel name, or "MAJ:MIN".
  [[nodiscard]] std::string name_of(uint32_t dev) const;
  [[nodiscard]] size_t size() const { return devices_.size(); }
  const Device& operator[](size_t i) const { return devices_[i]; }
  // A device a user request enters through (in the stack, without a parent). With no stack
  // at all, every device is.
  [[nodiscard]] bool is_top(size_t i) const {
    return devices_[i].in_stack ? devices_[i].parent == SIZE_MAX : stack_size_ == 0;
  }
  // A user request on `dev` (a system call on it, or on a file on it) is one iotap follows:
  // `dev` is a top of the stack; with no stack at all, any device is.
  [[nodiscard]] bool takes_requests(uint32_t dev) const;
  // Every device below `i` in the stack, `i` included.
  [[nodiscard]] std::vector<size_t> subtree(size_t i) const;

 private:
  std::vector<Device> devices_;
  FlatMap<size_t> by_dev_;
  size_t stack_size_ = 0;
  // The last lookup: events come in runs on the same device.
  uint32_t last_dev_ = UINT32_MAX;
  size_t last_index_ = 0;
};

}  // namespace iotap::engine
