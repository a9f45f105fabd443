#include "histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace iotap::engine {
namespace {

uint64_t exact(std::vector<uint64_t> values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::max<size_t>(rank, 1) - 1];
}

TEST(Histogram, BucketsCoverEveryValueOnce) {
  const std::vector<uint64_t> values = {
      0, 1, 127, 128, 255, 256, 1000, 123456789, (uint64_t{1} << 40) + 12345, UINT64_MAX};
  for (const uint64_t v : values) {
    const size_t b = Histogram::bucket_of(v);
    EXPECT_LE(Histogram::bucket_low(b), v);
    EXPECT_GE(Histogram::bucket_high(b), v);
  }
  for (size_t b = 0; b + 1 < 57 * Histogram::kSub; ++b)
    ASSERT_EQ(Histogram::bucket_high(b) + 1, Histogram::bucket_low(b + 1)) << b;
}

TEST(Histogram, PercentilesWithinOnePercentOfExact) {
  std::mt19937_64 random(42);
  for (const int shape : {0, 1, 2}) {
    Histogram h;
    std::vector<uint64_t> values;
    for (int i = 0; i < 100'000; ++i) {
      uint64_t v = 0;
      if (shape == 0) v = 20'000 + random() % 80'000;  // uniform
      if (shape == 1)
        v = static_cast<uint64_t>(std::exp(8 + 8 * (static_cast<double>(random() % 10'000) / 1e4)));
      if (shape == 2) v = (random() % 100 == 0) ? 50'000'000 + random() % 1'000'000 : 30'000;
      values.push_back(v);
      h.add(v);
    }
    for (const double q : {0.5, 0.9, 0.95, 0.99, 0.999}) {
      const double want = static_cast<double>(exact(values, q));
      EXPECT_NEAR(static_cast<double>(h.percentile(q)), want, want * 0.01) << shape << " " << q;
    }
    EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
    EXPECT_EQ(h.count(), values.size());
    double sum = 0;
    for (const uint64_t v : values) sum += static_cast<double>(v);
    EXPECT_DOUBLE_EQ(h.mean(), sum / static_cast<double>(values.size()));
  }
}

TEST(Histogram, EndsAreExactAndEmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.percentile(0.5), 0U);
  EXPECT_EQ(h.mean(), 0);
  for (const uint64_t v : {1000003ULL, 2000003ULL, 85797123ULL}) h.add(v);
  EXPECT_EQ(h.percentile(0.99), 85797123U);
  EXPECT_EQ(h.percentile(0.0), 1000003U);
}

TEST(Histogram, MergeEqualsAddingEverything) {
  Histogram a;
  Histogram b;
  Histogram all;
  for (uint64_t v = 1; v < 5000; v += 7) {
    ((v % 2 != 0U) ? a : b).add(v * 1000);
    all.add(v * 1000);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.percentile(0.95), all.percentile(0.95));
  EXPECT_EQ(a.max(), all.max());
}

TEST(Histogram, SizeIsBoundedByRangeNotSamples) {
  // 10 million samples cost the same as a thousand: only buckets are kept.
  Histogram h;
  for (uint64_t i = 0; i < 10'000'000; ++i) h.add(30'000 + i % 1'000);
  EXPECT_EQ(h.count(), 10'000'000U);
  EXPECT_NEAR(static_cast<double>(h.percentile(0.5)), 30'500.0, 305.0);
}

TEST(Histogram, PowersOfTwoOfMicroseconds) {
  Histogram h;
  EXPECT_TRUE(h.log2_us().empty());
  h.add(500);        // 0.5 us: below 1 us
  h.add(1'500);      // 1.5 us: 1 to 2 us
  h.add(3'000'000);  // 3 ms: 2048 to 4096 us
  h.add(3'100'000);
  const std::vector<uint64_t> counts = h.log2_us();
  ASSERT_EQ(counts.size(), 13U);  // up to [12]: 2^11 to 2^12 us
  EXPECT_EQ(counts[0], 1U);
  EXPECT_EQ(counts[1], 1U);
  EXPECT_EQ(counts[12], 2U);
  uint64_t total = 0;
  for (const uint64_t n : counts) total += n;
  EXPECT_EQ(total, h.count());
}

}  // namespace
}  // namespace iotap::engine
