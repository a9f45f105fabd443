#pragma once
// Turns a parsed --stack into what the guest runs to build it: module loads, mdadm and dmsetup
// steps in members-before-parents order, and the table of devices it will report back.
#include <string>
#include <vector>

#include "iotap/stack_spec/stack_spec.h"

namespace iotap::stack_spec {

struct PlannedDevice {
  int id = 0;       // 0 is the top device
  int parent = -1;  // -1 for the top
  DeviceKind kind = DeviceKind::kRam;
  std::string spec;  // the node's spec text, e.g. "delay(ram,50ms)"
  std::string path;  // the guest's path for it, e.g. /dev/md0, /dev/mapper/iotap3, /dev/ram7
};

struct VirtioDisk {
  std::string drive_id;  // qemu drive id, also the order the guest sees them in (vda, vdb, ...)
  uint64_t size_bytes = 0;
  uint64_t iops = 0;
  uint64_t bps = 0;
};

struct StackPlan {
  std::vector<PlannedDevice> devices;         // indexed by id
  std::vector<std::string> modules;           // kernel modules the stack needs, by name
  std::vector<std::string> brd_options;       // "rd_nr=8", "rd_size=65536" when ram disks are used
  std::vector<std::string> null_blk_options;  // "nr_devices=0" when null disks are used: only
                                              // the ones configfs makes exist
  std::vector<VirtioDisk> virtio_disks;
  std::string guest_script;  // sourced by the guest's init after its helper functions exist
  size_t ram_disks = 0;      // brd disks, all of one size
  uint64_t ram_disk_bytes = 0;

  [[nodiscard]] const std::string& top_path() const { return devices.front().path; }
};

inline constexpr uint64_t kDefaultRamBytes = 64ULL << 20;
inline constexpr uint64_t kDefaultVirtioBytes = 256ULL << 20;
inline constexpr uint64_t kDefaultNullBytes = 64ULL << 20;  // a ram disk's default, so that
                                                            // raid0(ram*3, null) has equal members

// Guest memory the kernel, the unpacked initrd, stap's module and the workload need besides
// the ram disks (brd keeps every written page in guest memory, and raid1 writes them all).
inline constexpr uint64_t kGuestReserveMib = 256;

StackPlan plan_stack(const StackNode& top);

// Throws UserError, naming the numbers and the flag to raise, when the plan's ram disks leave
// a guest of `memory_mib` less than kGuestReserveMib.
void check_fits_in_memory(const StackPlan& plan, uint64_t memory_mib);

}  // namespace iotap::stack_spec
