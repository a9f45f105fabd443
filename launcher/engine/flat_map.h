#pragma once
// A map from a 64-bit key (a bio's address, a request's) to a small value, in one array: open
// addressing with linear probing, and deletion by shifting the probe run back (no tombstones),
// so a run of millions of inserts and erases keeps its table as it was. std::unordered_map
// allocated a node per bio and followed two pointers per lookup: its lookups, inserts and
// frees were a sixth of the engine's time (docs/performance.md).
//
// Every key is allowed: the one that marks an empty slot is kept beside the table.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iotap::engine {

template <typename Value>
class FlatMap {
 public:
  [[nodiscard]] size_t size() const { return size_; }

  [[nodiscard]] const Value* find(uint64_t key) const {
    if (key == kEmpty) return has_empty_key_ ? &empty_key_value_ : nullptr;
    if (slots_.empty()) return nullptr;
    for (size_t at = home(key);; at = (at + 1) & mask()) {
      const Slot& slot = slots_[at];
      if (slot.key == key) return &slot.value;
      if (slot.key == kEmpty) return nullptr;
    }
  }
  [[nodiscard]] Value* find(uint64_t key) {
    return const_cast<Value*>(static_cast<const FlatMap&>(*this).find(key));
  }

  // The value for `key`, a default one inserted when there was none.
  Value& operator[](uint64_t key) {
    if (key == kEmpty) {
      if (!has_empty_key_) {
        has_empty_key_ = true;
        empty_key_value_ = Value{};
        ++size_;
      }
      return empty_key_value_;
    }
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (size_t at = home(key);; at = (at + 1) & mask()) {
      Slot& slot = slots_[at];
      if (slot.key == key) return slot.value;
      if (slot.key == kEmpty) {
        slot.key = key;
        slot.value = Value{};
        ++size_;
        return slot.value;
      }
    }
  }

  // Whether `key` was there.
  bool erase(uint64_t key) {
    if (key == kEmpty) {
      if (!has_empty_key_) return false;
      has_empty_key_ = false;
      --size_;
      return true;
    }
    if (slots_.empty()) return false;
    size_t hole = home(key);
    while (slots_[hole].key != key) {
      if (slots_[hole].key == kEmpty) return false;
      hole = (hole + 1) & mask();
    }
    // Each later key of the run whose home is not between the hole and it moves back into the
    // hole, so that every key stays reachable from its home without passing an empty slot.
    for (size_t at = (hole + 1) & mask(); slots_[at].key != kEmpty; at = (at + 1) & mask()) {
      const size_t from_home = (at - home(slots_[at].key)) & mask();
      if (from_home >= ((at - hole) & mask())) {
        slots_[hole] = slots_[at];
        hole = at;
      }
    }
    slots_[hole].key = kEmpty;
    --size_;
    return true;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key = kEmpty;
    Value value{};
  };

  [[nodiscard]] size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: addresses share their low bits (alignment), the top bits of the
  // product mix all of them.
  [[nodiscard]] size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const size_t capacity = old.empty() ? 16 : old.size() * 2;
    slots_.resize(capacity);
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
    for (const Slot& slot : old) {
      if (slot.key == kEmpty) continue;
      size_t at = home(slot.key);
      while (slots_[at].key != kEmpty) at = (at + 1) & mask();
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;  // a power of two in size, at most half full
  unsigned shift_ = 60;      // 64 - log2(the table's size), as for the first table (16)
  size_t size_ = 0;
  bool has_empty_key_ = false;
  Value empty_key_value_{};
};

}  // namespace iotap::engine
