// stap -t's probe hit report taken out of a script's output (stap/hit_report.h): what comes
// before it passes on unchanged however the reads cut it, and the hits are the probe lines'.
#include "iotap/stap/hit_report.h"

#include <gtest/gtest.h>

#include <string>

namespace iotap::stap {
namespace {

// As stap 4.8's module prints it at exit (translate.cxx, STP_TIMING): the probe lines, then
// the refresh report, whose "hits" are map refreshes, not probe hits.
const std::string kReport =
    "----- probe hit report: \n"
    "process(\"/usr/bin/block_hasher\").mark(\"read_start\"), (/tmp/iotap-run/s.stp:2:1), "
    "hits: 64, cycles: 1210min/3307avg/60012max, variance: 10291, from: "
    "block_hasher.read_start from: process(\"/usr/bin/block_hasher\").mark(\"read_start\"), "
    "index: 0\n"
    "end, (/tmp/iotap-run/s.stp:3:1), hits: 1, cycles: 9021min/9021avg/9021max, variance: 0, "
    "from: end, index: 1\n"
    "----- refresh report:\n"
    "hits: 12, cycles: 100min/200avg/300max, variance: 5\n";

TEST(HitReport, PassesTheOutputBeforeItOnAndCountsTheProbesHits) {
  const std::string output = "started\nread 64 blocks\n";
  const std::string whole = output + kReport;
  // Every way of cutting the stream in two reads.
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    std::string passed;
    HitReport report([&passed](std::string_view bytes) { passed += bytes; });
    report.feed(std::string_view(whole).substr(0, cut));
    report.feed(std::string_view(whole).substr(cut));
    report.finish();
    ASSERT_EQ(passed, output) << "cut at " << cut;
    ASSERT_EQ(report.hits(), 65U) << "cut at " << cut;
  }
}

TEST(HitReport, ALineIsPassedOnAtOnceUnlessItCouldStillBeTheReport) {
  std::string passed;
  HitReport report([&passed](std::string_view bytes) { passed += bytes; });
  report.feed("a whole line\n");
  EXPECT_EQ(passed, "a whole line\n");
  report.feed("partial, not the report");
  EXPECT_EQ(passed, "a whole line\npartial, not the report");
  report.feed("\n----- probe");
  EXPECT_EQ(passed, "a whole line\npartial, not the report\n");
  report.feed(" hit lines of a script's own\n");
  EXPECT_EQ(passed,
            "a whole line\npartial, not the report\n----- probe hit lines of a script's own\n");
  EXPECT_FALSE(report.hits().has_value());
}

TEST(HitReport, AStreamWithoutTheReportHasNoHitsAndLosesNothing) {
  std::string passed;
  HitReport report([&passed](std::string_view bytes) { passed += bytes; });
  report.feed("stopped before the module's end\n----- probe hit rep");
  report.finish();
  EXPECT_EQ(passed, "stopped before the module's end\n----- probe hit rep");
  EXPECT_FALSE(report.hits().has_value());
}

}  // namespace
}  // namespace iotap::stap
