#include "verbs/json.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace iotap {

Json parent_json(const StackDevice& device) {
  return device.parent.empty() ? Json(nullptr) : Json(device.parent);
}

std::string to_text(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
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
    }
    if (!device.dm_table.empty()) entry["dm_table"] = device.dm_table;
    out.push_back(entry);
  }
  return out;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> escaped{};
          std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
          out += escaped.data();
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace iotap
