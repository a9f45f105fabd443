#include "block_json.h"

namespace iotap::interval {

Json block_head_json(const TableBlock& block) {
  const bool interval = block.kind == TableBlock::Kind::kInterval;
  return Json{{"kind", interval ? "interval" : "whole_run"},
              {"interval", interval ? Json(block.index) : Json(nullptr)},
              {"from_s", block.from_seconds},
              {"to_s", block.to_seconds}};
}

Json device_json(const std::string& name, const std::vector<StackDevice>& stack) {
  if (const StackDevice* device = find_device(stack, name))
    return Json{{"name", name}, {"spec", device->spec}, {"parent", parent_json(*device)}};
  return Json{{"name", name}, {"spec", nullptr}, {"parent", nullptr}};
}

}  // namespace iotap::interval
