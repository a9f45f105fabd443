#pragma once
// One table of examples/iotime.stp (per device and direction: total us, count, average us) as
// a JSON line of `iotap iotime --json`.
#include <vector>

#include "iotap/interval/table_blocks.h"
#include "iotap/stack.h"
#include "iotap/stack/stack_json.h"

namespace iotap::interval {

// block_head_json's fields, then "devices": [{"name", "spec", "parent", "rw", "count",
// "total_us", "avg_us"}] in the table's order.
Json iotime_json(const TableBlock& block, const std::vector<StackDevice>& stack);

}  // namespace iotap::interval
