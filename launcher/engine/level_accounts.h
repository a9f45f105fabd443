#pragma once
// What the provider's requests cost, per level: count, errors, latency, and each request's time
// split into waiting on reads that reached the stack, reads the page cache served, writes, and
// the rest ("other": CPU, locks). The split is the leaf I/O's time inside the request (the
// system calls, or the provider's deepest requests when the stream has no system calls:
// docs/engine.md); a thread runs its I/O one after another, so those times add, and "other" is
// what is left of the request's own time.
//
// The outermost level is the unit the user reads (queries): for it, as Attribution does for
// leaf requests, kept per latency bucket the time charged to each device and to reads, so the
// slowest tenth's shares can be read at the end; and the N slowest requests' waterfalls, each
// with its slowest I/O inside.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "attribution.h"
#include "histogram.h"
#include "iotap/engine.h"
#include "provider_request.h"
#include "tail_shares.h"

namespace iotap::engine {

class LevelAccounts final : public TailShares {
 public:
  LevelAccounts(std::vector<RequestLevel> levels, size_t slowest)
      : levels_(std::move(levels)),
        declared_(!levels_.empty()),
        slowest_(slowest),
        stats_(levels_.size()) {}

  // A level the provider has. Without a declaration every level is taken, named by its index.
  bool takes_level(uint32_t level);
  [[nodiscard]] bool has_levels() const { return !levels_.empty(); }
  [[nodiscard]] const RequestLevel& level(uint32_t index) const { return levels_[index]; }
  // The deepest level declared (the leaf I/O when the stream has no system calls).
  [[nodiscard]] bool deepest(uint32_t level) const { return level + 1 == levels_.size(); }

  void add_leaf(ProviderRequest& request, char op, const LeafOutcome& outcome,
                const std::function<Waterfall()>& waterfall) const;
  void ended(ProviderRequest& request, uint64_t end, int64_t result);
  void unfinished(uint32_t level);

  [[nodiscard]] std::vector<LevelResult> results() const;
  [[nodiscard]] const Histogram& outer_latency() const { return outer_latency_; }
  [[nodiscard]] uint64_t outer_errors() const { return stats_.empty() ? 0 : stats_[0].errors; }
  [[nodiscard]] std::vector<Waterfall> slowest() const;
  [[nodiscard]] SlowestTime slowest_time(double fraction) const;
  [[nodiscard]] TailShare share_of_tail(const std::vector<size_t>& devices,
                                        double fraction) const override;

 private:
  struct LevelStats {
    Histogram latency;
    uint64_t errors = 0, unfinished = 0;
    double reads_stack_ns = 0, reads_cache_ns = 0, writes_ns = 0, other_ns = 0;
    uint64_t reads_stack = 0, reads_cache = 0, writes = 0;
  };
  struct Tail {
    uint64_t requests = 0;
    double latency_ns = 0, reads_ns = 0, stack_ns = 0;
    std::vector<double> device_ns;  // by device index
  };
  // The buckets of the slowest `fraction` of the outermost requests, from the first.
  [[nodiscard]] std::map<size_t, Tail>::const_iterator tail_begin(double fraction) const;
  void keep_waterfall(const ProviderRequest& request, uint64_t end, int64_t result,
                      const SplitNs& split);

  std::vector<RequestLevel> levels_;
  bool declared_;
  size_t slowest_;
  std::vector<LevelStats> stats_;
  Histogram outer_latency_;
  std::map<size_t, Tail> tail_;  // by latency bucket: bounded by the histogram's buckets
  std::vector<Waterfall> heap_;  // a min-heap on latency: the slowest N outermost requests
};

}  // namespace iotap::engine
