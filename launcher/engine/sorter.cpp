#include "sorter.h"

namespace iotap::engine {

void Sorter::Ring::push(const Event& event) {
  if (size_ == slots_.size()) {
    std::vector<Event> grown(slots_.empty() ? 16 : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) grown[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(grown);
    head_ = 0;
  }
  slots_[(head_ + size_) & (slots_.size() - 1)] = event;
  ++size_;
}

Sorter::Cpu& Sorter::cpu_for(uint32_t number) {
  if (number >= cpus_.size()) cpus_.resize(number + 1);
  Cpu& cpu = cpus_[number];
  if (!cpu.seen) {
    cpu.seen = true;
    active_.push_back(number);
  }
  return cpu;
}

void Sorter::check_sequence(Cpu& cpu, uint64_t seq) {
  const uint64_t expected = cpu.last_seq + 1;
  if (seq > expected) {
    ++stats_.sequence_gaps;
    stats_.events_lost += seq - expected;
  } else if (seq < expected) {
    // A step back: the numbering restarted or lines were repeated. Nothing is known lost.
    ++stats_.sequence_gaps;
  }
  cpu.last_seq = seq;
}

Sorter::Cpu* Sorter::earliest() {
  Cpu* best = nullptr;
  for (const uint32_t number : active_) {
    Cpu& cpu = cpus_[number];
    if (!cpu.queue.empty() && (best == nullptr || cpu.queue.front().ts < best->queue.front().ts))
      best = &cpu;
  }
  return best;
}

}  // namespace iotap::engine
