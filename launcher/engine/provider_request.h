#pragma once
// One request of a provider's (PB .. PE): a query, a buffer read, an smgr read. It lives on its
// thread's stack of open requests (LevelTracker) and gathers, while open, what the I/O inside
// it cost (the leaf I/O: docs/engine.md): its time split, and for an outermost request the
// time charged to each device and its slowest I/O's waterfalls.
#include <cstdint>
#include <string>
#include <vector>

#include "iotap/engine.h"

namespace iotap::engine {

// Nanoseconds of leaf I/O inside a request, by what the I/O was.
struct SplitNs {
  uint64_t reads_stack = 0, reads_cache = 0, writes = 0;
  [[nodiscard]] uint64_t total() const { return reads_stack + reads_cache + writes; }
};

struct ProviderRequest {
  uint64_t id = 0;  // numbered by the tracker, from 1
  int32_t tid = 0;
  uint32_t level = 0;
  uint64_t key = 0;  // 0: ends by thread
  char op = '-';
  uint64_t file = 0, offset = 0, size = 0;
  uint64_t start = 0;
  std::string text;   // PT, at most kTextBytes
  uint64_t leaf = 0;  // its id in RequestTracker when it is itself the leaf I/O; 0 when not
  SplitNs split;
  uint64_t reads_stack = 0, reads_cache = 0, writes = 0;  // leaf I/O inside it, counted
  // Outermost level only.
  std::vector<double> device_ns;  // by device index
  std::vector<Waterfall> inner;   // a min-heap on latency: its slowest leaf I/O
};

inline constexpr size_t kTextBytes = 200;

}  // namespace iotap::engine
