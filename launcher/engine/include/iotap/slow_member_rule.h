#pragma once
// The verdict's rule for a slow member (docs/engine.md, "Verdict"): the one rule every verb
// judges by. Public so that a caller with only per-device times (iotap demo reads them from
// iotime.stp's table) judges exactly as the engine does for diagnose and attribute.
#include <optional>
#include <span>

namespace iotap::engine {

// A member is slow when its mean io latency is more than kTimesSiblings times the median of its
// siblings' means and more than kAboveSiblingsNs above it, and (when the median io latencies are
// known) its median is more than kTimesSiblings times the median of its siblings' medians.
inline constexpr double kTimesSiblings = 3;
inline constexpr double kAboveSiblingsNs = 1e6;

struct MemberTimes {
  double mean_ns = 0;                // mean io latency
  std::optional<double> typical_ns;  // median io latency, when known
};

struct SiblingComparison {
  bool slow = false;
  double siblings_mean_ns = 0;  // the median of the siblings' means
};

// `member` against its siblings (the other members of its array that did ios). No siblings:
// not slow.
SiblingComparison compare_with_siblings(const MemberTimes& member,
                                        std::span<const MemberTimes> siblings);

}  // namespace iotap::engine
