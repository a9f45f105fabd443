// With a provider's levels the verdict speaks of the outermost unit: a slow member's share is
// of the slowest tenth of queries' whole time, not of the reads inside them.
#include <gtest/gtest.h>

#include "query_streams.h"

namespace iotap::engine::testing {
namespace {

TEST(LevelVerdict, TheSlowMembersShareIsOfTheSlowestQueriesWholeTime) {
  const Result r = run(raid0(2), twenty_queries(1, 5000).text(), queries());
  ASSERT_EQ(r.slow_members.size(), 1U);
  const SlowMember& slow = r.slow_members[0];
  EXPECT_EQ(slow.name, "ram1");
  // The slowest tenth is the bucket of the 10 queries that read ram1 (7040 us each), and of
  // their time ram1 carries 5000 us. Over the preads alone it would be 5000 / 5040.
  EXPECT_EQ(slow.slowest_requests, 10U);
  EXPECT_NEAR(slow.share_of_slowest, 5000.0 / 7040, 1e-6);
  EXPECT_EQ(r.slowest_time.requests, 10U);
  EXPECT_NEAR(r.slowest_time.reads_share, 5040.0 / 7040, 1e-6);
  EXPECT_NEAR(r.slowest_time.stack_share, 5040.0 / 7040, 1e-6);
  EXPECT_EQ(r.requests.count, 20U);
}

TEST(LevelVerdict, TheSlowestWaterfallsAreQueriesWithTheirReadsUnderThem) {
  const Result r = run(raid0(2), twenty_queries(1, 5000).text(), queries());
  ASSERT_EQ(r.slowest.size(), 3U);
  for (const Waterfall& w : r.slowest) {
    EXPECT_EQ(w.level, "query");
    EXPECT_EQ(w.latency_ns, 7040 * kUs);
    ASSERT_EQ(w.inner.size(), 1U);
    bool ram1 = false;
    for (const Stage& stage : w.inner[0].stages) ram1 = ram1 || stage.device == "ram1";
    EXPECT_TRUE(ram1);
  }
}

TEST(LevelVerdict, AHealthyArrayNamesNothing) {
  const Result r = run(raid0(2), twenty_queries(1, 20).text(), queries());
  EXPECT_TRUE(r.slow_members.empty());
  EXPECT_EQ(r.levels[0].count, 20U);
}

}  // namespace
}  // namespace iotap::engine::testing
