#include "iotap/latency/blocked_time.h"

#include <algorithm>

namespace iotap::latency {
namespace {

constexpr unsigned kTaskDead = 0x80;

}  // namespace

void BlockedTimeTracker::add(const SleepEvent& event) {
  if (event.kind == SleepEvent::Kind::kEnd) {
    loss_.end(event.cpu, event.seq);
    return;
  }
  if (!loss_.take(event.cpu, event.seq)) return;
  if (event.kind == SleepEvent::Kind::kSleep) {
    // An exiting thread's last switch is not a wait: nothing will wake it.
    if ((event.state & kTaskDead) != 0) return;
    // A second sleep before a wakeup means the wakeup was not seen: the first one is dropped.
    if (asleep_.contains(event.tid)) ++replaced_;
    asleep_[event.tid] = {event.timestamp_ns, event.frames};
    return;
  }
  const auto found = asleep_.find(event.tid);
  if (found == asleep_.end()) {
    ++wakeups_without_sleep_;
    return;
  }
  const Asleep& sleep = found->second;
  const uint64_t ns = event.timestamp_ns > sleep.since_ns ? event.timestamp_ns - sleep.since_ns : 0;
  const Reason reason = classify(sleep.frames);
  ReasonTotals& totals = totals_[reason.text];
  if (totals.count == 0) {
    totals.reason = reason.text;
    totals.function = reason.function;
  }
  ++totals.count;
  ++sleeps_;
  totals.total_ns += ns;
  totals.total_ns_by_thread[event.tid] += ns;
  if (ns >= totals.max_ns) {
    totals.max_ns = ns;
    totals.stack = sleep.frames;
  }
  asleep_.erase(found);
}

BlockedTime BlockedTimeTracker::finish() const {
  BlockedTime out;
  for (const auto& [name, totals] : totals_) {
    out.reasons.push_back(totals);
    out.total_ns += totals.total_ns;
  }
  std::sort(out.reasons.begin(), out.reasons.end(), [](const auto& a, const auto& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.reason < b.reason;
  });
  out.sleeps = sleeps_;
  out.unfinished = asleep_.size() + replaced_;
  out.wakeups_without_sleep = wakeups_without_sleep_;
  out.events_lost = loss_.lost();
  out.events_repeated = loss_.repeated();
  return out;
}

}  // namespace iotap::latency
