#pragma once
// The --stack grammar (docs/stack-grammar.md; `iotap run --help` has it whole): a tree of md
// levels, dm targets and disks.
//
//   spec   := node
//   node   := KIND [':' SIZE] ['(' arg {',' arg} ')'] [':' SIZE] ['*' COUNT]
//   arg    := node | KEY '=' VALUE | VALUE
//
//   raid0(ram*7, delay(ram, 50ms))      raid0(chunk=64k, ram:128M*4)
//   raid1(ram, delay(ram, 20ms))        linear(raid0(ram*4))
//   raid0(ram*3, flakey(ram, up=1s, down=1s))     raid0(ram*3, error(ram))
//   raid10(ram*4)   raid5(ram*3, missing)   striped(chunk=64k, ram*4)   crypt(ram)
//   raid0(ram*3, null(lat=5ms))             null:1G(lat=2ms)
//
// `X*N` repeats a node N times among its parent's members. Parsing checks everything that can
// be checked without a kernel; errors point at the offending character. Parsing takes time in
// proportion to the spec's length: the limits below are checked as the parser goes, before
// anything is copied.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iotap::stack_spec {

// What a guest can hold, and what keeps a spec's cost bounded.
inline constexpr size_t kMaxStackDepth = 16;     // levels: the top device is level 1
inline constexpr size_t kMaxStackDevices = 256;  // disks, md arrays and dm targets, copies included
inline constexpr size_t kMaxRepeat = 64;         // N in X*N
inline constexpr size_t kMaxVirtioDisks = 26;    // the guest names them vda to vdz

enum class DeviceKind {
  kRaid0,
  kRaid1,
  kRaid10,
  kRaid5,
  kLinear,
  kDelay,
  kFlakey,
  kError,
  kStriped,
  kCrypt,
  kRam,
  kVirtio,
  kNull,
  kMissing,  // an absent raid5 slot (mdadm's `missing`): no device, only a place among members
};

std::string_view kind_name(DeviceKind kind);
bool is_md(DeviceKind kind);
bool is_dm(DeviceKind kind);
bool is_disk(DeviceKind kind);

struct StackNode {
  DeviceKind kind = DeviceKind::kRam;
  std::string spec;   // this node's text with blanks removed and its own `*N` dropped
  size_t column = 0;  // 1-based position of the node in the original spec
  std::vector<StackNode> members;

  uint64_t size_bytes = 0;              // ram, virtio, null; 0 = default
  uint64_t chunk_bytes = 0;             // raid0, raid10, raid5, striped; 0 = the default
  std::chrono::nanoseconds latency{0};  // null: each I/O's completion time (null_blk's timer)
  uint64_t cache_bytes = 0;             // null: a volatile write cache (flushes, FUA); 0 = none
  std::chrono::milliseconds delay{0};   // delay
  std::chrono::seconds up{0}, down{0};  // flakey
  uint64_t iops = 0, bps = 0;           // virtio throttling; 0 = none
};

// Parses a spec; throws UserError with the spec and a caret under the offending character.
StackNode parse_stack_spec(std::string_view text);

// Parses "64k", "128M", "1G" (powers of 1024; bare numbers are bytes).
uint64_t parse_size(std::string_view text);

// The other way: 65536 is "64k", 2^30 is "1G", 1000 is "1000".
std::string describe_size(uint64_t bytes);

}  // namespace iotap::stack_spec
