// A verdict needs data: what the engine and the reports say when a run saw no I/O, or only one
// kind of it (engine::verdict_status), and where the program's own lines go.
#include <gtest/gtest.h>

#include "iotap/report.h"
#include "stream.h"

namespace iotap::engine::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One read of 4096 bytes through md0 to ram0, served in 40 us.
Stream one_read() {
  Stream s;
  s.rs(0, 0, 100, 1, 0, 4096).q(kUs, 0, 100, 0xa0, kMd0, 0, 8);
  s.m(2 * kUs, 0, 100, 0xb0, ram(0), 4096, 8, kMd0, 0).q(3 * kUs, 0, 100, 0xb0, ram(0), 4096, 8);
  s.c(40 * kUs, 0, 100, 0xb0).c(41 * kUs, 0, 100, 0xa0).rd(50 * kUs, 0, 100, 1, 4096);
  return s;
}

TEST(VerdictStatus, NoEventsIsNoIoAndNoHealthyVerdict) {
  Stream s;  // the header only: the program failed before its first read
  const Result result = run(raid0(2), s.text());
  EXPECT_EQ(verdict_status(result), VerdictStatus::no_io);

  const std::string why = "block_hasher exited with status 2; its last line on stderr: oops";
  const std::string text = report::text(result, false, why);
  EXPECT_FALSE(contains(text, "no slow member")) << text;
  EXPECT_TRUE(contains(text,
                       "verdict: none: no I/O seen: no read through the program's USDT "
                       "probes and no block I/O, so nothing to attribute\n  " +
                           why + "\n"))
      << text;

  const auto json = report::json(result, why);
  EXPECT_EQ(json["verdict"]["status"], "no_io");
  EXPECT_TRUE(contains(json["verdict"]["reason"].get<std::string>(), "no I/O seen"));
  EXPECT_TRUE(contains(json["verdict"]["reason"].get<std::string>(), why));
  EXPECT_TRUE(json["verdict"]["slow_members"].empty());
}

TEST(VerdictStatus, ReadsWithoutBlockIo) {
  Stream s;
  s.rs(0, 0, 100, 1, 0, 4096).rd(5 * kUs, 0, 100, 1, 4096);  // from the page cache
  const Result result = run(raid0(2), s.text());
  EXPECT_EQ(verdict_status(result), VerdictStatus::no_block_io);
  const std::string text = report::text(result, false);
  EXPECT_FALSE(contains(text, "no slow member")) << text;
  EXPECT_TRUE(contains(text,
                       "verdict: none: 1 read seen through the program's USDT probes, but "
                       "no block I/O"))
      << text;
  EXPECT_EQ(report::json(result)["verdict"]["status"], "no_block_io");
}

TEST(VerdictStatus, BlockIoWithoutReadsComparesMembersOnBlockIoAlone) {
  Stream s;
  s.q(kUs, 0, 100, 0xb0, ram(0), 4096, 8).c(40 * kUs, 0, 100, 0xb0);  // dd: no USDT probes
  const Result result = run(raid0(2), s.text());
  EXPECT_EQ(verdict_status(result), VerdictStatus::no_requests);
  const std::string text = report::text(result, false);
  EXPECT_TRUE(contains(text, "verdict: no slow member\n")) << text;
  EXPECT_TRUE(contains(text, "note: no read seen through the program's USDT probes")) << text;
  EXPECT_EQ(report::json(result)["verdict"]["status"], "no_requests");
}

TEST(VerdictStatus, ReadsThroughTheStackAreOk) {
  const Result result = run(raid0(2), one_read().text());
  EXPECT_EQ(verdict_status(result), VerdictStatus::ok);
  const std::string text = report::text(result, false, "never shown");
  EXPECT_TRUE(contains(text, "verdict: no slow member\n")) << text;
  EXPECT_FALSE(contains(text, "never shown")) << text;
  const auto json = report::json(result, "never shown");
  EXPECT_EQ(json["verdict"]["status"], "ok");
  EXPECT_TRUE(json["verdict"]["reason"].is_null());
}

TEST(Engine, HandsOnTheProgramsLinesAndNothingElse) {
  Stream s = one_read();
  s.raw("thread 0: 1 blocks");
  s.raw("total: 1 blocks");
  std::vector<std::string> lines;
  Options options;
  options.other_line = [&](std::string_view line) { lines.emplace_back(line); };
  const Result result = run(raid0(2), s.text(), options);
  EXPECT_EQ(lines, (std::vector<std::string>{"thread 0: 1 blocks", "total: 1 blocks"}));
  EXPECT_EQ(result.stream.other_lines, 3U);  // and the header
}

}  // namespace
}  // namespace iotap::engine::testing
