#include "attribution.h"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <utility>

namespace iotap::engine {
namespace {

constexpr std::array<char, 3> kOps = {'R', 'W', 'F'};
constexpr std::array<const char*, 3> kOpNames = {"read", "write", "flush"};

size_t kind_of(char op) {
  return op == 'W' ? 1 : (op == 'F' ? 2 : 0);
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
  Kind& kind = kinds_[kind_of(request.op)];
  latency_.add(latency);
  kind.latency.add(latency);
  if (result < 0) {
    ++errors_;
    ++kind.errors;
  }

  // The root that completed last carries the request. Roots still in flight (readahead the
  // call did not wait for) are not what it waited on.
  uint32_t root = kNoNode;
  for (const uint32_t candidate : request.roots) {
    const BioNode& node = pool_[candidate];
    if (node.has(BioNode::in_flight)) continue;
    if (root == kNoNode || node.end > pool_[root].end) root = candidate;
  }
  if (root == kNoNode) {
    // No bio of its own completed: served from the page cache, or buffered for writeback (or
    // its bios were lost, which the loss line counts). Its time was not spent below.
    ++without_block_io_;
    ++kind.without_block_io;
    return;
  }
  io_latency_.add(latency);
  total_ns_ += static_cast<double>(latency);

  std::vector<Charge> charges;
  std::vector<uint32_t> path;
  {
    const BioNode& top = pool_[root];
    const uint64_t submit = std::clamp(top.start, request.start, std::max(end, request.start));
    charges.push_back({LayerId::before_submit, kNoDevice, submit - request.start});
    path = chain(root);
    // Each bio's time is taken inside its parent's (and the root's inside the request's): a
    // time outside is not the request's (a stream cut or reordered can show one), and the
    // pieces then add up to the request's latency exactly.
    const uint64_t stop = std::max(end, submit);
    const auto clipped = [](const BioNode& node, uint64_t low, uint64_t high) {
      const uint64_t a = std::clamp(node.start, low, high);
      return std::pair{a, std::clamp(node.end, a, high)};
    };
    auto [low, high] = clipped(top, submit, stop);
    const uint64_t root_end = high;
    for (size_t i = 0; i < path.size(); ++i) {
      const BioNode& node = pool_[path[i]];
      uint64_t own = high - low;
      std::pair<uint64_t, uint64_t> child{low, low};
      if (i + 1 < path.size()) {
        child = clipped(pool_[path[i + 1]], low, high);
        own -= child.second - child.first;
      }
      if (node.device != kNoDevice)
        charges.push_back({stack_[node.device].layer, node.device, own});
      std::tie(low, high) = child;
    }
    charges.push_back({LayerId::completion, kNoDevice, stop - root_end});
  }

  Tail& tail = tail_[Histogram::bucket_of(latency)];
  ++tail.requests;
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
  w.call = request.syscall >= 0 ? std::string(kSyscalls[static_cast<size_t>(request.syscall)].name)
                                : "read";
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
  static_assert(kOps.size() == kOpNames.size());
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
  TailShare out;
  if (io_latency_.count() == 0) return out;
  const size_t first = Histogram::bucket_of(io_latency_.percentile(1 - fraction));
  double total = 0;
  double charged = 0;
  for (auto it = tail_.lower_bound(first); it != tail_.end(); ++it) {
    out.requests += it->second.requests;
    total += it->second.latency_ns;
    for (const size_t device : devices)
      if (device < it->second.device_ns.size()) charged += it->second.device_ns[device];
  }
  out.share = total == 0 ? 0 : charged / total;
  return out;
}

}  // namespace iotap::engine
