#pragma once
// One table of examples/top.stp (submits per device, USDT hits per probe), read back, and as a
// JSON line of `iotap top --json`.
#include <cstdint>
#include <string>
#include <vector>

#include "iotap/interval/table_blocks.h"
#include "iotap/stack.h"
#include "iotap/stack/stack_json.h"

namespace iotap::interval {

struct TopDeviceRow {
  std::string device;
  uint64_t submits = 0;
  uint64_t submits_per_second = 0;
  uint64_t kib_per_second = 0;
};

struct TopProbeRow {
  std::string probe;
  uint64_t hits = 0;
  uint64_t hits_per_second = 0;
};

struct TopTable {
  std::vector<TopDeviceRow> devices;
  std::vector<TopProbeRow> probes;
};

// The rows under a "device ..." and a "probe ..." column header; other lines are skipped.
TopTable parse_top_table(const std::vector<std::string>& lines);

// block_head_json's fields, then "devices": [{"name", "spec", "parent", "submits",
// "submits_per_s", "kib_per_s"}] and "probes": [{"name", "hits", "hits_per_s"}].
Json top_json(const TableBlock& block, const std::vector<StackDevice>& stack);

}  // namespace iotap::interval
