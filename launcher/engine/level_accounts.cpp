#include "level_accounts.h"

#include <algorithm>
#include <string>
#include <utility>

namespace iotap::engine {
namespace {

// Slower first; among equals, the earlier request.
bool slower(const Waterfall& a, const Waterfall& b) {
  if (a.latency_ns != b.latency_ns) return a.latency_ns > b.latency_ns;
  return a.request_id < b.request_id;
}

double us(double ns) {
  return ns / 1000;
}

// Keeps `w` among the `limit` slowest in the min-heap `heap`.
void keep_slowest(std::vector<Waterfall>& heap, size_t limit, Waterfall w) {
  heap.push_back(std::move(w));
  std::push_heap(heap.begin(), heap.end(), slower);
  if (heap.size() > limit) {
    std::pop_heap(heap.begin(), heap.end(), slower);
    heap.pop_back();
  }
}

}  // namespace

bool LevelAccounts::takes_level(uint32_t level) {
  if (level < levels_.size()) return true;
  if (declared_) return false;
  while (levels_.size() <= level) {
    const std::string name = "level " + std::to_string(levels_.size());
    levels_.push_back({name, name + " requests"});
  }
  stats_.resize(levels_.size());
  return true;
}

void LevelAccounts::add_leaf(ProviderRequest& request, char op, const LeafOutcome& outcome,
                             const std::function<Waterfall()>& waterfall) const {
  const uint64_t ns = outcome.latency_ns;
  if (op == 'R' && outcome.reached_stack) {
    request.split.reads_stack += ns;
    ++request.reads_stack;
  } else if (op == 'R') {
    request.split.reads_cache += ns;
    ++request.reads_cache;
  } else {
    request.split.writes += ns;
    ++request.writes;
  }
  if (request.level != 0) return;
  for (const auto& [device, charged] : outcome.device_ns) {
    if (device >= request.device_ns.size()) request.device_ns.resize(device + 1);
    request.device_ns[device] += static_cast<double>(charged);
  }
  // Only I/O that reached the stack has stages to show.
  if (slowest_ == 0 || !outcome.reached_stack) return;
  if (request.inner.size() == kInnerWaterfalls && ns <= request.inner.front().latency_ns) return;
  keep_slowest(request.inner, kInnerWaterfalls, waterfall());
}

void LevelAccounts::ended(ProviderRequest& request, uint64_t end, int64_t result) {
  const uint64_t latency = end > request.start ? end - request.start : 0;
  LevelStats& stats = stats_[request.level];
  stats.latency.add(latency);
  if (result < 0) ++stats.errors;
  // Its I/O lies inside it; a stream cut or reordered can show more: scaled to fit.
  SplitNs split = request.split;
  if (split.total() > latency) {
    const double scale = static_cast<double>(latency) / static_cast<double>(split.total());
    split.reads_stack = static_cast<uint64_t>(static_cast<double>(split.reads_stack) * scale);
    split.reads_cache = static_cast<uint64_t>(static_cast<double>(split.reads_cache) * scale);
    split.writes = std::min(latency - split.reads_stack - split.reads_cache,
                            static_cast<uint64_t>(static_cast<double>(split.writes) * scale));
  }
  stats.reads_stack_ns += static_cast<double>(split.reads_stack);
  stats.reads_cache_ns += static_cast<double>(split.reads_cache);
  stats.writes_ns += static_cast<double>(split.writes);
  stats.other_ns += static_cast<double>(latency - split.total());
  stats.reads_stack += request.reads_stack;
  stats.reads_cache += request.reads_cache;
  stats.writes += request.writes;
  if (request.level != 0) return;

  outer_latency_.add(latency);
  Tail& tail = tail_[Histogram::bucket_of(latency)];
  ++tail.requests;
  tail.latency_ns += static_cast<double>(latency);
  tail.reads_ns += static_cast<double>(split.reads_stack + split.reads_cache);
  tail.stack_ns += static_cast<double>(split.reads_stack);
  if (tail.device_ns.size() < request.device_ns.size())
    tail.device_ns.resize(request.device_ns.size());
  for (size_t i = 0; i < request.device_ns.size(); ++i) tail.device_ns[i] += request.device_ns[i];
  keep_waterfall(request, end, result, split);
}

void LevelAccounts::keep_waterfall(const ProviderRequest& request, uint64_t end, int64_t result,
                                   const SplitNs& split) {
  const uint64_t latency = end > request.start ? end - request.start : 0;
  if (slowest_ == 0) return;
  if (heap_.size() == slowest_ && latency <= heap_.front().latency_ns) return;
  Waterfall w;
  w.request_id = request.id;
  w.thread = request.tid;
  w.call = levels_[request.level].name;
  w.level = levels_[request.level].name;
  w.text = request.text;
  w.offset = request.offset;
  w.size = request.size;
  w.result = result;
  w.start_ns = request.start;
  w.latency_ns = latency;
  w.time = {us(static_cast<double>(split.reads_stack)), us(static_cast<double>(split.reads_cache)),
            us(static_cast<double>(split.writes)),
            us(static_cast<double>(latency - split.total()))};
  w.leaves = request.reads_stack + request.reads_cache + request.writes;
  w.inner = request.inner;
  std::sort(w.inner.begin(), w.inner.end(),
            [](const Waterfall& a, const Waterfall& b) { return a.start_ns < b.start_ns; });
  keep_slowest(heap_, slowest_, std::move(w));
}

void LevelAccounts::unfinished(uint32_t level) {
  if (level < stats_.size()) ++stats_[level].unfinished;
}

std::vector<LevelResult> LevelAccounts::results() const {
  std::vector<LevelResult> out;
  for (size_t i = 0; i < levels_.size(); ++i) {
    const LevelStats& stats = stats_[i];
    LevelResult level;
    level.name = levels_[i].name;
    level.plural = levels_[i].plural;
    level.count = stats.latency.count();
    level.errors = stats.errors;
    level.unfinished = stats.unfinished;
    level.latency = latency_of(stats.latency);
    level.time = {us(stats.reads_stack_ns), us(stats.reads_cache_ns), us(stats.writes_ns),
                  us(stats.other_ns)};
    level.reads_stack = stats.reads_stack;
    level.reads_cache = stats.reads_cache;
    level.writes = stats.writes;
    out.push_back(std::move(level));
  }
  return out;
}

std::vector<Waterfall> LevelAccounts::slowest() const {
  std::vector<Waterfall> out = heap_;
  std::sort(out.begin(), out.end(), slower);
  return out;
}

std::map<size_t, LevelAccounts::Tail>::const_iterator LevelAccounts::tail_begin(
    double fraction) const {
  return tail_.lower_bound(Histogram::bucket_of(outer_latency_.percentile(1 - fraction)));
}

SlowestTime LevelAccounts::slowest_time(double fraction) const {
  SlowestTime out;
  if (outer_latency_.count() == 0) return out;
  double total = 0;
  double reads = 0;
  double stack = 0;
  for (auto it = tail_begin(fraction); it != tail_.end(); ++it) {
    out.requests += it->second.requests;
    total += it->second.latency_ns;
    reads += it->second.reads_ns;
    stack += it->second.stack_ns;
  }
  out.reads_share = total == 0 ? 0 : reads / total;
  out.stack_share = total == 0 ? 0 : stack / total;
  return out;
}

TailShares::TailShare LevelAccounts::share_of_tail(const std::vector<size_t>& devices,
                                                   double fraction) const {
  if (outer_latency_.count() == 0) return {};
  return share_over(tail_begin(fraction), tail_.end(), devices);
}

}  // namespace iotap::engine
