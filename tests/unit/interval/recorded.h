#pragma once
// The recorded guest runs these tests read (tests/unit/data/): `iotap iotime` and `iotap top`
// with --interval 250ms on raid0(ram*7, delay(ram, 50ms)), block_hasher -b 1048576 -t 8 -n 64
// --direct, as stdout showed them (the script's tables with block_hasher's own lines between).
#include <string>
#include <vector>

#include "iotap/guest/vm_runner.h"
#include "iotap/interval/table_blocks.h"

namespace iotap::interval::test {

std::string recorded(const std::string& name);

struct ReadBack {
  std::vector<TableBlock> blocks;
  std::string other;  // every line that is not part of a table
};

// `text` fed to a TableBlockReader `piece` bytes at a time.
ReadBack read_blocks(const std::string& text, size_t piece);

// The stack the guest reported for raid0(ram*7, delay(ram, 50ms)).
std::vector<StackDevice> incident_stack();

}  // namespace iotap::interval::test
