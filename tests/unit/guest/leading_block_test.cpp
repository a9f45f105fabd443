// The guest's kallsyms arrives framed ahead of the run's output on one port.
#include "leading_block.h"

#include <gtest/gtest.h>

namespace iotap::guest {
namespace {

struct Collected {
  std::vector<std::string> blocks;
  std::string rest;
};

LeadingBlock collector(Collected& out, const std::string& tag = "iotap-kallsyms") {
  return LeadingBlock(
      tag, [&out](std::string block) { out.blocks.push_back(std::move(block)); },
      [&out](std::string_view bytes) { out.rest += bytes; });
}

TEST(LeadingBlock, SplitsTheBlockFromTheStreamWhateverTheReadSizes) {
  const std::string stream = "iotap-kallsyms 10\n0123456789begin\nline\n";
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    Collected out;
    auto splitter = collector(out);
    for (size_t at = 0; at < stream.size(); at += chunk) splitter.feed(stream.substr(at, chunk));
    splitter.finish();
    ASSERT_EQ(out.blocks.size(), 1U) << "chunk " << chunk;
    EXPECT_EQ(out.blocks[0], "0123456789");
    EXPECT_EQ(out.rest, "begin\nline\n");
  }
}

TEST(LeadingBlock, AStreamWithoutTheBlockPassesThrough) {
  Collected out;
  auto splitter = collector(out);
  splitter.feed("iot");
  splitter.feed("ap run\n");
  splitter.finish();
  EXPECT_TRUE(out.blocks.empty());
  EXPECT_EQ(out.rest, "iotap run\n");
}

TEST(LeadingBlock, NoTagMeansNoBlock) {
  Collected out;
  auto splitter = collector(out, "");
  splitter.feed(" 3\nabc");
  EXPECT_TRUE(out.blocks.empty());
  EXPECT_EQ(out.rest, " 3\nabc");
}

TEST(LeadingBlock, AStreamCutShortGivesBackWhatItHeld) {
  Collected out;
  auto splitter = collector(out);
  splitter.feed("iotap-kallsyms 100\nabc");
  splitter.finish();
  EXPECT_TRUE(out.blocks.empty());
  EXPECT_EQ(out.rest, "abc");
}

}  // namespace
}  // namespace iotap::guest
