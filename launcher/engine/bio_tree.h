#pragma once
// The bios a request turned into, as a tree: a root bio on the top device, the parts split
// from it, the member bios md and dm remapped them to. Nodes live in a pool and are counted
// references, so a tree lasts exactly as long as something needs it:
//   - a bio in flight holds itself and its parent (its completion is its parent's news);
//   - a node holds its critical child, the child that completed last (attribution walks
//     these links from a request's root when the request ends);
//   - an open request holds its roots.
// Everything else is freed when it completes: memory follows what is in flight.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace iotap::engine {

inline constexpr uint32_t kNoNode = UINT32_MAX;
inline constexpr uint32_t kNoDevice = UINT32_MAX;

struct BioNode {
  enum Flag : uint8_t {
    in_flight = 1,       // queued (or split, or remapped) and not completed
    io = 2,              // counts as an io on its device; a split part does not
    awaiting_queue = 4,  // remapped; its Q on the member has not been seen yet
    same_bio = 8,        // the kernel remapped the parent bio itself: they complete together
    remapped = 16,       // made by M: a member bio of an md or dm device
    has_request = 32,
    rq_done = 64,           // a request's completion (D) covered it; a C may still follow
    md_or_dm_member = 128,  // remapped from a bio of md or dm (its parent's device's layer,
                            // noted when made: asked at every completion)
  };
  // Provided, so that making a node runs the members' initializers alone: the implicit one has
  // value-initialization clear all 136 bytes first, which g++ -O2 does with `rep stos`, slower
  // than the copy it precedes (6.5% of the engine on engine_bench's incident shape).
  BioNode() {}  // NOLINT(modernize-use-equals-default): `= default` brings the clearing back
  uint64_t address = 0;
  uint64_t serial = 0;   // unique in the stream, from 1 (FinishedBio::id)
  uint64_t request = 0;  // with has_request
  uint64_t start = 0;    // Q, or X / M when there is no Q
  uint64_t end = 0;      // C
  uint64_t sector = 0;
  uint64_t sectors = 0;  // at least 1, so a sector is always inside some bio
  uint32_t bytes = 0;
  int32_t rq_error = 0;
  uint64_t split_off = 0;      // sectors cut from its front by X on its device (what D must cover
                               // is the rest)
  uint64_t rq_end = 0;         // with rq_done: the D's time and status (rq_error)
  uint64_t covered_start = 0;  // the part of [start, end] spent in devices below (set at C)
  uint64_t covered_end = 0;
  uint32_t device = kNoDevice;  // index in the Stack
  uint32_t parent = kNoNode;
  uint32_t critical = kNoNode;  // the child that completed last
  uint32_t refs = 0;
  uint32_t slot = 0;  // position in its device's in-flight list
  // Its neighbours in its in-flight index bucket (in_flight.h), while indexed.
  uint32_t bucket_prev = kNoNode;
  uint32_t bucket_next = kNoNode;
  int32_t tid = 0;
  int32_t error = 0;
  uint8_t flags = 0;

  [[nodiscard]] bool has(Flag flag) const { return (flags & flag) != 0; }
  [[nodiscard]] uint64_t dwell() const { return end > start ? end - start : 0; }
};
static_assert(sizeof(BioNode) == 136);

class BioPool {
 public:
  uint32_t make() {
    uint32_t index = 0;
    if (free_.empty()) {
      index = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    } else {
      index = free_.back();
      free_.pop_back();
      // Made in place: `nodes_[index] = BioNode{}` built a blank on the stack and copied it,
      // its 16-byte loads stalling on the narrower stores just before them.
      std::construct_at(&nodes_[index]);
    }
    nodes_[index].refs = 1;
    ++live_;
    return index;
  }
  void ref(uint32_t index) { ++nodes_[index].refs; }
  void unref(uint32_t index) {
    while (index != kNoNode && --nodes_[index].refs == 0) {
      const uint32_t next = nodes_[index].critical;
      free_.push_back(index);
      --live_;
      index = next;
    }
  }
  BioNode& operator[](uint32_t index) { return nodes_[index]; }
  const BioNode& operator[](uint32_t index) const { return nodes_[index]; }
  [[nodiscard]] size_t live() const { return live_; }
  [[nodiscard]] size_t capacity() const { return nodes_.size(); }

 private:
  std::vector<BioNode> nodes_;
  std::vector<uint32_t> free_;
  size_t live_ = 0;
};

}  // namespace iotap::engine
