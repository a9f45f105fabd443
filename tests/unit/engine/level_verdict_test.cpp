// With a provider's levels the verdict speaks of the outermost unit: a slow member's share is
// of the slowest tenth of queries' whole time, not of the reads inside them.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

Options queries() {
  Options options;
  options.levels = {{"query", "queries"}, {"smgr_read", "smgr reads"}};
  options.slowest = 3;
  return options;
}

// 20 queries, one after another on one thread: 1 ms of CPU, an smgr read whose pread goes to
// ram(member) taking `member_us` there (pread: 40 us + member_us), 1 ms more of CPU.
Stream twenty_queries(uint32_t slow_member, uint64_t slow_us) {
  Stream s;
  const int tid = 500;
  uint64_t t = 0;
  for (uint32_t i = 0; i < 20; ++i) {
    const uint32_t member = i % 2;
    const uint64_t d = (member == slow_member ? slow_us : 20) * kUs;
    const uint64_t bio = 0x1000 + 0x10 * i;
    s.pb(t, 0, tid, 0, 0, '-');
    t += kMs;
    s.pb(t, 0, tid, 1, 0, 'R', 16384, 0, 8192)
        .ss(t, 0, tid, "pread64", kMd0, 0, 8192)
        .q(t + 10 * kUs, 0, tid, bio, kMd0, member == 0 ? 0 : 1024, 8192)
        .m(t + 12 * kUs, 0, tid, bio + 1, ram(member), 4096, 8192, kMd0, member == 0 ? 0 : 1024)
        .q(t + 13 * kUs, 0, tid, bio + 1, ram(member), 4096, 8192)
        .c(t + 13 * kUs + d, 0, 0, bio + 1)
        .c(t + 20 * kUs + d, 0, 0, bio)
        .sd(t + 40 * kUs + d, 0, tid, 8192)
        .pe(t + 40 * kUs + d, 0, tid, 1, 0, 8192);
    t += 40 * kUs + d + kMs;
    s.pe(t, 0, tid, 0, 0, 0);
    t += 100 * kUs;
  }
  return s;
}

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
