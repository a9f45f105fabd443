#include "in_flight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "bio_tree.h"

namespace iotap::engine {
namespace {

// The bios near() offers that contain `sector`, in order.
std::vector<uint32_t> containing(const InFlight& in_flight, const BioPool& pool, uint64_t sector) {
  std::vector<uint32_t> found;
  in_flight.near(pool, sector, [&](uint32_t index) {
    const BioNode& node = pool[index];
    if (sector >= node.sector && sector - node.sector < node.sectors) found.push_back(index);
  });
  std::sort(found.begin(), found.end());
  return found;
}

// Random bios come and go on one device, around the point where the index is made and dropped,
// with lengths from one sector to 4 MiB (a bio longer than any when the index was made widens
// its lookups): for every sector asked, the bios offered that contain it are exactly those a
// scan of every bio in flight finds.
TEST(InFlight, OffersEveryBioThatContainsASectorAsAScanOfAllFindsThem) {
  std::mt19937_64 random(20261129);
  BioPool pool;
  InFlight in_flight;
  std::set<uint32_t> held;
  size_t indexed_lookups = 0;
  for (int step = 0; step < 60'000; ++step) {
    // Waves: up to 300 held, down to a few, so the index is made and dropped again and again.
    const bool grow = (step / 2'000) % 2 == 0;
    if (held.empty() || random() % 10 < (grow ? 6U : 3U)) {
      const uint32_t index = pool.make();
      BioNode& node = pool[index];
      node.sector = random() % 50'000;
      node.sectors = random() % 20 == 0 ? 1 + random() % 8'192 : 1 + random() % 256;
      in_flight.add(pool, index);
      held.insert(index);
    } else {
      auto it = held.begin();
      std::advance(it, static_cast<long>(random() % held.size()));
      in_flight.remove(pool, *it);
      pool.unref(*it);
      held.erase(it);
    }
    ASSERT_EQ(in_flight.all().size(), held.size());
    for (int ask = 0; ask < 3; ++ask) {
      const uint64_t sector = random() % 60'000;
      std::vector<uint32_t> scanned;
      for (const uint32_t index : held) {
        const BioNode& node = pool[index];
        if (sector >= node.sector && sector - node.sector < node.sectors) scanned.push_back(index);
      }
      ASSERT_EQ(containing(in_flight, pool, sector), scanned)
          << "sector " << sector << " at step " << step << " with " << held.size() << " held";
      if (held.size() > 64) ++indexed_lookups;
    }
  }
  EXPECT_GT(indexed_lookups, 10'000U);  // the index was asked, not only the list
}

}  // namespace
}  // namespace iotap::engine
