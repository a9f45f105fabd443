#pragma once
// Lines of a per-CPU numbered stream that never arrived. Each CPU numbers its lines from 1 and
// the transport delivers a CPU's lines in order, so on one CPU a number past the next expected
// one skips lost lines, and the CPU's last number (given at the end) counts the lost tail too.
// A number at or before the CPU's newest is a line seen again (the transport handing over
// stale bytes): it is refused, so that an old event is not counted twice.
#include <cstdint>
#include <map>

namespace iotap::latency {

class StreamLoss {
 public:
  // False when the line repeats one already taken: the caller drops it.
  bool take(uint32_t cpu, uint64_t seq);
  // The stream says the CPU's last line was numbered last_seq.
  void end(uint32_t cpu, uint64_t last_seq);

  [[nodiscard]] uint64_t lost() const;
  [[nodiscard]] uint64_t repeated() const { return repeated_; }

 private:
  struct Cpu {
    uint64_t newest = 0;  // the highest number taken
    uint64_t taken = 0;
    uint64_t last = 0;  // from the end line, 0 before it
  };
  std::map<uint32_t, Cpu> cpus_;
  uint64_t repeated_ = 0;
};

}  // namespace iotap::latency
