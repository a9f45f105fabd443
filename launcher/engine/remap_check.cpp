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
  if (info.md_level == "raid10") {
    check_raid10(event, from);
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
    if (!target.stripes.empty()) {
      check_striped(event, from, target);
      return;
    }
    const uint64_t sector = at - target.start + target.offset;
    ++checked_;
    if (event.dev != target.dev || event.sector != sector)
      mismatch(event, from, where(stack_, target.dev, sector));
    return;
  }
}

void RemapChecker::check_raid10(const Event& event, const Device& from) {
  const StackDevice& info = from.info;
  const uint64_t chunk_sectors = info.chunk_bytes / kSector;
  const auto near_copies = static_cast<uint64_t>(info.md_layout & 0xff);
  const size_t n = from.md_slots.size();
  // Near copies only: a far or offset layout (or one with a slot missing) is left unchecked.
  if (chunk_sectors == 0 || near_copies == 0 || (info.md_layout >> 8) != 1 || n == 0 ||
      n != info.md_members.size())
    return;
  const uint64_t at = event.from_sector;
  const uint64_t chunk = at / chunk_sectors * near_copies;
  size_t slot = chunk % n;
  uint64_t sector = (chunk / n) * chunk_sectors + at % chunk_sectors;
  std::string expected;
  ++checked_;
  for (uint64_t copy = 0; copy < near_copies; ++copy) {
    const uint64_t on_member = sector + info.md_members[slot].second;
    if (event.dev == from.md_slots[slot] && event.sector == on_member) return;
    expected += (expected.empty() ? "" : " or ") + where(stack_, from.md_slots[slot], on_member);
    if (++slot == n) {
      slot = 0;
      sector += chunk_sectors;
    }
  }
  mismatch(event, from, expected);
}

void RemapChecker::check_striped(const Event& event, const Device& from, const DmTarget& target) {
  const uint64_t at = event.from_sector - target.start;
  const uint64_t chunk = at / target.chunk_sectors;
  const auto& [dev, offset] = target.stripes[chunk % target.stripes.size()];
  const uint64_t sector =
      (chunk / target.stripes.size()) * target.chunk_sectors + at % target.chunk_sectors + offset;
  ++checked_;
  if (event.dev != dev || event.sector != sector) mismatch(event, from, where(stack_, dev, sector));
}

void RemapChecker::mismatch(const Event& event, const Device& from, const std::string& expected) {
  ++mismatches_;
  if (examples_.size() >= max_examples_) return;
  examples_.push_back(from.info.name + " sector " + std::to_string(event.from_sector) +
                      " went to " + where(stack_, event.dev, event.sector) + ", expected " +
                      expected);
}

}  // namespace iotap::engine
