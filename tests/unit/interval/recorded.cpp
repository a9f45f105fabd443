#include "recorded.h"

#include <algorithm>

#include "iotap/util/files.h"

namespace iotap::interval::test {

std::string recorded(const std::string& name) {
  return read_file(std::string(IOTIME_TOP_DATA_DIR) + "/" + name);
}

ReadBack read_blocks(const std::string& text, size_t piece) {
  ReadBack out;
  TableBlockReader reader([&](const TableBlock& block) { out.blocks.push_back(block); },
                          [&](std::string_view line) { out.other += line; });
  for (size_t at = 0; at < text.size(); at += piece)
    reader.feed(std::string_view(text).substr(at, std::min(piece, text.size() - at)));
  reader.finish();
  return out;
}

std::vector<StackDevice> incident_stack() {
  std::vector<StackDevice> stack;
  auto add = [&](const std::string& parent, const std::string& name, const std::string& spec) {
    StackDevice device;
    device.parent = parent;
    device.name = name;
    device.spec = spec;
    stack.push_back(device);
  };
  add("", "md0", "raid0(ram*7,delay(ram,50ms))");
  for (int i = 0; i < 7; ++i) add("md0", "ram" + std::to_string(i), "ram");
  add("md0", "dm-0", "delay(ram,50ms)");
  add("dm-0", "ram7", "ram");
  return stack;
}

}  // namespace iotap::interval::test
