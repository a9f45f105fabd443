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
};

}  // namespace iotap::engine
