#pragma once
// What every JSON line of iotap iotime and iotap top shares: the table's span, and where each
// device sits in the stack the guest built.
#include <string>
#include <vector>

#include "iotap/interval/table_blocks.h"
#include "iotap/stack.h"
#include "iotap/stack/stack_json.h"

namespace iotap::interval {

// {"kind": "interval"|"whole_run", "interval": N|null, "from_s", "to_s"}.
Json block_head_json(const TableBlock& block);

// {"name", "spec", "parent"} for a device by kernel name; spec and parent are null for a device
// outside the stack (the guest's other disks) or when no stack was built.
Json device_json(const std::string& name, const std::vector<StackDevice>& stack);

}  // namespace iotap::interval
