#pragma once
// Merges the CPUs' streams into one, ordered by TS, within a bounded window. Each CPU's events
// arrive in order (docs/event-format.md); CPUs interleave arbitrarily, in batches as the
// transport drains each CPU's buffer. An event is released, earliest first, once the newest
// event seen is a window past it, or once the window holds too many events: memory is bounded
// by the window. (Releasing as soon as every CPU seen so far has a later event waiting would be
// faster but wrong: a CPU not seen yet may still deliver an older batch.) An event that arrives
// after a later one was released goes out next, and is counted as late.
// SEQ gaps are counted here, in arrival order, where a CPU's numbering is still its own.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "event.h"

namespace iotap::engine {

struct SorterStats {
  uint64_t sequence_gaps = 0;  // jumps (and steps back) in a CPU's SEQ
  uint64_t events_lost = 0;    // events the forward jumps skipped
  uint64_t late_events = 0;    // arrived after a later event had been released
};

class Sorter {
 public:
  Sorter(uint64_t window_ns, size_t window_events)
      : window_ns_(window_ns), window_events_(window_events == 0 ? 1 : window_events) {}

  // Takes one event; calls emit(const Event&) for every event it releases.
  template <typename Emit>
  void push(const Event& event, Emit&& emit) {
    Cpu& cpu = cpu_for(event.cpu);
    check_sequence(cpu, event.seq);
    if (event.ts < released_ts_) ++stats_.late_events;
    const bool was_empty = cpu.queue.empty();
    cpu.queue.push(event);
    if (was_empty) heap_push({event.ts, cpu.rank, event.cpu});
    ++held_;
    if (event.ts > newest_ts_) newest_ts_ = event.ts;
    release(emit, false);
  }

  // The stream ended: releases everything still held, in order.
  template <typename Emit>
  void flush(Emit&& emit) {
    release(emit, true);
  }

  [[nodiscard]] const SorterStats& stats() const { return stats_; }
  [[nodiscard]] size_t held() const { return held_; }

 private:
  // A FIFO that reuses its storage: the window's events live here.
  class Ring {
   public:
    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] const Event& front() const { return slots_[head_]; }
    void push(const Event& event) {
      if (size_ == slots_.size()) grow();
      const size_t mask = slots_.size() - 1;
      __builtin_prefetch(&slots_[(head_ + size_ + kAhead) & mask], 1);
      slots_[(head_ + size_) & mask] = event;
      ++size_;
    }
    void pop() {
      const size_t mask = slots_.size() - 1;
      head_ = (head_ + 1) & mask;
      __builtin_prefetch(&slots_[(head_ + kAhead) & mask]);
      --size_;
    }

   private:
    // A window's slots are touched once per lap of a ring, long after the last: with 64 CPUs
    // that is too many streams for the hardware to see. Fetched this many events ahead.
    static constexpr size_t kAhead = 4;
    void grow();
    std::vector<Event> slots_;  // a power of two in size
    size_t head_ = 0, size_ = 0;
  };

  struct Cpu {
    Ring queue;
    uint64_t last_seq = 0;
    uint32_t rank = 0;  // the order the CPU was first seen in: it breaks ties in time
    bool seen = false;
  };

  Cpu& cpu_for(uint32_t number);
  void check_sequence(Cpu& cpu, uint64_t seq);
  // The CPUs holding events form a min-heap by their next event's (TS, rank): the earliest is
  // found in O(1) and kept in O(log CPUs) (a scan of every CPU was most of the time at 64).
  // An entry carries its CPU's next TS and rank: a comparison reads the heap alone (reading
  // each CPU's ring was half the sorter's time at 64 CPUs).
  struct Next {
    uint64_t ts;
    uint32_t rank;
    uint32_t cpu;
    [[nodiscard]] bool before(const Next& other) const {
      return ts != other.ts ? ts < other.ts : rank < other.rank;
    }
  };
  void heap_push(Next next);
  void heap_pop();
  // The top's CPU has another event: one sift down, not a pop and a push.
  void heap_replace_top(Next next);
  void sift_down(size_t slot);

  template <typename Emit>
  void release(Emit& emit, bool all) {
    while (held_ > 0) {
      const Next top = heap_.front();
      const bool safe = all || held_ > window_events_ || newest_ts_ - top.ts >= window_ns_;
      if (!safe) return;
      if (top.ts > released_ts_) released_ts_ = top.ts;
      Cpu& cpu = cpus_[top.cpu];
      emit(cpu.queue.front());
      cpu.queue.pop();
      --held_;
      if (cpu.queue.empty())
        heap_pop();
      else
        heap_replace_top({cpu.queue.front().ts, top.rank, top.cpu});
    }
  }

  uint64_t window_ns_;
  size_t window_events_;
  std::vector<Cpu> cpus_;   // by CPU number
  uint32_t cpus_seen_ = 0;  // the next rank
  std::vector<Next> heap_;  // the CPUs holding events, earliest next event first
  size_t held_ = 0;
  uint64_t newest_ts_ = 0;
  uint64_t released_ts_ = 0;
  SorterStats stats_;
};

}  // namespace iotap::engine
