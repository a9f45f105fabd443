#include "remap_check.h"

namespace iotap::engine {
namespace {

constexpr uint64_t kSector = 512;

std::string where(const Stack& stack, uint32_t dev, uint64_t sector) {
  return stack.name_of(dev) + " sector " + std::to_string(sector);
}

}  // namespace

void RemapChecker::check(const Event& event) {
  const Device& from = stack_[stack_.index_of(event.from_dev)];  // adds nothing below
  if (!from.in_stack) return;
  const StackDevice& info = from.info;
  const uint64_t at = event.from_sector;

  if (info.md_level == "raid0") {
    const uint64_t chunk_sectors = info.chunk_bytes / kSector;
    const size_t n = from.md_slots.size();
    if (chunk_sectors == 0 || n == 0) return;
    const uint64_t chunk = at / chunk_sectors;
    const size_t slot = chunk % n;
    const uint64_t sector =
        (chunk / n) * chunk_sectors + at % chunk_sectors + info.md_members[slot].second;
    ++checked_;
    if (event.dev != from.md_slots[slot] || event.sector != sector)
      mismatch(event, from, where(stack_, from.md_slots[slot], sector));
    return;
  }
  if (info.md_level == "raid1") {
    for (size_t slot = 0; slot < from.md_slots.size(); ++slot) {
      if (from.md_slots[slot] != event.dev) continue;
      const uint64_t sector = at + info.md_members[slot].second;
      ++checked_;
      if (event.sector != sector) mismatch(event, from, where(stack_, event.dev, sector));
      return;
    }
    if (!from.md_slots.empty()) {
      ++checked_;
      mismatch(event, from, "a member of " + info.name);
    }
    return;
  }
  for (const DmTarget& target : from.dm_targets) {
    if (at < target.start || at - target.start >= target.length) continue;
    if (!target.mapped) return;  // a target whose arithmetic is not checked
    const uint64_t sector = at - target.start + target.offset;
    ++checked_;
    if (event.dev != target.dev || event.sector != sector)
      mismatch(event, from, where(stack_, target.dev, sector));
    return;
  }
}

void RemapChecker::mismatch(const Event& event, const Device& from, const std::string& expected) {
  ++mismatches_;
  if (examples_.size() >= max_examples_) return;
  examples_.push_back(from.info.name + " sector " + std::to_string(event.from_sector) +
                      " went to " + where(stack_, event.dev, event.sector) + ", expected " +
                      expected);
}

}  // namespace iotap::engine
