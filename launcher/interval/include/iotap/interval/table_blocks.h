#pragma once
// The labelled tables that examples/iotime.stp and examples/top.stp print, read back from the
// stream as it arrives. Each table starts with a label line and ends with a blank line:
//   interval 3: 0.500 s to 0.750 s
//   whole run: 0.000 s to 1.917 s
// Every other line on the stream (the traced program's own output) is handed on as it is.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/util/lines.h"

namespace iotap::interval {

struct TableBlock {
  enum class Kind { kInterval, kWholeRun };
  Kind kind = Kind::kInterval;
  unsigned index = 0;       // 1, 2, ... for intervals; 0 for the whole run
  double from_seconds = 0;  // since the script started
  double to_seconds = 0;
  std::vector<std::string> lines;  // below the label, without newlines
  std::string text;                // the label, the lines and the blank line, as printed
};

class TableBlockReader {
 public:
  using BlockSink = std::function<void(const TableBlock&)>;
  using LineSink = std::function<void(std::string_view)>;  // one line, its newline included

  TableBlockReader(BlockSink on_block, LineSink on_other_line);

  // Bytes as they arrive, in any pieces.
  void feed(std::string_view bytes);
  // The stream ended: a table without its blank line is still a table.
  void finish();

 private:
  void take_line(std::string_view line, bool has_newline);

  BlockSink on_block_;
  LineSink on_other_line_;
  LineSplitter lines_;
  bool in_block_ = false;
  TableBlock block_;
};

}  // namespace iotap::interval
