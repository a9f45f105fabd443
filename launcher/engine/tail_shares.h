#pragma once
// What the verdict asks of the requests the user reads: of the slowest `fraction` of them, the
// part of their time charged to some devices. Attribution answers over the leaf requests (a
// program's reads, its system calls); LevelTracker over a provider's outermost level (queries).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iotap::engine {

class TailShares {
 public:
  struct TailShare {
    double share = 0;
    uint64_t requests = 0;
  };
  TailShares() = default;
  TailShares(const TailShares&) = default;
  TailShares& operator=(const TailShares&) = default;
  TailShares(TailShares&&) = default;
  TailShares& operator=(TailShares&&) = default;
  virtual ~TailShares() = default;

  [[nodiscard]] virtual TailShare share_of_tail(const std::vector<size_t>& devices,
                                                double fraction) const = 0;

 protected:
  // Over the tail's latency buckets [first, last) (map entries whose value has `requests`,
  // `latency_ns` and `device_ns` by device index): their requests, and the part of their time
  // charged to `devices`.
  template <typename Iterator>
  static TailShare share_over(Iterator first, Iterator last, const std::vector<size_t>& devices) {
    TailShare out;
    double total = 0;
    double charged = 0;
    for (auto it = first; it != last; ++it) {
      out.requests += it->second.requests;
      total += it->second.latency_ns;
      for (const size_t device : devices)
        if (device < it->second.device_ns.size()) charged += it->second.device_ns[device];
    }
    out.share = total == 0 ? 0 : charged / total;
    return out;
  }
};

}  // namespace iotap::engine
