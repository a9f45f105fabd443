#pragma once
// The bios in flight on one device: a list, for the scans over all of them, and once there are
// many, an index by first sector, so that finding the bios that contain a sector (the join by
// sector, at every remap) looks at the bios near it instead of at every one. In engine_bench's
// deep shape (4,517 bios held at most) that scan was half the engine's time; with a
// few, the list alone is cheaper than keeping an index, so the index exists only while the
// device holds more than kIndexAbove.
//
// The index is a hash of buckets of 2^shift_ sectors (at least the longest bio's length when it
// was made; made again when a bio over kBucketsPerLookup buckets long comes), each a list linked
// through its nodes (BioNode::bucket_prev, bucket_next): adding and removing a bio is O(1) and
// allocates nothing, where a std::set of (sector, node) cost a tree node per bio and a quarter of
// the deep shape's time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bio_tree.h"
#include "flat_map.h"

namespace iotap::engine {

class InFlight {
 public:
  [[nodiscard]] const std::vector<uint32_t>& all() const { return list_; }

  // `index`'s sector and sectors are set; its slot is set here.
  void add(BioPool& pool, uint32_t index);
  void remove(BioPool& pool, uint32_t index);

  // Calls visit(index) for every bio in flight that may contain `sector`: all of them, or with
  // the index those whose bucket starts at most the longest one's length before it, in no
  // particular order. The caller checks.
  template <typename Visit>
  void near(const BioPool& pool, uint64_t sector, Visit&& visit) const {
    if (!indexed_) {
      for (const uint32_t index : list_) visit(index);
      return;
    }
    const uint64_t lowest = sector >= longest_ ? sector - longest_ + 1 : 0;
    for (uint64_t bucket = sector >> shift_;; --bucket) {
      if (const uint32_t* head = buckets_.find(bucket); head != nullptr)
        for (uint32_t index = *head; index != kNoNode; index = pool[index].bucket_next)
          visit(index);
      if (bucket == lowest >> shift_) return;
    }
  }

 private:
  static constexpr size_t kIndexAbove = 64;
  static constexpr size_t kUnindexBelow = 16;

  // A lookup reads at most this many buckets plus one before the index is made again.
  static constexpr uint32_t kBucketsPerLookup = 4;

  void reindex(BioPool& pool);  // every bio, buckets sized for the longest
  void link(BioPool& pool, uint32_t index);
  void unlink(BioPool& pool, uint32_t index);

  std::vector<uint32_t> list_;
  FlatMap<uint32_t> buckets_;  // (first sector >> shift_) -> the bucket's first node
  bool indexed_ = false;
  unsigned shift_ = 0;
  uint64_t longest_ = 0;  // sectors of the longest bio indexed since the index was made
};

}  // namespace iotap::engine
