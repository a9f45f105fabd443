#include "flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace iotap::engine {
namespace {

// Random inserts, updates, erases and lookups, the same on FlatMap and std::unordered_map, with
// few distinct keys so that probe runs collide, wrap and are shifted back by erases; the key
// that marks an empty slot among them.
TEST(FlatMap, AgreesWithUnorderedMapThroughInsertsErasesAndLookups) {
  std::mt19937_64 random(20261129);
  std::vector<uint64_t> keys;
  keys.reserve(302);
  for (int i = 0; i < 300; ++i) keys.push_back(random() & ~uint64_t{0x7});  // aligned, as bios
  keys.push_back(~uint64_t{0});
  keys.push_back(0);
  FlatMap<uint32_t> flat;
  std::unordered_map<uint64_t, uint32_t> reference;
  for (int step = 0; step < 200'000; ++step) {
    const uint64_t key = keys[random() % keys.size()];
    switch (random() % 4) {
      case 0:
      case 1: {
        const auto value = static_cast<uint32_t>(step);
        flat[key] = value;
        reference[key] = value;
        break;
      }
      case 2:
        ASSERT_EQ(flat.erase(key), reference.erase(key) == 1) << "step " << step;
        break;
      default: {
        const uint32_t* found = flat.find(key);
        const auto it = reference.find(key);
        ASSERT_EQ(found != nullptr, it != reference.end()) << "step " << step;
        if (found != nullptr) {
          ASSERT_EQ(*found, it->second) << "step " << step;
        }
      }
    }
    ASSERT_EQ(flat.size(), reference.size()) << "step " << step;
  }
  // Every key still found with its value, after the last step.
  for (const uint64_t key : keys) {
    const uint32_t* found = flat.find(key);
    const auto it = reference.find(key);
    ASSERT_EQ(found != nullptr, it != reference.end());
    if (found != nullptr) {
      EXPECT_EQ(*found, it->second);
    }
  }
}

TEST(FlatMap, AnEmptyMapFindsAndErasesNothingAndANewKeyStartsAtItsDefault) {
  FlatMap<uint64_t> map;
  EXPECT_EQ(map.find(42), nullptr);
  EXPECT_FALSE(map.erase(42));
  EXPECT_FALSE(map.erase(~uint64_t{0}));
  EXPECT_EQ(map[42], 0U);
  EXPECT_EQ(map[~uint64_t{0}], 0U);
  EXPECT_EQ(map.size(), 2U);
}

}  // namespace
}  // namespace iotap::engine
