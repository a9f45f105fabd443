#include "attribution.h"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <utility>

namespace iotap::engine {
namespace {

// kinds_'s order: a request's op (R, W, F) and its name in the report.
constexpr std::array<char, 3> kOps = {'R', 'W', 'F'};
constexpr std::array<const char*, 3> kOpNames = {"read", "write", "flush"};

size_t kind_of(char op) {
  const auto* it = std::find(kOps.begin(), kOps.end(), op);
  return it == kOps.end() ? 0 : static_cast<size_t>(it - kOps.begin());
}

// Slower first; among equals, the earlier read.
bool slower(const Waterfall& a, const Waterfall& b) {
  if (a.latency_ns != b.latency_ns) return a.latency_ns > b.latency_ns;
  return a.request_id < b.request_id;
}

}  // namespace

std::vector<uint32_t> Attribution::chain(uint32_t root) const {
  std::vector<uint32_t> path;
  for (uint32_t node = root; node != kNoNode; node = pool_[node].critical) {
    if (path.size() > 64) break;  // deeper than any stack: a cycle would be a bug
    path.push_back(node);
  }
  return path;
}

std::vector<Attribution::Segment> Attribution::critical_roots(const Request& request,
                                                              uint64_t end) const {
  // Roots still in flight (readahead the call did not wait for) are not what it waited on.
  std::vector<uint32_t> done;
  for (const uint32_t root : request.roots)
    if (!pool_[root].has(BioNode::in_flight)) done.push_back(root);
  std::sort(done.begin(), done.end(),
            [this](uint32_t a, uint32_t b) { return pool_[a].end > pool_[b].end; });
  // Backwards from the end: the root that completed last carries the request back to its
  // start; before that, the root that completed last before it; and so on. An fsync's writes,
  // then its flush, are each charged their own stretch.
  std::vector<Segment> segments;
  uint64_t cursor = std::max(end, request.start);
  for (const uint32_t root : done) {
    const BioNode& node = pool_[root];
    const uint64_t low = std::clamp(node.start, request.start, cursor);
    if (low >= cursor && !segments.empty()) continue;
    segments.push_back({root, low, std::clamp(node.end, low, cursor), chain(root)});
    cursor = low;
  }
  std::reverse(segments.begin(), segments.end());
  return segments;
}

// Each bio's time is taken inside its parent's (and the root's inside its segment): a time
// outside is not the request's (a stream cut or reordered can show one).
void Attribution::charge_path(const Segment& segment, std::vector<Charge>& charges) const {
  const auto clipped = [](const BioNode& node, uint64_t low, uint64_t high) {
    const uint64_t a = std::clamp(node.start, low, high);
    return std::pair{a, std::clamp(node.end, a, high)};
  };
  uint64_t low = segment.low;
  uint64_t high = segment.high;
  const auto& path = segment.path;
  for (size_t i = 0; i < path.size(); ++i) {
    const BioNode& node = pool_[path[i]];
    uint64_t own = high - low;
    std::pair<uint64_t, uint64_t> child{low, low};
    if (i + 1 < path.size()) {
      child = clipped(pool_[path[i + 1]], low, high);
      own -= child.second - child.first;
    }
    if (node.device != kNoDevice) charges.push_back({stack_[node.device].layer, node.device, own});
    std::tie(low, high) = child;
  }
}

LeafOutcome Attribution::finish(const Request& request, uint64_t end, int64_t result) {
  const uint64_t latency = end > request.start ? end - request.start : 0;
  LeafOutcome outcome;
  outcome.latency_ns = latency;
  Kind& kind = kinds_[kind_of(request.op)];
  latency_.add(latency);
  kind.latency.add(latency);
  if (result < 0) {
    ++errors_;
    ++kind.errors;
  }

  const std::vector<Segment> segments = critical_roots(request, end);
  if (segments.empty()) {
    // No bio of its own completed: served from the page cache, or buffered for writeback (or
    // its bios were lost, which the loss line counts). Its time was not spent below.
    ++without_block_io_;
    ++kind.without_block_io;
    return outcome;
  }
  outcome.reached_stack = true;
  io_latency_.add(latency);
  total_ns_ += static_cast<double>(latency);

  // Between the segments, and before the first, the thread was not waiting on a bio of its
  // own: before submit. After the last: completion back up. The pieces add up to the latency.
  std::vector<Charge> charges;
  uint64_t at = request.start;
  for (const Segment& segment : segments) {
    charges.push_back({LayerId::before_submit, kNoDevice, segment.low - at});
    charge_path(segment, charges);
    at = segment.high;
  }
  charges.push_back({LayerId::completion, kNoDevice, std::max(end, at) - at});

  Tail& tail = tail_[Histogram::bucket_of(latency)];
  ++tail.requests;
  tail.latency_ns += static_cast<double>(latency);
  for (const Charge& charge : charges) {
    layer_ns_[static_cast<size_t>(charge.layer)] += static_cast<double>(charge.ns);
    if (charge.device == kNoDevice) continue;
    if (charge.device >= tail.device_ns.size()) tail.device_ns.resize(stack_.size());
    tail.device_ns[charge.device] += static_cast<double>(charge.ns);
    outcome.device_ns.emplace_back(charge.device, charge.ns);
  }

  if (slowest_ == 0) return outcome;
  if (heap_.size() == slowest_ && latency <= heap_.front().latency_ns) return outcome;
  heap_.push_back(waterfall(request, end, result, segments));
  std::push_heap(heap_.begin(), heap_.end(), slower);
  if (heap_.size() > slowest_) {
    std::pop_heap(heap_.begin(), heap_.end(), slower);
    heap_.pop_back();
  }
  return outcome;
}

Waterfall Attribution::waterfall_of(const Request& request, uint64_t end, int64_t result) const {
  return waterfall(request, end, result, critical_roots(request, end));
}

Waterfall Attribution::waterfall(const Request& request, uint64_t end, int64_t result,
                                 const std::vector<Segment>& segments) const {
  Waterfall w;
  w.request_id = request.id;
  w.thread = request.thread;
  w.offset = request.offset;
  w.size = request.size;
  w.result = result;
  w.start_ns = request.start;
  w.latency_ns = end > request.start ? end - request.start : 0;
  w.call = std::string(call_name(request));
  uint64_t at = request.start;
  std::vector<uint32_t> last_devices;  // the path of the previous segment, one entry per device
  size_t group = 0;                    // where the stages of that path begin in w.stages
  for (const Segment& segment : segments) {
    // One stage per device on the path: a split part is its bio's stage.
    std::vector<uint32_t> devices;
    std::vector<const BioNode*> nodes;
    for (const uint32_t index : segment.path) {
      const BioNode& node = pool_[index];
      if (node.device == kNoDevice || (!devices.empty() && devices.back() == node.device)) continue;
      devices.push_back(node.device);
      nodes.push_back(&node);
    }
    if (devices == last_devices && segment.low == at && !devices.empty()) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        Stage& stage = w.stages[group + i];
        stage.end_ns = std::max(stage.end_ns, nodes[i]->end);
        ++stage.bios;
      }
    } else {
      if (segment.low > at || w.stages.empty())
        w.stages.push_back({layer_name(LayerId::before_submit), "", at, segment.low});
      group = w.stages.size();
      for (size_t i = 0; i < nodes.size(); ++i)
        w.stages.push_back({layer_name(stack_[devices[i]].layer), stack_[devices[i]].info.name,
                            nodes[i]->start, nodes[i]->end});
      last_devices = std::move(devices);
    }
    at = segment.high;
  }
  w.stages.push_back({layer_name(LayerId::completion), "", at, std::max(end, at)});
  return w;
}

std::vector<RequestKind> Attribution::kinds() const {
  std::vector<RequestKind> out;
  for (size_t i = 0; i < kinds_.size(); ++i) {
    const Kind& kind = kinds_[i];
    if (kind.latency.count() == 0) continue;
    RequestKind k;
    k.op = kOpNames[i];
    k.count = kind.latency.count();
    k.errors = kind.errors;
    k.without_block_io = kind.without_block_io;
    k.latency = latency_of(kind.latency);
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<Layer> Attribution::layers() const {
  std::vector<Layer> out;
  const auto count = static_cast<double>(io_latency_.count());
  for (size_t i = 0; i < kLayers; ++i) {
    Layer layer;
    layer.name = layer_name(static_cast<LayerId>(i));
    layer.mean_us = count == 0 ? 0 : layer_ns_[i] / count / 1000;
    layer.share = total_ns_ == 0 ? 0 : layer_ns_[i] / total_ns_;
    out.push_back(layer);
  }
  return out;
}

std::vector<Waterfall> Attribution::slowest() const {
  std::vector<Waterfall> out = heap_;
  std::sort(out.begin(), out.end(), slower);
  return out;
}

Attribution::TailShare Attribution::share_of_tail(const std::vector<size_t>& devices,
                                                  double fraction) const {
  if (io_latency_.count() == 0) return {};
  const size_t first = Histogram::bucket_of(io_latency_.percentile(1 - fraction));
  return share_over(tail_.lower_bound(first), tail_.end(), devices);
}

}  // namespace iotap::engine
