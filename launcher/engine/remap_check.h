#pragma once
// Checks each remap against the stack's own description: where md raid0, raid1 or raid10 (near
// copies), or a dm linear, delay, flakey or striped target, must have sent the bio. A mismatch
// means the stack as described and the kernel disagree. raid5 is not checked (its parity
// rotates and degraded reads fan out to every member), nor is dm-crypt (it submits its own
// clones without a remap event).
//   raid0 (members of equal size): chunk = from / chunk_sectors; member = chunk % n;
//     sector = (chunk / n) * chunk_sectors + from % chunk_sectors + data_offset
//   raid1: any member; sector = from + that member's data_offset
//   raid10 near copies nc (layout nc | 1 << 8): chunk = (from / chunk_sectors) * nc; the copies
//     are on slots chunk % n, chunk % n + 1, ... (wrapping to slot 0 one chunk further down),
//     sector = (chunk / n) * chunk_sectors + from % chunk_sectors + data_offset
//   dm: the target containing from; sector = from - START + its offset, on its device
//   dm striped: chunk = (from - START) / chunk_sectors; stripe = chunk % n;
//     sector = (chunk / n) * chunk_sectors + (from - START) % chunk_sectors + its offset
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "event.h"
#include "stack.h"

namespace iotap::engine {

class RemapChecker {
 public:
  explicit RemapChecker(Stack& stack, size_t max_examples = 5)
      : stack_(stack), max_examples_(max_examples) {}

  void check(const Event& event);

  [[nodiscard]] uint64_t checked() const { return checked_; }
  [[nodiscard]] uint64_t mismatches() const { return mismatches_; }
  [[nodiscard]] const std::vector<std::string>& examples() const { return examples_; }

 private:
  void check_raid10(const Event& event, const Device& from);
  void check_striped(const Event& event, const Device& from, const DmTarget& target);
  void mismatch(const Event& event, const Device& from, const std::string& expected);

  Stack& stack_;
  size_t max_examples_;
  uint64_t checked_ = 0;
  uint64_t mismatches_ = 0;
  std::vector<std::string> examples_;
};

}  // namespace iotap::engine
