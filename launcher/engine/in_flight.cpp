#include "in_flight.h"

#include <algorithm>

namespace iotap::engine {

void InFlight::add(BioPool& pool, uint32_t index) {
  BioNode& node = pool[index];
  node.slot = static_cast<uint32_t>(list_.size());
  list_.push_back(index);
  if (indexed_) {
    by_sector_.emplace(node.sector, index);
    longest_ = std::max(longest_, node.sectors);
  } else if (list_.size() > kIndexAbove) {
    indexed_ = true;
    longest_ = 0;
    for (const uint32_t each : list_) {
      by_sector_.emplace(pool[each].sector, each);
      longest_ = std::max(longest_, pool[each].sectors);
    }
  }
}

void InFlight::remove(BioPool& pool, uint32_t index) {
  const BioNode& node = pool[index];
  const uint32_t moved = list_.back();
  list_[node.slot] = moved;
  pool[moved].slot = node.slot;
  list_.pop_back();
  if (!indexed_) return;
  if (list_.size() < kUnindexBelow) {
    by_sector_.clear();
    indexed_ = false;
    return;
  }
  by_sector_.erase({node.sector, index});
}

}  // namespace iotap::engine
