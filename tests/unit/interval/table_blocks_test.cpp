#include "iotap/interval/table_blocks.h"

#include <gtest/gtest.h>

#include "recorded.h"

namespace iotap::interval {
namespace {

using test::read_blocks;
using test::recorded;

TEST(TableBlocks, SplitsARecordedRunIntoIntervalsAndTheWholeRun) {
  const auto read = read_blocks(recorded("iotime_interval_incident.txt"), 1 << 20);
  ASSERT_GE(read.blocks.size(), 3U);
  const TableBlock& whole = read.blocks.back();
  EXPECT_EQ(whole.kind, TableBlock::Kind::kWholeRun);
  EXPECT_EQ(whole.from_seconds, 0.0);
  // Intervals are numbered from 1 and follow one another without a gap; the last one ends
  // with the run.
  double end = 0;
  for (size_t i = 0; i + 1 < read.blocks.size(); ++i) {
    const TableBlock& block = read.blocks[i];
    EXPECT_EQ(block.kind, TableBlock::Kind::kInterval);
    EXPECT_EQ(block.index, i + 1);
    EXPECT_EQ(block.from_seconds, end);
    EXPECT_GT(block.to_seconds, block.from_seconds);
    end = block.to_seconds;
  }
  EXPECT_EQ(whole.to_seconds, end);
}

TEST(TableBlocks, PassesTheProgramsOwnLinesOnUntouched) {
  const auto read = read_blocks(recorded("iotime_interval_incident.txt"), 1 << 20);
  // block_hasher -t 8: a line per thread and a total.
  size_t lines = 0;
  for (size_t at = 0; (at = read.other.find('\n', at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 9U) << read.other;
  EXPECT_NE(read.other.find("thread 7: 8 blocks"), std::string::npos);
  EXPECT_EQ(read.other.find("device"), std::string::npos) << "a table line leaked";
  for (const auto& block : read.blocks) {
    for (const auto& line : block.lines) EXPECT_EQ(line.find("thread "), std::string::npos);
  }
}

TEST(TableBlocks, AnyPiecesGiveTheSameTables) {
  const std::string text = recorded("iotime_interval_incident.txt");
  const auto whole = read_blocks(text, text.size());
  for (size_t piece : {1U, 7U, 4096U}) {
    const auto pieces = read_blocks(text, piece);
    ASSERT_EQ(pieces.blocks.size(), whole.blocks.size()) << piece;
    for (size_t i = 0; i < whole.blocks.size(); ++i)
      EXPECT_EQ(pieces.blocks[i].text, whole.blocks[i].text) << piece;
    EXPECT_EQ(pieces.other, whole.other) << piece;
  }
}

TEST(TableBlocks, TheTextOfTheBlocksAndOtherLinesIsTheStream) {
  // Text mode prints block.text and other lines as they come: nothing may be lost or added.
  const std::string text = recorded("iotime_interval_incident.txt");
  std::string again;
  TableBlockReader reader([&](const TableBlock& block) { again += block.text; },
                          [&](std::string_view line) { again += line; });
  reader.feed(text);
  reader.finish();
  EXPECT_EQ(again, text);
}

TEST(TableBlocks, ATableCutShortByTheEndIsStillATable) {
  const auto read = read_blocks("whole run: 0.000 s to 1.500 s\ndevice  rw\n  md0 R 1 1 1", 5);
  ASSERT_EQ(read.blocks.size(), 1U);
  EXPECT_EQ(read.blocks[0].kind, TableBlock::Kind::kWholeRun);
  EXPECT_EQ(read.blocks[0].to_seconds, 1.5);
  EXPECT_EQ(read.blocks[0].lines.size(), 2U);
  EXPECT_TRUE(read.other.empty());
}

TEST(TableBlocks, OnlyAWholeLabelStartsATable) {
  const auto read = read_blocks(
      "interval 2: 0.250 s to\ninterval 0: 0.000 s to 0.250 s\nwhole run: 1 s to 2 s extra\n"
      "my interval 1: 0.000 s to 0.250 s\n",
      3);
  EXPECT_TRUE(read.blocks.empty());
  EXPECT_EQ(read.other,
            "interval 2: 0.250 s to\ninterval 0: 0.000 s to 0.250 s\nwhole run: 1 s to 2 s extra\n"
            "my interval 1: 0.000 s to 0.250 s\n");
}

}  // namespace
}  // namespace iotap::interval
