#include "sorter.h"

namespace iotap::engine {

void Sorter::Ring::grow() {
  std::vector<Event> grown(slots_.empty() ? 16 : slots_.size() * 2);
  for (size_t i = 0; i < size_; ++i) grown[i] = slots_[(head_ + i) & (slots_.size() - 1)];
  slots_.swap(grown);
  head_ = 0;
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

void Sorter::heap_push(Next next) {
  size_t slot = heap_.size();
  heap_.push_back(next);
  while (slot > 0) {
    const size_t parent = (slot - 1) / 2;
    if (!next.before(heap_[parent])) break;
    heap_[slot] = heap_[parent];
    slot = parent;
  }
  heap_[slot] = next;
}

void Sorter::heap_pop() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

void Sorter::heap_replace_top(Next next) {
  heap_.front() = next;
  sift_down(0);
}

void Sorter::sift_down(size_t slot) {
  const Next moving = heap_[slot];
  const size_t size = heap_.size();
  for (;;) {
    size_t child = 2 * slot + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_[child + 1].before(heap_[child])) ++child;
    if (!heap_[child].before(moving)) break;
    heap_[slot] = heap_[child];
    slot = child;
  }
  heap_[slot] = moving;
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
