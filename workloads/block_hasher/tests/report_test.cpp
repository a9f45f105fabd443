// Text and JSON output from a RunResult built by hand: the JSON parses, carries every field,
// and survives a device path full of characters that need escaping.
#include "report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "mini_json.h"

namespace block_hasher {
namespace {

Options sample_options(const std::string& device) {
  Options options;
  options.device = device;
  options.block_size = 1048576;
  options.threads = 2;
  options.hash = HashKind::kSha1;
  return options;
}

RunResult sample_result() {
  RunResult result;
  result.planned_blocks = 17;
  result.blocks = 16;
  result.bytes = 16 * 1048576;
  result.errors = 1;
  result.seconds = 2;
  for (int i = 0; i < 2; ++i) {
    ThreadResult thread;
    thread.index = i;
    thread.tid = 1000 + i;
    thread.blocks = 8;
    thread.bytes = 8 * 1048576;
    thread.errors = static_cast<std::uint64_t>(i);
    thread.seconds = 0.5;
    // A new string moved in, not a literal assigned: GCC 12 at -O3 (Release) calls the literal's
    // copy into the small-string buffer a read of uninitialized bytes (-Wmaybe-uninitialized).
    thread.digest = std::string(2, i == 0 ? 'a' : 'b');
    result.threads.push_back(thread);
  }
  return result;
}

TEST(BlockHasherReport, JsonStringEscapes) {
  EXPECT_EQ(json_string("plain/path"), "\"plain/path\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("t\tn\nr\r"), "\"t\\tn\\nr\\r\"");
  EXPECT_EQ(json_string(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
}

TEST(BlockHasherReport, JsonHasTheDocumentedShape) {
  const std::string device = "/dev/we\"ird\\na\tme\x02";
  const mini_json::Value json =
      mini_json::parse(format_json(sample_options(device), sample_result()));
  EXPECT_EQ(json.at("device").text, device);
  EXPECT_EQ(json.at("block_size").integer(), 1048576u);
  EXPECT_EQ(json.at("threads").integer(), 2u);
  EXPECT_EQ(json.at("blocks").integer(), 16u);
  EXPECT_EQ(json.at("requested_blocks").integer(), 17u);
  EXPECT_EQ(json.at("bytes").integer(), 16u * 1048576u);
  EXPECT_EQ(json.at("hash").text, "sha1");
  EXPECT_EQ(json.at("direct").type, mini_json::Value::Type::kBool);
  EXPECT_FALSE(json.at("direct").boolean);
  EXPECT_DOUBLE_EQ(json.at("seconds").number, 2.0);
  EXPECT_DOUBLE_EQ(json.at("mb_per_s").number, 8.0);  // 16 MiB in 2 s
  EXPECT_EQ(json.at("errors").integer(), 1u);
  const mini_json::Value& threads = json.at("per_thread");
  ASSERT_EQ(threads.items.size(), 2u);
  EXPECT_EQ(threads.at(1).at("thread").integer(), 1u);
  EXPECT_EQ(threads.at(1).at("tid").integer(), 1001u);
  EXPECT_EQ(threads.at(1).at("blocks").integer(), 8u);
  EXPECT_EQ(threads.at(1).at("bytes").integer(), 8u * 1048576u);
  EXPECT_DOUBLE_EQ(threads.at(1).at("seconds").number, 0.5);
  EXPECT_DOUBLE_EQ(threads.at(1).at("mb_per_s").number, 16.0);
  EXPECT_EQ(threads.at(1).at("errors").integer(), 1u);
  EXPECT_EQ(threads.at(1).at("digest").text, "bb");
}

TEST(BlockHasherReport, ZeroSecondsGivesZeroRateNotInfinity) {
  RunResult result = sample_result();
  result.seconds = 0;
  const mini_json::Value json = mini_json::parse(format_json(sample_options("d"), result));
  EXPECT_EQ(json.at("mb_per_s").number, 0.0);
  EXPECT_EQ(mib_per_second(100, 0), 0.0);
}

TEST(BlockHasherReport, TextHasALinePerThreadAndATotal) {
  const std::string text = format_text(sample_options("/dev/md0"), sample_result());
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0], "thread 0: 8 blocks, 8.0 MiB in 0.500 s, 16.0 MiB/s, 0 errors, sha1 aa");
  EXPECT_EQ(lines[1], "thread 1: 8 blocks, 8.0 MiB in 0.500 s, 16.0 MiB/s, 1 errors, sha1 bb");
  EXPECT_EQ(lines[2].rfind("total: 16 blocks, 16.0 MiB in 2.000 s, 8.0 MiB/s, 1 errors", 0), 0u)
      << lines[2];
}

}  // namespace
}  // namespace block_hasher
