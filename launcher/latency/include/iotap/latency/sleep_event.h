#pragma once
// One line of examples/latency.stp (format "iotap-latency 2"), after the host has named its
// kernel addresses:
//   S TS CPU SEQ TID STATE FRAME...   a thread goes to sleep (FRAME: "vfs_read+0x23f", "[raid0]"
//                                     after a module's frame, or "0xffff..." with no name)
//   W TS CPU SEQ TID                  a thread is woken
//   E CPU SEQ                         the stream ends: the SEQ of the CPU's last line
// SEQ numbers a CPU's lines from 1, so the reader can count lines the transport lost.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "iotap/symbols/kernel_stack.h"

namespace iotap::latency {

struct SleepEvent {
  enum class Kind { kSleep, kWakeup, kEnd };
  Kind kind = Kind::kSleep;
  uint64_t timestamp_ns = 0;  // not for kEnd
  uint32_t cpu = 0;
  uint64_t seq = 0;  // kEnd: the CPU's last
  int tid = 0;
  unsigned state = 0;                  // sleeps: the task state (1 S, 2 D, 0x80 dead, ...)
  std::vector<symbols::Frame> frames;  // sleeps: innermost first, unnamed leading frames dropped
};

// Nothing for lines that are not events (the header, the program's own output).
std::optional<SleepEvent> parse_sleep_event(std::string_view line);

}  // namespace iotap::latency
