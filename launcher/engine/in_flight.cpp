#include "in_flight.h"

#include <algorithm>
#include <bit>

namespace iotap::engine {

void InFlight::add(BioPool& pool, uint32_t index) {
  BioNode& node = pool[index];
  node.slot = static_cast<uint32_t>(list_.size());
  list_.push_back(index);
  if (indexed_) {
    // A bio far longer than the buckets would have every lookup read many: made again.
    if (node.sectors > (uint64_t{kBucketsPerLookup} << shift_))
      reindex(pool);
    else
      link(pool, index);
  } else if (list_.size() > kIndexAbove) {
    indexed_ = true;
    reindex(pool);
  }
}

void InFlight::reindex(BioPool& pool) {
  longest_ = 0;
  for (const uint32_t each : list_) longest_ = std::max(longest_, pool[each].sectors);
  // A bucket as long as the longest bio: a lookup reads two buckets.
  shift_ = static_cast<unsigned>(std::bit_width(longest_ - 1));
  buckets_ = FlatMap<uint32_t>();
  for (const uint32_t each : list_) link(pool, each);
}

void InFlight::remove(BioPool& pool, uint32_t index) {
  const BioNode& node = pool[index];
  const uint32_t moved = list_.back();
  list_[node.slot] = moved;
  pool[moved].slot = node.slot;
  list_.pop_back();
  if (!indexed_) return;
  if (list_.size() < kUnindexBelow) {
    buckets_ = FlatMap<uint32_t>();
    indexed_ = false;
    return;
  }
  unlink(pool, index);
}

void InFlight::link(BioPool& pool, uint32_t index) {
  BioNode& node = pool[index];
  longest_ = std::max(longest_, node.sectors);
  const uint64_t bucket = node.sector >> shift_;
  const uint32_t* head = buckets_.find(bucket);
  node.bucket_prev = kNoNode;
  node.bucket_next = head != nullptr ? *head : kNoNode;
  if (node.bucket_next != kNoNode) pool[node.bucket_next].bucket_prev = index;
  buckets_[bucket] = index;
}

void InFlight::unlink(BioPool& pool, uint32_t index) {
  const BioNode& node = pool[index];
  if (node.bucket_next != kNoNode) pool[node.bucket_next].bucket_prev = node.bucket_prev;
  if (node.bucket_prev != kNoNode) {
    pool[node.bucket_prev].bucket_next = node.bucket_next;
  } else if (node.bucket_next != kNoNode) {
    *buckets_.find(node.sector >> shift_) = node.bucket_next;
  } else {
    buckets_.erase(node.sector >> shift_);
  }
}

}  // namespace iotap::engine
