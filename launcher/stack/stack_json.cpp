#include "iotap/stack/stack_json.h"

namespace iotap {

Json parent_json(const StackDevice& device) {
  return device.parent.empty() ? Json(nullptr) : Json(device.parent);
}

Json stack_json(const std::vector<StackDevice>& devices) {
  Json out = Json::array();
  for (const auto& device : devices) {
    Json entry{{"name", device.name},
               {"dev", dev_name(device.dev)},
               {"spec", device.spec},
               {"parent", parent_json(device)}};
    if (!device.md_level.empty()) {
      Json members = Json::array();
      for (const auto& [name, offset] : device.md_members)
        members.push_back({{"name", name}, {"data_offset_sectors", offset}});
      entry["md"] = {
          {"level", device.md_level}, {"chunk_bytes", device.chunk_bytes}, {"members", members}};
      // The levels whose layout says where data goes (raid10's copies, raid5's parity).
      if (device.md_level != "raid0" && device.md_level != "raid1")
        entry["md"]["layout"] = device.md_layout;
    }
    if (!device.dm_table.empty()) entry["dm_table"] = device.dm_table;
    out.push_back(entry);
  }
  return out;
}

}  // namespace iotap
