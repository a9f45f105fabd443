#pragma once
// Latencies without keeping every sample: a log-linear histogram (HDR-style). Values below 128
// have a bucket each; above, every power of two is cut into 128 equal buckets, so a bucket is
// less than 1% of its values wide. Percentiles are read from the buckets (the bucket's middle,
// clamped to the exact min and max; the first and last ranks are the exact min and max); the
// count, sum, mean and max are exact. A histogram is at
// most 57 * 128 counters, whatever the number of samples.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "iotap/engine.h"

namespace iotap::engine {

class Histogram {
 public:
  static constexpr unsigned kSubBits = 7;
  static constexpr uint64_t kSub = uint64_t{1} << kSubBits;

  void add(uint64_t value);
  void merge(const Histogram& other);

  [[nodiscard]] uint64_t count() const { return count_; }
  [[nodiscard]] uint64_t max() const { return max_; }
  [[nodiscard]] uint64_t min() const { return count_ == 0 ? 0 : min_; }
  [[nodiscard]] double sum() const { return sum_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0 : sum_ / static_cast<double>(count_); }
  // The value at rank ceil(q * count) (nearest rank), to within a bucket; 0 when empty.
  [[nodiscard]] uint64_t percentile(double q) const;

  // Counts per power of two of microseconds (values are nanoseconds): [0] below 1 us, [k] from
  // 2^(k-1) us up to 2^k us. A fine bucket counts where its middle falls, so a count may take
  // in values up to a fine bucket's width (under 1%) beyond its power of two. Empty when empty.
  [[nodiscard]] std::vector<uint64_t> log2_us() const;

  static size_t bucket_of(uint64_t value);
  static uint64_t bucket_low(size_t bucket);   // smallest value in the bucket
  static uint64_t bucket_high(size_t bucket);  // largest value in the bucket

 private:
  std::vector<uint64_t> counts_;  // grows to the highest bucket used
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
  double sum_ = 0;
};

// Count, mean, p50, p95, p99 and max in microseconds, as the Result reports them.
Latency latency_of(const Histogram& h);

}  // namespace iotap::engine
