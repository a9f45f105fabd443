// util/lines.h: lines of a whole text, and of a stream cut anywhere.
#include "iotap/util/lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iotap {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::string_view line) { out.emplace_back(line); });
  return out;
}

using Lines = std::vector<std::string>;

TEST(ForEachLine, EmptyTrailingAndMissingNewlines) {
  EXPECT_EQ(lines_of(""), Lines{});
  EXPECT_EQ(lines_of("\n"), Lines{""});
  EXPECT_EQ(lines_of("a\nb\n"), (Lines{"a", "b"}));
  EXPECT_EQ(lines_of("a\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(lines_of("a\n\nb\n"), (Lines{"a", "", "b"}));
  EXPECT_EQ(lines_of("a\r\n"), Lines{"a\r"});  // a '\r' is the caller's to strip
}

TEST(LineSplitter, LinesStraddlingPiecesAndTheLastWithoutNewline) {
  const std::string text = "first\nsecond line\n\nlast";
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    LineSplitter splitter;
    Lines out;
    const auto take = [&](std::string_view line) { out.emplace_back(line); };
    for (size_t at = 0; at < text.size(); at += piece)
      splitter.feed(std::string_view(text).substr(at, piece), take);
    EXPECT_EQ(out, (Lines{"first", "second line", ""})) << piece;
    splitter.finish(take);
    EXPECT_EQ(out, (Lines{"first", "second line", "", "last"})) << piece;
    splitter.finish(take);  // nothing twice
    EXPECT_EQ(out.size(), 4U);
  }
}

}  // namespace
}  // namespace iotap
