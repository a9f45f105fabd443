#pragma once
// Time a program's threads spent asleep, by reason: each sleep is paired with the wakeup of the
// same thread that ends it, and charged to the reason its stack names (latencytap's table).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iotap/latency/reasons.h"
#include "iotap/latency/sleep_event.h"
#include "iotap/latency/stream_loss.h"

namespace iotap::latency {

struct ReasonTotals {
  std::string reason;
  std::string function;  // the frame that named it
  uint64_t count = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;
  std::vector<symbols::Frame> stack;  // the stack of its longest sleep
  std::map<int, uint64_t> total_ns_by_thread;
};

struct BlockedTime {
  std::vector<ReasonTotals> reasons;  // most time first
  uint64_t total_ns = 0;              // all reasons
  uint64_t sleeps = 0;
  // Sleeps never ended by a wakeup while tracing: threads exiting (their last sleep), or the
  // run stopping while they slept.
  uint64_t unfinished = 0;
  uint64_t wakeups_without_sleep = 0;  // woken while not seen asleep (asleep before the start)
  // Lines the transport lost (gaps in a CPU's SEQ, or past its last line seen): each one a sleep
  // or a wakeup missing, so a count may be short by as many.
  uint64_t events_lost = 0;
  uint64_t events_repeated = 0;  // lines seen twice, taken once
};

class BlockedTimeTracker {
 public:
  void add(const SleepEvent& event);
  [[nodiscard]] BlockedTime finish() const;

 private:
  struct Asleep {
    uint64_t since_ns;
    std::vector<symbols::Frame> frames;
  };
  StreamLoss loss_;
  std::map<int, Asleep> asleep_;
  std::map<std::string, ReasonTotals> totals_;
  uint64_t sleeps_ = 0;
  uint64_t replaced_ = 0;
  uint64_t wakeups_without_sleep_ = 0;
};

}  // namespace iotap::latency
