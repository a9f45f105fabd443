#pragma once
// Where each read's time went. When a read ends, its time is cut along the critical path, the
// chain of bios that completed last at every level:
//   before submit        RS to the critical root bio's Q
//   md / dm / member     at each level, the bio's time not covered by its critical child
//                        goes to that bio's device (and its layer); a leaf's whole Q..C goes
//                        to "member device"
//   completion back up   the root's C to RD
// The pieces add up to the read's latency. Kept: the latency histogram, per-layer sums, per
// latency bucket the time charged to each device (so the slowest 1%'s shares can be read at
// the end without keeping every read), and the N slowest reads' waterfalls.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "bio_tree.h"
#include "histogram.h"
#include "iotap/engine.h"
#include "request_tracker.h"
#include "stack.h"

namespace iotap::engine {

class Attribution {
 public:
  Attribution(const BioPool& pool, const Stack& stack, size_t slowest)
      : pool_(pool), stack_(stack), slowest_(slowest) {}

  void finish(const Request& request, uint64_t end, int64_t result);

  [[nodiscard]] const Histogram& latency() const { return latency_; }
  [[nodiscard]] uint64_t errors() const { return errors_; }
  // The layers, in LayerId order: mean per read and share of all reads' time.
  [[nodiscard]] std::vector<Layer> layers() const;
  // Slowest first.
  [[nodiscard]] std::vector<Waterfall> slowest() const;
  // Over the reads at or above the q-th percentile (their whole latency bucket, so at least
  // one read): the fraction of their time charged to `devices`.
  [[nodiscard]] double share_of_tail(const std::vector<size_t>& devices, double q) const;

 private:
  struct Charge {
    LayerId layer;
    uint32_t device;
    uint64_t ns;
  };
  struct Tail {
    double latency_ns = 0;
    std::vector<double> device_ns;  // by device index
  };

  // The critical path below `root`, root first.
  [[nodiscard]] std::vector<uint32_t> chain(uint32_t root) const;
  [[nodiscard]] Waterfall waterfall(const Request& request, uint64_t end, int64_t result,
                                    uint32_t root, const std::vector<uint32_t>& path) const;

  const BioPool& pool_;
  const Stack& stack_;
  size_t slowest_;
  Histogram latency_;
  uint64_t errors_ = 0;
  std::array<double, kLayers> layer_ns_{};
  double total_ns_ = 0;
  std::map<size_t, Tail> tail_;  // by latency bucket: bounded by the histogram's buckets
  std::vector<Waterfall> heap_;  // a min-heap on latency: the slowest N so far
};

}  // namespace iotap::engine
