#pragma once
// One line of examples/latency.stp, after the host has named its kernel addresses:
//   S TS TID STATE FRAME...   a thread goes to sleep (FRAME: "vfs_read+0x23f", "[raid0]" after a
//                             module's frame, or "0xffff..." when the address has no name)
//   W TS TID                  a thread is woken
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "iotap/symbols/kernel_stack.h"

namespace iotap::latency {

struct SleepEvent {
  enum class Kind { kSleep, kWakeup };
  Kind kind = Kind::kSleep;
  uint64_t timestamp_ns = 0;
  int tid = 0;
  unsigned state = 0;                  // sleeps: the task state (1 S, 2 D, 0x80 dead, ...)
  std::vector<symbols::Frame> frames;  // sleeps: innermost first, unnamed leading frames dropped
};

// Nothing for lines that are not events (the header, the program's own output).
std::optional<SleepEvent> parse_sleep_event(std::string_view line);

}  // namespace iotap::latency
