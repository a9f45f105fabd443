#include "verdict.h"

#include <algorithm>

namespace iotap::engine {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

const DeviceStats* stats_of(const std::vector<DeviceStats>& devices, size_t i) {
  return i < devices.size() && devices[i].ios > 0 ? &devices[i] : nullptr;
}

// The device beneath `member` (or the member) that carries its time.
size_t carrier(const Stack& stack, const std::vector<DeviceStats>& devices, size_t member,
               double carries) {
  const DeviceStats* own = stats_of(devices, member);
  size_t named = member;
  size_t device = member;
  while (stack[device].children.size() == 1) {
    device = stack[device].children.front();
    const DeviceStats* below = stats_of(devices, device);
    if (below != nullptr && own != nullptr && own->dwell_ns > 0 &&
        below->exclusive_ns >= carries * own->dwell_ns)
      named = device;
  }
  return named;
}

MemberTimes times_of(const DeviceStats& stats) {
  return {stats.latency.mean(), static_cast<double>(stats.latency.percentile(0.5))};
}

}  // namespace

SiblingComparison compare_with_siblings(const MemberTimes& member,
                                        std::span<const MemberTimes> siblings) {
  SiblingComparison out;
  if (siblings.empty()) return out;
  std::vector<double> means;
  std::vector<double> typicals;
  for (const auto& sibling : siblings) {
    means.push_back(sibling.mean_ns);
    if (sibling.typical_ns) typicals.push_back(*sibling.typical_ns);
  }
  out.siblings_mean_ns = median(means);
  if (member.mean_ns <= kTimesSiblings * out.siblings_mean_ns ||
      member.mean_ns - out.siblings_mean_ns <= kAboveSiblingsNs)
    return out;
  // A mean can be carried by a few outliers (a vCPU preempted on a loaded host once made a
  // healthy ram disk's mean 15 times its siblings' with a median like theirs). A slow member
  // is slow for its typical io too, where that is known.
  if (member.typical_ns && typicals.size() == siblings.size() &&
      *member.typical_ns <= kTimesSiblings * median(typicals))
    return out;
  out.slow = true;
  return out;
}

std::vector<SlowMember> find_slow_members(const Stack& stack,
                                          const std::vector<DeviceStats>& devices,
                                          const TailShares& tail, const VerdictRules& rules) {
  std::vector<SlowMember> slow;
  for (size_t array = 0; array < stack.size(); ++array) {
    const auto& members = stack[array].children;
    if (members.size() < 2) continue;
    for (const size_t member : members) {
      const DeviceStats* own = stats_of(devices, member);
      if (own == nullptr) continue;
      std::vector<MemberTimes> siblings;
      for (const size_t sibling : members) {
        if (const DeviceStats* s = stats_of(devices, sibling); sibling != member && s != nullptr)
          siblings.push_back(times_of(*s));
      }
      const SiblingComparison comparison = compare_with_siblings(times_of(*own), siblings);
      if (!comparison.slow) continue;
      const size_t named = carrier(stack, devices, member, rules.carries);
      SlowMember result;
      result.name = stack[named].info.name;
      result.spec = stack[named].info.spec;
      result.parent = stack[named].info.parent;
      result.member = stack[member].info.name;
      result.array = stack[array].info.name;
      result.mean_us = devices[named].latency.mean() / 1000;
      result.siblings_mean_us = comparison.siblings_mean_ns / 1000;
      result.siblings = siblings.size();
      const auto share = tail.share_of_tail(stack.subtree(member), rules.slowest_fraction);
      result.share_of_slowest = share.share;
      result.slowest_requests = share.requests;
      slow.push_back(std::move(result));
    }
  }
  std::stable_sort(slow.begin(), slow.end(), [](const SlowMember& a, const SlowMember& b) {
    return a.share_of_slowest > b.share_of_slowest;
  });
  return slow;
}

std::vector<FailingMember> find_failing_members(const Stack& stack,
                                                const std::vector<DeviceStats>& devices) {
  std::vector<FailingMember> failing;
  for (size_t i = 0; i < stack.size() && i < devices.size(); ++i) {
    if (!stack[i].in_stack || devices[i].errors == 0) continue;
    const auto& children = stack[i].children;
    const bool below = std::any_of(children.begin(), children.end(), [&](size_t child) {
      return child < devices.size() && devices[child].errors > 0;
    });
    if (below) continue;
    failing.push_back({stack[i].info.name, stack[i].info.spec, stack[i].info.parent, devices[i].ios,
                       devices[i].errors});
  }
  return failing;
}

VerdictStatus verdict_status(const Result& result) {
  const bool reads = result.requests.count > 0 || result.stream.requests_unfinished > 0;
  const bool block_io =
      result.stream.bios_in_flight > 0 ||
      std::any_of(result.devices.begin(), result.devices.end(),
                  [](const DeviceResult& d) { return d.ios > 0 || d.errors > 0; });
  if (reads && block_io) return VerdictStatus::ok;
  if (block_io) return VerdictStatus::no_requests;
  if (reads) return VerdictStatus::no_block_io;
  return VerdictStatus::no_io;
}

const char* to_string(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::ok:
      return "ok";
    case VerdictStatus::no_io:
      return "no_io";
    case VerdictStatus::no_requests:
      return "no_requests";
    case VerdictStatus::no_block_io:
      return "no_block_io";
  }
  return "ok";
}

}  // namespace iotap::engine
