#pragma once
// Where each request's time went. When a request ends, its time is cut along the critical path:
// backwards from its end, the root bio that completed last, then the root that completed last
// before that one started (an fsync's writes, then its flush), and below each root the chain of
// bios that completed last at every level:
//   before submit        RS to the critical root bio's Q
//   md / dm / member     at each level, the bio's time not covered by its critical child
//                        goes to that bio's device (and its layer); a leaf's whole Q..C goes
//                        to "member device"
//   completion back up   the root's C to RD
// The pieces add up to the request's latency. A request none of whose bios completed before it
// ended (a page-cache hit, a buffered write) reached no device: it is counted as such, and
// left out of the layers, the tail and the waterfalls, which are about time spent below.
// Kept: latency histograms (all requests, per kind, those that reached a device), per-layer
// sums, per latency bucket the time charged to each device and the requests in it (so the
// slowest tenth's shares can be read at the end without keeping every request), and the N
// slowest requests' waterfalls.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "bio_tree.h"
#include "histogram.h"
#include "iotap/engine.h"
#include "request_tracker.h"
#include "stack.h"
#include "tail_shares.h"

namespace iotap::engine {

// What one request's end told: its latency, whether any bio of its own completed (it reached
// the stack), and the time charged to each device on its critical path. The provider's levels
// add it to the requests the request ran inside.
struct LeafOutcome {
  uint64_t latency_ns = 0;
  bool reached_stack = false;
  std::vector<std::pair<uint32_t, uint64_t>> device_ns;  // device index, ns
};

class Attribution final : public TailShares {
 public:
  Attribution(const BioPool& pool, const Stack& stack, size_t slowest)
      : pool_(pool), stack_(stack), slowest_(slowest) {}

  LeafOutcome finish(const Request& request, uint64_t end, int64_t result);
  // The request's waterfall, as slowest() gives it; while it is still open (its bio trees held).
  [[nodiscard]] Waterfall waterfall_of(const Request& request, uint64_t end, int64_t result) const;

  [[nodiscard]] const Histogram& latency() const { return latency_; }
  [[nodiscard]] uint64_t errors() const { return errors_; }
  [[nodiscard]] uint64_t without_block_io() const { return without_block_io_; }
  // Reads, writes, flushes: those seen, in that order.
  [[nodiscard]] std::vector<RequestKind> kinds() const;
  // The layers, in LayerId order: mean per read and share of all reads' time.
  [[nodiscard]] std::vector<Layer> layers() const;
  // Slowest first.
  [[nodiscard]] std::vector<Waterfall> slowest() const;
  // Over the requests that reached a device, the slowest `fraction` of them (from the
  // (1 - fraction) percentile up, its whole latency bucket, so at least one request): the part of
  // their time charged to `devices`, and how many requests that is.
  [[nodiscard]] TailShare share_of_tail(const std::vector<size_t>& devices,
                                        double fraction) const override;

 private:
  struct Charge {
    LayerId layer;
    uint32_t device;
    uint64_t ns;
  };
  struct Tail {
    uint64_t requests = 0;
    double latency_ns = 0;
    std::vector<double> device_ns;  // by device index
  };
  struct Kind {
    Histogram latency;
    uint64_t errors = 0, without_block_io = 0;
  };

  // A stretch of the request carried by one root bio: [low, high] inside the request, and the
  // critical path below the root, root first.
  struct Segment {
    uint32_t root = kNoNode;
    uint64_t low = 0, high = 0;
    std::vector<uint32_t> path;
  };

  // The critical path below `root`, root first.
  [[nodiscard]] std::vector<uint32_t> chain(uint32_t root) const;
  // The roots the request waited on, in time order; empty when none of its bios completed.
  [[nodiscard]] std::vector<Segment> critical_roots(const Request& request, uint64_t end) const;
  void charge_path(const Segment& segment, std::vector<Charge>& charges) const;
  [[nodiscard]] Waterfall waterfall(const Request& request, uint64_t end, int64_t result,
                                    const std::vector<Segment>& segments) const;

  const BioPool& pool_;
  const Stack& stack_;
  size_t slowest_;
  Histogram latency_;            // every request
  Histogram io_latency_;         // those that reached a device: the tail is read from it
  std::array<Kind, 3> kinds_{};  // R, W, F
  uint64_t errors_ = 0;
  uint64_t without_block_io_ = 0;
  std::array<double, kLayers> layer_ns_{};
  double total_ns_ = 0;
  std::map<size_t, Tail> tail_;  // by latency bucket: bounded by the histogram's buckets
  std::vector<Waterfall> heap_;  // a min-heap on latency: the slowest N so far
};

}  // namespace iotap::engine
