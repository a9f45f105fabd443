// The reports of a provider's levels: the text names the unit ("queries") and where their time
// went; the JSON (iotap.attribution/3) has `levels`, `slowest_time` and the queries' waterfalls
// with their reads; the schema check reads it, and still reads version 2.
#include <gtest/gtest.h>

#include "iotap/report.h"
#include "iotap/report/attribution_check.h"
#include "iotap/report/html.h"
#include "iotap/util/error.h"
#include "query_streams.h"

namespace iotap::engine::testing {
namespace {

Options queries_without() {
  Options options = queries();
  options.levels.clear();
  return options;
}

Result slow_ram1() {
  return run(raid0(2), twenty_queries(1, 5000).text(), queries());
}

// One query is "the 1 slowest query ... of its time", not "of their time".
TEST(LevelReport, OneSlowestQueryIsSpokenOfInTheSingular) {
  const std::string text = report::text(
      run(raid0(2), queries_in_a_row(1, 0, 5000).text(), queries()), /*with_waterfalls=*/false);
  EXPECT_NE(text.find("the 1 slowest query spent "), std::string::npos) << text;
  EXPECT_NE(text.find("% of its time waiting on reads"), std::string::npos) << text;
  EXPECT_EQ(text.find("of their time"), std::string::npos) << text;
}

TEST(LevelReport, TheTextNamesTheUnitAndWhereTheSlowestQueriesTimeWent) {
  const std::string text = report::text(slow_ram1(), /*with_waterfalls=*/true);
  EXPECT_NE(text.find("queries: 20 queries (postgresql's USDT probes), 0 errors; latency us: "
                      "mean 4550"),
            std::string::npos)
      << text;
  // Half the queries: 1040 of 2060 us on a read that reached the stack; half 5040 of 7040.
  EXPECT_NE(text.find("  query"), std::string::npos) << text;
  EXPECT_NE(text.find("I/O inside them: 20 calls (system calls on the stack)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("71% of the slowest 10% of queries' time (10 queries)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("the 10 slowest queries spent 71.6% of their time waiting on reads (71.6% "
                      "on reads that reached the stack), 99.2% of that on ram1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("slowest queries:\n  query "), std::string::npos) << text;
  EXPECT_NE(text.find("    pread64 at 1000 us (offset 0, 8192 bytes): 5040 us\n"),
            std::string::npos)
      << text;
}

TEST(LevelReport, TheLevelsTableGivesEachLevelsSharesOfItsTime) {
  const std::string text = report::text(slow_ram1(), false);
  // smgr reads: all of their time is their pread's, which reached the stack.
  const size_t row = text.find("  smgr_read");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_NE(line.find("100.0%"), std::string::npos) << line;
}

TEST(LevelReport, TheJsonHasTheLevelsAndTheQueriesWaterfalls) {
  const nlohmann::ordered_json j = report::json(slow_ram1());
  EXPECT_EQ(j["schema"], "iotap.attribution/3");
  EXPECT_EQ(j["requests"]["count"], 20);  // the unit: queries
  ASSERT_EQ(j["levels"].size(), 2U);
  const auto& query = j["levels"][0];
  EXPECT_EQ(query["name"], "query");
  EXPECT_EQ(query["plural"], "queries");
  EXPECT_EQ(query["count"], 20);
  EXPECT_NEAR(query["time_us"]["reads_stack"].get<double>(), 10 * 5040 + 10 * 60, 1e-6);
  EXPECT_NEAR(query["time_us"]["other"].get<double>(), 20 * 2000, 1e-6);
  EXPECT_EQ(query["io"]["reads_stack"], 20);
  EXPECT_EQ(j["slowest_time"]["requests"], 10);
  EXPECT_NEAR(j["slowest_time"]["reads_share"].get<double>(), 5040.0 / 7040, 1e-9);
  // The slow member's share says what it is a share of: the slowest tenth of queries.
  const auto& evidence = j["verdict"]["slow_members"][0]["evidence"];
  EXPECT_EQ(evidence["slowest_of"], "queries");
  EXPECT_EQ(evidence["slowest_fraction"], 0.1);
  EXPECT_EQ(evidence["slowest_requests"], 10);
  ASSERT_EQ(j["slowest"].size(), 3U);
  const auto& w = j["slowest"][0];
  EXPECT_EQ(w["level"], "query");
  EXPECT_EQ(w["io"], 1);
  ASSERT_EQ(w["inner"].size(), 1U);
  EXPECT_EQ(w["inner"][0]["call"], "pread64");
  EXPECT_NEAR(w["inner"][0]["start_us"].get<double>(), 1000, 1e-9);
  EXPECT_FALSE(w["inner"][0]["stages"].empty());
  EXPECT_NO_THROW(report::check_attribution(nlohmann::json(j), "q.json"));
}

TEST(LevelReport, WithoutLevelsTheJsonSaysSoAndVersionTwoIsStillRead) {
  const Options options = queries_without();
  Stream s;
  s.ss(0, 0, 300, "pread64", kMd0, 0, 4096).sd(5 * kUs, 0, 300, 4096);
  nlohmann::json j = report::json(run(raid0(2), s.text(), options));
  EXPECT_TRUE(j["levels"].empty());
  EXPECT_TRUE(j["slowest_time"].is_null());
  EXPECT_NO_THROW(report::check_attribution(j, "new.json"));
  j.erase("levels");
  j.erase("slowest_time");
  j["schema"] = "iotap.attribution/2";
  EXPECT_NO_THROW(report::check_attribution(j, "old.json"));
  j["schema"] = "iotap.attribution/1";
  EXPECT_THROW(report::check_attribution(j, "older.json"), UserError);
}

TEST(LevelReport, TheSchemaCheckNamesABadLevelField) {
  nlohmann::json j = report::json(slow_ram1());
  j["levels"][1]["count"] = -1;
  try {
    report::check_attribution(j, "q.json");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "q.json: levels[1].count: expected a whole number, 0 or more, found -1");
  }
}

TEST(LevelReport, TheHtmlPageShowsTheLevelsAndTheQueriesWithTheirReads) {
  const std::string page = report::html(report::json(slow_ram1()), "pg");
  EXPECT_NE(page.find("<h2>Where the queries' time went</h2>"), std::string::npos);
  EXPECT_NE(page.find("The 10 slowest queries spent 72% of their time waiting on reads"),
            std::string::npos);
  EXPECT_NE(page.find("<td>smgr_read</td><td>20</td>"), std::string::npos);
  EXPECT_NE(page.find("<h2>The slowest queries</h2>"), std::string::npos);
  EXPECT_NE(page.find("pread64 at 1.0 ms"), std::string::npos) << page;
  // Without levels the page is as it was.
  const std::string plain = report::html(report::json(run(raid0(2), "", queries_without())), "x");
  EXPECT_EQ(plain.find("id=\"levels\""), std::string::npos);
}

}  // namespace
}  // namespace iotap::engine::testing
