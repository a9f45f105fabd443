#include "histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace iotap::engine {

size_t Histogram::bucket_of(uint64_t value) {
  if (value < kSub) return static_cast<size_t>(value);
  const unsigned shift = static_cast<unsigned>(std::bit_width(value)) - 1 - kSubBits;
  return static_cast<size_t>((shift + 1) * kSub + ((value >> shift) - kSub));
}

uint64_t Histogram::bucket_low(size_t bucket) {
  if (bucket < kSub) return bucket;
  const uint64_t shift = bucket / kSub - 1;
  return (kSub + bucket % kSub) << shift;
}

uint64_t Histogram::bucket_high(size_t bucket) {
  if (bucket < kSub) return bucket;
  const uint64_t shift = bucket / kSub - 1;
  return bucket_low(bucket) + ((uint64_t{1} << shift) - 1);
}

void Histogram::add(uint64_t value) {
  const size_t bucket = bucket_of(value);
  if (bucket >= counts_.size()) counts_.resize(bucket + 1);
  ++counts_[bucket];
  ++count_;
  sum_ += static_cast<double>(value);
  max_ = std::max(max_, value);
  min_ = std::min(min_, value);
}

void Histogram::merge(const Histogram& other) {
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size());
  for (size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

uint64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_));
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(wanted));
  // The ends are known exactly.
  if (rank >= count_) return max_;
  if (rank == 1) return min_;
  uint64_t seen = 0;
  for (size_t bucket = 0; bucket < counts_.size(); ++bucket) {
    seen += counts_[bucket];
    if (seen >= rank) {
      const uint64_t low = bucket_low(bucket);
      const uint64_t middle = low + (bucket_high(bucket) - low) / 2;
      return std::clamp(middle, min_, max_);
    }
  }
  return max_;
}

std::vector<uint64_t> Histogram::log2_us() const {
  std::vector<uint64_t> out;
  for (size_t bucket = 0; bucket < counts_.size(); ++bucket) {
    if (counts_[bucket] == 0) continue;
    const uint64_t low = bucket_low(bucket);
    const uint64_t middle_us = (low + (bucket_high(bucket) - low) / 2) / 1000;
    const auto power = static_cast<size_t>(std::bit_width(middle_us));  // 0 below 1 us
    if (power >= out.size()) out.resize(power + 1);
    out[power] += counts_[bucket];
  }
  return out;
}

Latency latency_of(const Histogram& h) {
  Latency l;
  l.count = h.count();
  if (l.count == 0) return l;
  l.mean_us = h.mean() / 1000;
  l.p50_us = static_cast<double>(h.percentile(0.50)) / 1000;
  l.p95_us = static_cast<double>(h.percentile(0.95)) / 1000;
  l.p99_us = static_cast<double>(h.percentile(0.99)) / 1000;
  l.max_us = static_cast<double>(h.max()) / 1000;
  l.log2_us = h.log2_us();
  return l;
}

}  // namespace iotap::engine
