// Text and JSON output from a RunResult built by hand: the JSON's exact text, and read back with
// nlohmann::json it carries every field and survives a device path that needs escaping.
#include "report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "json_count.h"

namespace block_hasher {
namespace {

using block_hasher_test::count;

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
  result.bytes = std::uint64_t{16} * 1048576;
  result.errors = 1;
  result.seconds = 2;
  for (int i = 0; i < 2; ++i) {
    ThreadResult thread;
    thread.index = i;
    thread.tid = 1000 + i;
    thread.blocks = 8;
    thread.bytes = std::uint64_t{8} * 1048576;
    thread.errors = static_cast<std::uint64_t>(i);
    thread.seconds = 0.5;
    // A new string moved in, not a literal assigned: GCC 12 at -O3 (Release) calls the literal's
    // copy into the small-string buffer a read of uninitialized bytes (-Wmaybe-uninitialized).
    thread.digest = std::string(2, i == 0 ? 'a' : 'b');
    result.threads.push_back(thread);
  }
  return result;
}

// The exact text: keys in the documented order, counts as integers, times to 6 decimals and
// rates to 3 (trailing zeros dropped), the device's quotes, backslashes and control characters
// escaped.
TEST(BlockHasherReport, JsonTextIsCompactAndOrdered) {
  RunResult result = sample_result();
  result.seconds = 1.23456789;  // 16 MiB in it: 12.9600001... MiB/s
  EXPECT_EQ(format_json(sample_options("/dev/a\"b\\c\td\x01"), result),
            "{\"device\":\"/dev/a\\\"b\\\\c\\td\\u0001\",\"block_size\":1048576,\"threads\":2,"
            "\"blocks\":16,\"requested_blocks\":17,\"bytes\":16777216,\"hash\":\"sha1\","
            "\"direct\":false,\"seconds\":1.234568,\"mb_per_s\":12.96,\"errors\":1,\"per_thread\":["
            "{\"thread\":0,\"tid\":1000,\"blocks\":8,\"bytes\":8388608,\"seconds\":0.5,"
            "\"mb_per_s\":16.0,\"errors\":0,\"digest\":\"aa\"},"
            "{\"thread\":1,\"tid\":1001,\"blocks\":8,\"bytes\":8388608,\"seconds\":0.5,"
            "\"mb_per_s\":16.0,\"errors\":1,\"digest\":\"bb\"}]}\n");
}

// A path is any bytes: those that are not UTF-8 become U+FFFD, and the output stays JSON.
TEST(BlockHasherReport, DeviceBytesThatAreNotUtf8AreReplaced) {
  const nlohmann::json json =
      nlohmann::json::parse(format_json(sample_options("/dev/x\xffy"), sample_result()));
  EXPECT_EQ(json.at("device").get<std::string>(), "/dev/x\xef\xbf\xbdy");
}

TEST(BlockHasherReport, JsonHasTheDocumentedShape) {
  const std::string device = "/dev/we\"ird\\na\tme\x02";
  const nlohmann::json json =
      nlohmann::json::parse(format_json(sample_options(device), sample_result()));
  EXPECT_EQ(json.at("device").get<std::string>(), device);
  EXPECT_EQ(count(json.at("block_size")), 1048576U);
  EXPECT_EQ(count(json.at("threads")), 2U);
  EXPECT_EQ(count(json.at("blocks")), 16U);
  EXPECT_EQ(count(json.at("requested_blocks")), 17U);
  EXPECT_EQ(count(json.at("bytes")), 16U * 1048576U);
  EXPECT_EQ(json.at("hash").get<std::string>(), "sha1");
  EXPECT_TRUE(json.at("direct").is_boolean());
  EXPECT_FALSE(json.at("direct").get<bool>());
  EXPECT_DOUBLE_EQ(json.at("seconds").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(json.at("mb_per_s").get<double>(), 8.0);  // 16 MiB in 2 s
  EXPECT_EQ(count(json.at("errors")), 1U);
  const nlohmann::json& threads = json.at("per_thread");
  ASSERT_EQ(threads.size(), 2U);
  EXPECT_EQ(count(threads.at(1).at("thread")), 1U);
  EXPECT_EQ(count(threads.at(1).at("tid")), 1001U);
  EXPECT_EQ(count(threads.at(1).at("blocks")), 8U);
  EXPECT_EQ(count(threads.at(1).at("bytes")), 8U * 1048576U);
  EXPECT_DOUBLE_EQ(threads.at(1).at("seconds").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(threads.at(1).at("mb_per_s").get<double>(), 16.0);
  EXPECT_EQ(count(threads.at(1).at("errors")), 1U);
  EXPECT_EQ(threads.at(1).at("digest").get<std::string>(), "bb");
}

TEST(BlockHasherReport, ZeroSecondsGivesZeroRateNotInfinity) {
  RunResult result = sample_result();
  result.seconds = 0;
  const nlohmann::json json = nlohmann::json::parse(format_json(sample_options("d"), result));
  EXPECT_EQ(json.at("mb_per_s").get<double>(), 0.0);
  EXPECT_EQ(mib_per_second(100, 0), 0.0);
}

TEST(BlockHasherReport, TextHasALinePerThreadAndATotal) {
  const std::string text = format_text(sample_options("/dev/md0"), sample_result());
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3U) << text;
  EXPECT_EQ(lines[0], "thread 0: 8 blocks, 8.0 MiB in 0.500 s, 16.0 MiB/s, 0 errors, sha1 aa");
  EXPECT_EQ(lines[1], "thread 1: 8 blocks, 8.0 MiB in 0.500 s, 16.0 MiB/s, 1 errors, sha1 bb");
  EXPECT_EQ(lines[2].rfind("total: 16 blocks, 16.0 MiB in 2.000 s, 8.0 MiB/s, 1 errors", 0), 0U)
      << lines[2];
}

}  // namespace
}  // namespace block_hasher
