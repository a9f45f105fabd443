// A provider's requests inside requests (PB, PT, PE): the tree per thread, pairing by KEY or by
// thread, the leaf I/O (system calls, or the deepest level without them), and each level's
// time split into reads that reached the stack, reads the page cache served, writes and other.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

Options postgresql() {
  Options options;
  options.request_provider = "postgresql";
  options.levels = {
      {"query", "queries"}, {"buffer_read", "buffer reads"}, {"smgr_read", "smgr reads"}};
  options.slowest = 4;
  return options;
}

Options levels_of(std::vector<RequestLevel> levels) {
  Options options;
  options.levels = std::move(levels);
  options.slowest = 4;
  return options;
}

// A pread64 of 8 KiB through md0 to ram0 at `t`: Q 10, M/Q 12/13, C 33/40, SD 60 (us).
void pread_reaching_ram0(Stream& s, uint64_t t, int tid, uint64_t bio) {
  s.ss(t, 0, tid, "pread64", kMd0, 0, 8192)
      .q(t + 10 * kUs, 0, tid, bio, kMd0, 0, 8192)
      .m(t + 12 * kUs, 0, tid, bio + 1, ram(0), 4096, 8192, kMd0, 0)
      .q(t + 13 * kUs, 0, tid, bio + 1, ram(0), 4096, 8192)
      .c(t + 33 * kUs, 0, 0, bio + 1)
      .c(t + 40 * kUs, 0, 0, bio)
      .sd(t + 60 * kUs, 0, tid, 8192);
}

// One query (0 .. 1000 us) holding a buffer read that missed shared buffers and reached the
// stack (smgr read 110..190, its pread 120..180), one the page cache served (smgr read
// 310..350, its pread 320..345) and a buffered write (400..410).
Stream one_query() {
  Stream s;
  const int tid = 300;
  s.pb(0, 0, tid, 0, 0, '-').pt(0, 0, tid, 0, 0, "SELECT * FROM t WHERE a = 1");
  s.pb(100 * kUs, 0, tid, 1, 0, 'R', 16384, 0, 8192)
      .pb(110 * kUs, 0, tid, 2, 0, 'R', 16384, 0, 8192);
  pread_reaching_ram0(s, 120 * kUs, tid, 0xa0);
  s.pe(190 * kUs, 0, tid, 2, 0, 8192).pe(200 * kUs, 0, tid, 1, 0, 0);
  s.pb(300 * kUs, 0, tid, 1, 0, 'R', 16384, 8192, 8192)
      .pb(310 * kUs, 0, tid, 2, 0, 'R', 16384, 8192, 8192);
  s.ss(320 * kUs, 0, tid, "pread64", kMd0, 8192, 8192, false).sd(345 * kUs, 0, tid, 8192);
  s.pe(350 * kUs, 0, tid, 2, 0, 8192).pe(360 * kUs, 0, tid, 1, 0, 0);
  s.ss(400 * kUs, 0, tid, "pwrite64", kMd0, 0, 8192, false).sd(410 * kUs, 0, tid, 8192);
  s.pe(1000 * kUs, 0, tid, 0, 0, 0);
  return s;
}

TEST(Levels, AQuerysTimeSplitsIntoReadsThatReachedTheStackCacheHitsWritesAndOther) {
  const Result r = run(raid0(2), one_query().text(), postgresql());
  ASSERT_EQ(r.levels.size(), 3U);
  const LevelResult& query = r.levels[0];
  EXPECT_EQ(query.name, "query");
  EXPECT_EQ(query.plural, "queries");
  EXPECT_EQ(query.count, 1U);
  EXPECT_DOUBLE_EQ(query.latency.mean_us, 1000);
  EXPECT_DOUBLE_EQ(query.time.reads_stack_us, 60);
  EXPECT_DOUBLE_EQ(query.time.reads_cache_us, 25);
  EXPECT_DOUBLE_EQ(query.time.writes_us, 10);
  EXPECT_DOUBLE_EQ(query.time.other_us, 905);
  EXPECT_EQ(query.reads_stack, 1U);
  EXPECT_EQ(query.reads_cache, 1U);
  EXPECT_EQ(query.writes, 1U);
}

TEST(Levels, EachLevelKeepsItsOwnRequestsAndWhatIsInsideThem) {
  const Result r = run(raid0(2), one_query().text(), postgresql());
  ASSERT_EQ(r.levels.size(), 3U);
  const LevelResult& buffer = r.levels[1];
  EXPECT_EQ(buffer.count, 2U);
  EXPECT_DOUBLE_EQ(buffer.latency.max_us, 100);
  EXPECT_DOUBLE_EQ(buffer.time.reads_stack_us, 60);
  EXPECT_DOUBLE_EQ(buffer.time.reads_cache_us, 25);
  EXPECT_DOUBLE_EQ(buffer.time.writes_us, 0);  // the write was the query's, outside them
  EXPECT_DOUBLE_EQ(buffer.time.other_us, 40 + 35);
  const LevelResult& smgr = r.levels[2];
  EXPECT_EQ(smgr.count, 2U);
  EXPECT_DOUBLE_EQ(smgr.time.other_us, 20 + 15);
  EXPECT_EQ(smgr.reads_stack, 1U);
  EXPECT_EQ(smgr.reads_cache, 1U);
  EXPECT_EQ(smgr.unfinished, 0U);
}

TEST(Levels, TheOutermostLevelIsTheUnitTheUserReads) {
  const Result r = run(raid0(2), one_query().text(), postgresql());
  EXPECT_EQ(r.requests.count, 1U);  // one query, not three system calls
  EXPECT_DOUBLE_EQ(r.requests.mean_us, 1000);
  // The system calls are the leaf I/O: the kinds and the layers are theirs.
  ASSERT_EQ(r.request_kinds.size(), 2U);
  EXPECT_EQ(r.request_kinds[0].op, "read");
  EXPECT_EQ(r.request_kinds[0].count, 2U);
  EXPECT_EQ(r.request_kinds[0].without_block_io, 1U);
  EXPECT_NEAR(r.layers[3].mean_us, 20, 1e-9);  // ram0's Q -> C, in the one read that reached it
  EXPECT_EQ(r.stream.requests_unfinished, 0U);
  EXPECT_EQ(r.loss.malformed_lines, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(Levels, ASlowQuerysWaterfallShowsItsReadsAndTheirStages) {
  const Result r = run(raid0(2), one_query().text(), postgresql());
  ASSERT_EQ(r.slowest.size(), 1U);
  const Waterfall& w = r.slowest[0];
  EXPECT_EQ(w.level, "query");
  EXPECT_EQ(w.text, "SELECT * FROM t WHERE a = 1");
  EXPECT_EQ(w.latency_ns, 1000 * kUs);
  EXPECT_EQ(w.leaves, 3U);
  EXPECT_DOUBLE_EQ(w.time.reads_stack_us, 60);
  EXPECT_TRUE(w.stages.empty());
  ASSERT_EQ(w.inner.size(), 1U);  // the read that reached the stack; the cache hit has no stages
  EXPECT_EQ(w.inner[0].call, "pread64");
  EXPECT_EQ(w.inner[0].start_ns, 120 * kUs);
  ASSERT_FALSE(w.inner[0].stages.empty());
  EXPECT_EQ(w.inner[0].stages[0].layer, "before submit");
}

TEST(Levels, AnEndWithAKeyEndsTheRequestOfThatKeyOnWhicheverThread) {
  Stream s;
  s.pb(0, 0, 1, 0, 7, '-').pb(10 * kUs, 1, 2, 0, 8, '-');
  s.pe(100 * kUs, 1, 2, 0, 7).pe(300 * kUs, 0, 1, 0, 8);
  const Result r = run(raid0(2), s.text(), levels_of({{"transaction", "transactions"}}));
  ASSERT_EQ(r.levels.size(), 1U);
  EXPECT_EQ(r.levels[0].count, 2U);
  EXPECT_DOUBLE_EQ(r.levels[0].latency.max_us, 290);  // key 8: 10 .. 300
  EXPECT_DOUBLE_EQ(r.levels[0].latency.mean_us, (100 + 290) / 2.0);
  EXPECT_EQ(r.levels[0].unfinished, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(Levels, AnEndWithoutAKeyEndsItsThreadsInnermostRequestAtItsLevel) {
  Stream s;
  s.pb(0, 0, 1, 0, 0, '-').pb(10 * kUs, 0, 1, 1, 0, 'R');
  s.pb(20 * kUs, 0, 2, 0, 0, '-').pe(30 * kUs, 0, 2, 0, 0);  // another thread's query
  s.pe(50 * kUs, 0, 1, 0, 0);                                // the buffer read inside lost its end
  const Result r = run(raid0(2), s.text(), postgresql());
  EXPECT_EQ(r.levels[0].count, 2U);
  EXPECT_DOUBLE_EQ(r.levels[0].latency.max_us, 50);
  EXPECT_DOUBLE_EQ(r.levels[0].latency.p50_us, 10);
  EXPECT_EQ(r.levels[1].count, 0U);
  EXPECT_EQ(r.levels[1].unfinished, 1U);
}

TEST(Levels, ABeginAtALevelAlreadyOpenOnItsThreadSaysTheOpenOneLostItsEnd) {
  Stream s;
  for (uint64_t i = 0; i < 1000; ++i) s.pb(i * kUs, 0, 1, 0, 0, '-');  // no end comes
  s.pe(1000 * kUs, 0, 1, 0, 0);
  const Result r = run(raid0(2), s.text(), postgresql());
  EXPECT_EQ(r.levels[0].count, 1U);
  EXPECT_DOUBLE_EQ(r.levels[0].latency.max_us, 1);  // the last one: 999 .. 1000
  EXPECT_EQ(r.levels[0].unfinished, 999U);          // one open at a time: memory stays flat
}

TEST(Levels, WithoutSystemCallsTheDeepestLevelIsTheLeafIo) {
  Stream s;
  const int tid = 40;
  s.pb(0, 0, tid, 0, 0, 'R', 0, 0, 8192)
      .q(10 * kUs, 0, tid, 0xa0, kMd0, 0, 8192)
      .m(12 * kUs, 0, tid, 0xa1, ram(0), 4096, 8192, kMd0, 0)
      .q(13 * kUs, 0, tid, 0xa1, ram(0), 4096, 8192)
      .c(33 * kUs, 0, 0, 0xa1)
      .c(40 * kUs, 0, 0, 0xa0)
      .pe(60 * kUs, 0, tid, 0, 0, 8192);
  s.pb(100 * kUs, 0, tid, 0, 0, 'R', 0, 0, 8192).pe(105 * kUs, 0, tid, 0, 0, 8192);
  const Result r = run(raid0(2), s.text(), levels_of({{"read", "reads"}}));
  ASSERT_EQ(r.levels.size(), 1U);
  EXPECT_EQ(r.levels[0].reads_stack, 1U);
  EXPECT_EQ(r.levels[0].reads_cache, 1U);
  EXPECT_DOUBLE_EQ(r.levels[0].time.reads_stack_us, 60);
  EXPECT_DOUBLE_EQ(r.levels[0].time.reads_cache_us, 5);
  EXPECT_DOUBLE_EQ(r.levels[0].time.other_us, 0);
  EXPECT_EQ(r.requests_without_block_io, 1U);
  EXPECT_NEAR(r.layers[0].mean_us, 10, 1e-9);  // before submit: PB -> Q
  EXPECT_NEAR(r.layers[3].mean_us, 20, 1e-9);
  ASSERT_EQ(r.slowest.size(), 2U);
  ASSERT_EQ(r.slowest[0].inner.size(), 1U);
  EXPECT_EQ(r.slowest[0].inner[0].call, "read");
}

TEST(Levels, SystemCallsInsideTheDeepestLevelAreTheLeavesNotIt) {
  Stream s;
  const int tid = 300;
  s.pb(0, 0, tid, 0, 0, '-').pb(100 * kUs, 0, tid, 1, 0, 'R');
  pread_reaching_ram0(s, 110 * kUs, tid, 0xa0);
  s.pe(200 * kUs, 0, tid, 1, 0, 8192).pe(300 * kUs, 0, tid, 0, 0, 0);
  const Result r =
      run(raid0(2), s.text(), levels_of({{"query", "queries"}, {"smgr_read", "smgr reads"}}));
  ASSERT_EQ(r.request_kinds.size(), 1U);
  EXPECT_EQ(r.request_kinds[0].count, 1U);  // the pread alone; the smgr read is not I/O twice
  EXPECT_EQ(r.levels[1].reads_stack, 1U);
  EXPECT_DOUBLE_EQ(r.levels[1].time.reads_stack_us, 60);
  EXPECT_DOUBLE_EQ(r.levels[1].time.other_us, 40);  // 100 us, 60 of them the pread
  EXPECT_DOUBLE_EQ(r.levels[0].time.reads_stack_us, 60);
  EXPECT_EQ(r.stream.requests_unfinished, 0U);
}

TEST(Levels, ALevelTheProviderDoesNotHaveIsMalformedAndAnEndWithoutABeginIsUnmatched) {
  Stream s;
  s.pb(0, 0, 1, 5, 0, 'R').pe(10 * kUs, 0, 1, 0, 0);
  const Result r = run(raid0(2), s.text(), postgresql());
  EXPECT_EQ(r.loss.malformed_lines, 1U);
  EXPECT_EQ(r.loss.unmatched_completions, 1U);
  EXPECT_EQ(r.levels[0].count, 0U);
}

TEST(Levels, WithoutADeclarationLevelsAreNamedByTheirIndex) {
  Stream s;
  s.pb(0, 0, 1, 0, 0, '-')
      .pb(1 * kUs, 0, 1, 1, 0, 'R')
      .pe(2 * kUs, 0, 1, 1, 0)
      .pe(3 * kUs, 0, 1, 0, 0);
  const Result r = run(raid0(2), s.text());
  ASSERT_EQ(r.levels.size(), 2U);
  EXPECT_EQ(r.levels[1].name, "level 1");
  EXPECT_EQ(r.levels[1].count, 1U);
}

TEST(Levels, StreamsWithoutLevelsHaveNone) {
  Stream s;
  pread_reaching_ram0(s, 0, 300, 0xa0);
  Options options;
  options.requests = RequestSource::syscall;
  const Result r = run(raid0(2), s.text(), options);
  EXPECT_TRUE(r.levels.empty());
  EXPECT_EQ(r.requests.count, 1U);
  EXPECT_EQ(r.slowest_time.requests, 0U);
}

}  // namespace
}  // namespace iotap::engine::testing
