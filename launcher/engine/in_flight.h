#pragma once
// The bios in flight on one device: a list, for the scans over all of them, and once there are
// many, an index by first sector, so that finding the bios that contain a sector (the join by
// sector, at every remap) looks at the bios near it instead of at every one. In engine_bench's
// deep shape (4,517 bios held at most) that scan was half the engine's time; with a
// few, the list alone is cheaper than keeping an index, so the index exists only while the
// device holds more than kIndexAbove.
#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "bio_tree.h"

namespace iotap::engine {

class InFlight {
 public:
  [[nodiscard]] const std::vector<uint32_t>& all() const { return list_; }

  // `index`'s sector and sectors are set; its slot is set here.
  void add(BioPool& pool, uint32_t index);
  void remove(BioPool& pool, uint32_t index);

  // Calls visit(index) for every bio in flight that may contain `sector`: all of them, or with
  // the index those starting at most the longest one's length before it. The caller checks.
  template <typename Visit>
  void near(uint64_t sector, Visit&& visit) const {
    if (!indexed_) {
      for (const uint32_t index : list_) visit(index);
      return;
    }
    auto it = by_sector_.upper_bound({sector, UINT32_MAX});
    while (it != by_sector_.begin()) {
      --it;
      if (sector - it->first >= longest_) return;  // starts too far before to contain it
      visit(it->second);
    }
  }

 private:
  static constexpr size_t kIndexAbove = 64;
  static constexpr size_t kUnindexBelow = 16;

  std::vector<uint32_t> list_;
  std::set<std::pair<uint64_t, uint32_t>> by_sector_;  // (first sector, node) while indexed_
  bool indexed_ = false;
  uint64_t longest_ = 0;  // sectors of the longest bio indexed since the index was made
};

}  // namespace iotap::engine
