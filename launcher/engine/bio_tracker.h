#pragma once
// The block layer's bios (Q, X, M, C), joined by address into trees under the reads that
// caused them:
//   Q on a top device by a thread with an open read: a root bio of that read;
//   X: a part cut from a bio in flight on the same device; it inherits the read;
//   M: md or dm sent a bio on to a member; its parent is the bio in flight on FROM_DEV whose
//      sectors contain FROM_SECTOR (the smallest such), because md also splits at chunk
//      boundaries without an X event; the Q that follows on the member is the same bio;
//   C: the bio ended; its address is free for reuse from here on;
//   D: a request-based disk finished a request: the bios in flight on it inside the request's
//      sectors ended (the kernel traces no C for them), unless C events for them follow the D
//      on its CPU (then those C end them, as before).
// Each io's completion is recorded on its device (DeviceStats).
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "bio_tree.h"
#include "device_stats.h"
#include "event.h"
#include "flat_map.h"
#include "in_flight.h"
#include "request_tracker.h"
#include "stack.h"

namespace iotap::engine {

struct BioStats {
  uint64_t unmatched_completions = 0;       // C of a bio never seen start
  uint64_t untraced_split_completions = 0;  // C of a bio md/dm split without a tracepoint
  uint64_t abandoned = 0;                   // address reused before its C was seen
};

class BioTracker {
 public:
  BioTracker(BioPool& pool, Stack& stack, std::vector<DeviceStats>& devices,
             RequestTracker& requests, std::function<void(const FinishedBio&)> finished_bio = {})
      : pool_(pool),
        stack_(stack),
        devices_(devices),
        requests_(requests),
        finished_bio_(std::move(finished_bio)) {}

  void queue(const Event& event);
  void split(const Event& event);
  void remap(const Event& event);
  void complete(const Event& event);
  void rq_issue(const Event& event);  // notes the time, for the disk's service time
  void rq_complete(const Event& event);
  // Every event, before it is dispatched: ends the bios a D covered once no C for them can
  // follow (the D's CPU moved on, a read ended, or 1 ms passed).
  void before(const Event& event);
  // The stream ended: ends whatever D covered.
  void settle_all();

  [[nodiscard]] const BioStats& stats() const { return stats_; }
  [[nodiscard]] const Unrequested& unrequested() const { return unrequested_; }
  [[nodiscard]] size_t in_flight() const { return by_address_.size(); }

 private:
  uint32_t device_of(uint32_t dev);
  // A new node for `event`'s bio on `device`, in flight and findable by its address.
  uint32_t make(const Event& event, uint32_t device, uint64_t sector, uint32_t bytes,
                uint32_t parent, uint8_t flags);
  // The smallest bio in flight on `device` whose sectors contain `sector`.
  [[nodiscard]] uint32_t container(uint32_t device, uint64_t sector, int32_t tid) const;
  // md sends a flush on to every member from its workqueue as new empty bios, with no remap
  // event: an empty write queued on an md member belongs to the newest empty bio in flight on
  // the array (kNoNode for any other bio).
  [[nodiscard]] uint32_t md_flush_parent(const Event& event, uint32_t device) const;
  void finish(uint32_t index, uint64_t ts, int32_t error);
  // Gives up on a bio whose address came back before its completion did.
  void abandon(uint32_t index);  // counted in stats, then dropped
  void drop(uint32_t index);     // ended without a completion, with the stages of the same bio
  void forget(uint32_t index);   // no longer in flight: out of the address map and device list
  [[nodiscard]] bool member_of_md_or_dm(uint32_t index) const;
  // A bio on a top device queued while its thread had no request open.
  void count_unrequested(const Event& event);
  // Ends the bios the D on `cpu` covered.
  void settle(uint32_t cpu);

  // The bios a D covered, per CPU, until settled.
  struct Covered {
    uint64_t ts = 0;
    uint64_t seq = 0;  // the D's
    int32_t error = 0;
    std::vector<std::pair<uint32_t, uint64_t>> bios;  // node, address
  };

  BioPool& pool_;
  Stack& stack_;
  std::vector<DeviceStats>& devices_;
  RequestTracker& requests_;
  FlatMap<uint32_t> by_address_;     // bios in flight
  std::vector<InFlight> in_flight_;  // by device
  // Per CPU: md's completions of bios it split at a chunk boundary (no tracepoint saw them
  // start) that may still come. md completes such a bio right after a member bio completes, or
  // a few events later when an interrupt's events land in between (and the interrupt's own
  // member completion may be owed one too): each member completion may owe one, until `until`.
  struct SplitCompletionsDue {
    uint64_t count = 0;
    uint64_t until = 0;  // the last SEQ at which they may come
  };
  std::vector<SplitCompletionsDue> split_completions_due_;
  void expect_split_completion(uint32_t cpu, uint64_t member_completion_seq);
  std::vector<Covered> covered_;  // by CPU
  size_t covered_cpus_ = 0;       // CPUs with bios in covered_
  FlatMap<uint64_t> issued_;      // requests issued: RQ -> I's time
  BioStats stats_;
  Unrequested unrequested_;
  std::function<void(const FinishedBio&)> finished_bio_;
  uint64_t serials_ = 0;  // bios seen so far
};

}  // namespace iotap::engine
