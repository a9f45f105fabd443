#include "attribution.h"

#include <algorithm>

namespace iotap::engine {
namespace {

uint64_t overlap(const BioNode& outer, const BioNode& inner) {
  const uint64_t low = std::max(outer.start, inner.start);
  const uint64_t high = std::min(outer.end, inner.end);
  return high > low ? high - low : 0;
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

void Attribution::finish(const Request& request, uint64_t end, int64_t result) {
  const uint64_t latency = end > request.start ? end - request.start : 0;
  latency_.add(latency);
  if (result < 0) ++errors_;
  total_ns_ += static_cast<double>(latency);

  // The root that completed last carries the read.
  uint32_t root = kNoNode;
  for (const uint32_t candidate : request.roots) {
    const BioNode& node = pool_[candidate];
    if (node.has(BioNode::in_flight)) continue;
    if (root == kNoNode || node.end > pool_[root].end) root = candidate;
  }

  std::vector<Charge> charges;
  std::vector<uint32_t> path;
  if (root == kNoNode) {
    // No bio completed for it (a page-cache hit, or its bios were lost): nothing was submitted.
    charges.push_back({LayerId::before_submit, kNoDevice, latency});
  } else {
    const BioNode& top = pool_[root];
    const uint64_t submit = std::clamp(top.start, request.start, std::max(end, request.start));
    charges.push_back({LayerId::before_submit, kNoDevice, submit - request.start});
    path = chain(root);
    for (size_t i = 0; i < path.size(); ++i) {
      const BioNode& node = pool_[path[i]];
      uint64_t own = node.dwell();
      if (i + 1 < path.size()) own -= overlap(node, pool_[path[i + 1]]);
      if (node.device == kNoDevice) continue;
      charges.push_back({stack_[node.device].layer, node.device, own});
    }
    charges.push_back(
        {LayerId::completion, kNoDevice, end > top.end ? end - std::max(top.end, submit) : 0});
  }

  Tail& tail = tail_[Histogram::bucket_of(latency)];
  tail.latency_ns += static_cast<double>(latency);
  for (const Charge& charge : charges) {
    layer_ns_[static_cast<size_t>(charge.layer)] += static_cast<double>(charge.ns);
    if (charge.device == kNoDevice) continue;
    if (charge.device >= tail.device_ns.size()) tail.device_ns.resize(stack_.size());
    tail.device_ns[charge.device] += static_cast<double>(charge.ns);
  }

  if (slowest_ == 0) return;
  if (heap_.size() == slowest_ && latency <= heap_.front().latency_ns) return;
  heap_.push_back(waterfall(request, end, result, root, path));
  std::push_heap(heap_.begin(), heap_.end(), slower);
  if (heap_.size() > slowest_) {
    std::pop_heap(heap_.begin(), heap_.end(), slower);
    heap_.pop_back();
  }
}

Waterfall Attribution::waterfall(const Request& request, uint64_t end, int64_t result,
                                 uint32_t root, const std::vector<uint32_t>& path) const {
  Waterfall w;
  w.request_id = request.id;
  w.thread = request.thread;
  w.offset = request.offset;
  w.size = request.size;
  w.result = result;
  w.start_ns = request.start;
  w.latency_ns = end > request.start ? end - request.start : 0;
  if (root == kNoNode) {
    w.stages.push_back({layer_name(LayerId::before_submit), "", request.start, end});
    return w;
  }
  const BioNode& top = pool_[root];
  w.stages.push_back(
      {layer_name(LayerId::before_submit), "", request.start, std::max(top.start, request.start)});
  // One stage per device on the path: a split part is its bio's stage.
  uint32_t device = kNoDevice;
  for (const uint32_t index : path) {
    const BioNode& node = pool_[index];
    if (node.device == device || node.device == kNoDevice) continue;
    device = node.device;
    w.stages.push_back(
        {layer_name(stack_[device].layer), stack_[device].info.name, node.start, node.end});
  }
  w.stages.push_back({layer_name(LayerId::completion), "", top.end, std::max(end, top.end)});
  return w;
}

std::vector<Layer> Attribution::layers() const {
  std::vector<Layer> out;
  const auto count = static_cast<double>(latency_.count());
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

double Attribution::share_of_tail(const std::vector<size_t>& devices, double q) const {
  if (latency_.count() == 0) return 0;
  const size_t first = Histogram::bucket_of(latency_.percentile(q));
  double total = 0;
  double charged = 0;
  for (auto it = tail_.lower_bound(first); it != tail_.end(); ++it) {
    total += it->second.latency_ns;
    for (const size_t device : devices)
      if (device < it->second.device_ns.size()) charged += it->second.device_ns[device];
  }
  return total == 0 ? 0 : charged / total;
}

}  // namespace iotap::engine
