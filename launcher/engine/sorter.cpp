#include "sorter.h"

#include <algorithm>

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
    cpu.rank = cpus_seen_++;
  }
  return cpu;
}

void Sorter::heap_push(uint32_t number) {
  heap_.push_back(number);
  std::push_heap(heap_.begin(), heap_.end(),
                 [this](uint32_t a, uint32_t b) { return later(a, b); });
}

void Sorter::heap_pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [this](uint32_t a, uint32_t b) { return later(a, b); });
  heap_.pop_back();
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

}  // namespace iotap::engine
