#include "iotap/interval/table_blocks.h"

#include <cstdio>
#include <optional>
#include <utility>

namespace iotap::interval {

namespace {

// "interval 3: 0.500 s to 0.750 s" or "whole run: 0.000 s to 1.917 s".
std::optional<TableBlock> parse_label(const std::string& line) {
  TableBlock block;
  int consumed = 0;
  if (std::sscanf(line.c_str(), "interval %u: %lf s to %lf s%n", &block.index, &block.from_seconds,
                  &block.to_seconds, &consumed) == 3 &&
      static_cast<size_t>(consumed) == line.size() && block.index > 0) {
    block.kind = TableBlock::Kind::kInterval;
    return block;
  }
  consumed = 0;
  if (std::sscanf(line.c_str(), "whole run: %lf s to %lf s%n", &block.from_seconds,
                  &block.to_seconds, &consumed) == 2 &&
      static_cast<size_t>(consumed) == line.size()) {
    block.kind = TableBlock::Kind::kWholeRun;
    block.index = 0;
    return block;
  }
  return std::nullopt;
}

}  // namespace

TableBlockReader::TableBlockReader(BlockSink on_block, LineSink on_other_line)
    : on_block_(std::move(on_block)), on_other_line_(std::move(on_other_line)) {}

void TableBlockReader::feed(std::string_view bytes) {
  lines_.feed(bytes, [this](std::string_view line) { take_line(line, true); });
}

void TableBlockReader::finish() {
  lines_.finish([this](std::string_view line) { take_line(line, false); });
  if (in_block_) {
    in_block_ = false;
    on_block_(block_);
  }
}

void TableBlockReader::take_line(std::string_view line_view, bool has_newline) {
  const std::string line(line_view);
  if (in_block_) {
    block_.text += line + "\n";
    if (line.empty()) {
      in_block_ = false;
      on_block_(block_);
    } else {
      block_.lines.push_back(line);
    }
    return;
  }
  if (auto block = parse_label(line)) {
    block_ = std::move(*block);
    block_.text = line + "\n";
    in_block_ = true;
    return;
  }
  on_other_line_(has_newline ? line + "\n" : line);
}

}  // namespace iotap::interval
