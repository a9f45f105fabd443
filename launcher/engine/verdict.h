#pragma once
// Which members are slow, and which fail.
//
// Slow: for every device with two or more members, each member is compared with its siblings
// by the rule of iotap/slow_member_rule.h (3 times the median of their means, and 1 ms above
// it, for its mean and its median). The device named is then the deepest one on the chain of
// single-member devices beneath the member (linear -> delay -> ram) whose own (exclusive) time
// carries at least 80% of the member's time: `raid0(ram*3, linear(delay(ram, 20ms)))` names the
// delay. Its share of the slowest requests' time is read from `tail`: attribution's leaf requests,
// or the provider's outermost level (the slowest queries) when it has levels.
//
// Failing: a device whose ios failed while none of its members' did: where the errors start.
#include <vector>

#include "device_stats.h"
#include "iotap/engine.h"
#include "iotap/slow_member_rule.h"
#include "stack.h"
#include "tail_shares.h"

namespace iotap::engine {

struct VerdictRules {
  double carries = 0.8;  // a device beneath carries the member's time from here
  double slowest_fraction = kSlowestFraction;  // share_of_slowest is over these requests
};

std::vector<SlowMember> find_slow_members(const Stack& stack,
                                          const std::vector<DeviceStats>& devices,
                                          const TailShares& tail, const VerdictRules& rules = {});

std::vector<FailingMember> find_failing_members(const Stack& stack,
                                                const std::vector<DeviceStats>& devices);

}  // namespace iotap::engine
