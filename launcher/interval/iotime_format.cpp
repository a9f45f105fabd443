#include "iotap/interval/iotime_format.h"

#include "block_json.h"
#include "iotap/interval/device_table.h"

namespace iotap::interval {

Json iotime_json(const TableBlock& block, const std::vector<StackDevice>& stack) {
  std::string table;
  for (const auto& line : block.lines) table += line + "\n";
  Json devices = Json::array();
  for (const auto& row : parse_device_table(table)) {
    Json device = device_json(row.device, stack);
    device["rw"] = row.rw;
    device["count"] = row.count;
    device["total_us"] = row.total_us;
    device["avg_us"] = row.avg_us;
    devices.push_back(device);
  }
  Json json = block_head_json(block);
  json["devices"] = devices;
  return json;
}

}  // namespace iotap::interval
