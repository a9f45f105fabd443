#include "iotap/latency/stream_loss.h"

#include <algorithm>

namespace iotap::latency {

bool StreamLoss::take(uint32_t cpu, uint64_t seq) {
  Cpu& numbering = cpus_[cpu];
  if (seq <= numbering.newest) {
    ++repeated_;
    return false;
  }
  numbering.newest = seq;
  ++numbering.taken;
  return true;
}

void StreamLoss::end(uint32_t cpu, uint64_t last_seq) {
  Cpu& numbering = cpus_[cpu];
  numbering.last = std::max(numbering.last, last_seq);
}

uint64_t StreamLoss::lost() const {
  uint64_t lost = 0;
  for (const auto& [cpu, numbering] : cpus_) {
    lost += std::max(numbering.newest, numbering.last) - numbering.taken;
  }
  return lost;
}

}  // namespace iotap::latency
