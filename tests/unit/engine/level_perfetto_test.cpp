// --perfetto with a provider's levels: a query's slice encloses its buffer read's, which
// encloses its smgr read's and that its pread's, on the thread's track; the flows from the pread
// still reach the member disk's bio (Perfetto binds them to the innermost slice).
#include <gtest/gtest.h>

#include <string>

#include "iotap/report/perfetto.h"
#include "perfetto_timeline.h"
#include "stream.h"

namespace iotap::engine::testing {
namespace {

TEST(LevelPerfetto, AQuerysSliceNestsOverItsReadsWithFlowsDownToTheBios) {
  Stream s;
  const int tid = 300;
  s.pb(0, 0, tid, 0, 0, '-').pt(0, 0, tid, 0, 0, "SELECT * FROM t");
  s.pb(100 * kUs, 0, tid, 1, 0, 'R', 16384, 0, 8192)
      .pb(110 * kUs, 0, tid, 2, 0, 'R', 16384, 0, 8192);
  s.ss(120 * kUs, 0, tid, "pread64", kMd0, 0, 8192)
      .q(130 * kUs, 0, tid, 0xa0, kMd0, 0, 8192)
      .m(132 * kUs, 0, tid, 0xa1, ram(0), 4096, 8192, kMd0, 0)
      .q(133 * kUs, 0, tid, 0xa1, ram(0), 4096, 8192)
      .c(153 * kUs, 0, 0, 0xa1)
      .c(160 * kUs, 0, 0, 0xa0)
      .sd(180 * kUs, 0, tid, 8192);
  s.pe(190 * kUs, 0, tid, 2, 0, 8192).pe(200 * kUs, 0, tid, 1, 0, 0).pe(1000 * kUs, 0, tid, 0, 0);

  std::string text;
  report::PerfettoTrace trace([&text](std::string_view piece) { text += piece; }, "postgres");
  trace.set_stack(raid0(2));
  uint64_t pread = 0;
  Options options;
  options.requests = RequestSource::syscall;
  options.levels = {
      {"query", "queries"}, {"buffer_read", "buffer reads"}, {"smgr_read", "smgr reads"}};
  options.finished_request = [&](const FinishedRequest& r) {
    pread = r.id;
    trace.add(r);
  };
  options.finished_bio = [&](const FinishedBio& b) { trace.add(b); };
  options.finished_level_request = [&](const FinishedLevelRequest& r) { trace.add(r); };
  run(raid0(2), s.text(), options);

  trace.finish();
  const test::Timeline timeline = test::read_timeline(text);
  EXPECT_EQ(timeline.problems, std::vector<std::string>{});
  std::vector<const test::Slice*> levels;
  for (const auto& slice : timeline.slices)
    if (slice.args.contains("level")) levels.push_back(&slice);
  ASSERT_EQ(levels.size(), 3U);
  // Written as they end, innermost first: the viewers nest slices by their times.
  EXPECT_EQ(levels[0]->args["level"], "smgr_read");
  EXPECT_EQ(levels[2]->args["level"], "query");
  EXPECT_EQ(levels[2]->args["text"], "SELECT * FROM t");
  EXPECT_LT(levels[2]->ts, levels[1]->ts);
  EXPECT_LT(levels[1]->ts, levels[0]->ts);
  ASSERT_TRUE(timeline.requests.contains(pread));
  const test::Slice& call = timeline.slices[timeline.requests.at(pread)];
  for (const test::Slice* level : levels) {
    EXPECT_EQ(level->tid, call.tid);
    EXPECT_LE(level->ts, call.ts);
    EXPECT_GE(level->ts + level->dur, call.ts + call.dur);
  }
  const test::Reached reached = test::follow_request(timeline, pread, {"ram0", "ram1"});
  EXPECT_EQ(reached.member_bytes, 8192U);
}

}  // namespace
}  // namespace iotap::engine::testing
