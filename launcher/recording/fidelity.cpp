#include "iotap/recording/fidelity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace iotap::recording {

double nearest_rank(std::vector<double>& values, double p) {
  // The smallest value with at least p of them at or below it.
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  const size_t at = rank == 0 ? 0 : rank - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

std::vector<const Request*> by_start(const Recording& recording) {
  std::vector<const Request*> order;
  order.reserve(recording.requests.size());
  for (const auto& r : recording.requests) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](const Request* a, const Request* b) { return a->start_ns < b->start_ns; });
  return order;
}

Fidelity fidelity(const Recording& recorded, std::vector<Replayed> replayed,
                  std::optional<double> speed) {
  Fidelity out;
  out.recorded = recorded.requests.size();
  out.replayed = replayed.size();
  for (const auto& r : recorded.requests)
    if (r.result > 0) out.recorded_bytes += static_cast<uint64_t>(r.result);
  for (const auto& r : replayed)
    if (r.result > 0) out.replayed_bytes += static_cast<uint64_t>(r.result);

  // What each replaying thread had to do: the replayer gives the recorded threads indexes in
  // their numbers' order, and each its requests by start.
  const std::vector<const Request*> order = by_start(recorded);
  std::map<uint32_t, std::vector<uint64_t>> expected_by_number;
  for (size_t i = 0; i < order.size(); ++i) expected_by_number[order[i]->thread].push_back(i + 1);
  std::vector<std::vector<uint64_t>> expected;
  expected.reserve(expected_by_number.size());
  for (auto& [number, ids] : expected_by_number) expected.push_back(std::move(ids));

  std::stable_sort(replayed.begin(), replayed.end(), [](const Replayed& a, const Replayed& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.start_ns < b.start_ns;
  });
  std::map<uint32_t, std::vector<const Replayed*>> done;
  for (const auto& r : replayed) done[r.thread].push_back(&r);
  for (size_t t = 0; t < expected.size() && out.first_difference.empty(); ++t) {
    const auto it = done.find(static_cast<uint32_t>(t));
    const size_t got = it == done.end() ? 0 : it->second.size();
    for (size_t k = 0; k < std::min(got, expected[t].size()); ++k) {
      if (it->second[k]->id == expected[t][k]) continue;
      out.first_difference = "thread " + std::to_string(t) + "'s request " + std::to_string(k + 1) +
                             " was recorded request " + std::to_string(it->second[k]->id) +
                             ", not " + std::to_string(expected[t][k]);
      break;
    }
    if (out.first_difference.empty() && got != expected[t].size())
      out.first_difference = "thread " + std::to_string(t) + " replayed " + std::to_string(got) +
                             " requests of its " + std::to_string(expected[t].size());
  }
  if (out.first_difference.empty() && done.size() > expected.size())
    out.first_difference = "the replay had " + std::to_string(done.size()) +
                           " threads; the recording " + std::to_string(expected.size());
  out.order_preserved = out.first_difference.empty();

  if (!speed) return out;
  std::vector<double> errors_us;
  for (const auto& [thread, requests] : done) {
    for (size_t k = 1; k < requests.size(); ++k) {
      const uint64_t a = requests[k - 1]->id;
      const uint64_t b = requests[k]->id;
      if (a == 0 || b == 0 || a > order.size() || b > order.size()) continue;
      const double recorded_gap = (static_cast<double>(order[b - 1]->start_ns) -
                                   static_cast<double>(order[a - 1]->start_ns)) /
                                  *speed;
      const double replayed_gap = static_cast<double>(requests[k]->start_ns) -
                                  static_cast<double>(requests[k - 1]->start_ns);
      errors_us.push_back(std::abs(replayed_gap - recorded_gap) / 1000);
    }
  }
  Fidelity::Pacing pacing;
  pacing.gaps = errors_us.size();
  if (!errors_us.empty()) {
    pacing.p50_us = nearest_rank(errors_us, 0.50);
    pacing.p99_us = nearest_rank(errors_us, 0.99);
  }
  out.pacing = pacing;
  return out;
}

}  // namespace iotap::recording
