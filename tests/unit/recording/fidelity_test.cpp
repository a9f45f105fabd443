// A replay's fidelity from what the trace saw: counts, per-thread order, bytes, pacing.
#include "iotap/recording/fidelity.h"

#include <gtest/gtest.h>

namespace iotap::recording {
namespace {

// Two threads (numbered 3 and 7 in the recording), two reads each, recorded in the order they
// ended: thread 7's first read started first.
Recording two_threads() {
  Recording rec;
  const auto read = [](uint64_t start, uint32_t thread, uint64_t offset) {
    return Request{.start_ns = start,
                   .thread = thread,
                   .op = 'R',
                   .offset = offset,
                   .size = 4096,
                   .result = 4096,
                   .latency_ns = 1000,
                   .dev = "9:0",
                   .direct = true,
                   .call = "pread64"};
  };
  rec.requests = {read(1'000, 3, 0), read(0, 7, 8192), read(5'000, 3, 4096), read(9'000, 7, 12288)};
  return rec;
}

TEST(Fidelity, RequestsAreNumberedByTheirStart) {
  const Recording rec = two_threads();
  const auto order = by_start(rec);
  ASSERT_EQ(order.size(), 4U);
  EXPECT_EQ(order[0]->offset, 8192U);  // id 1: thread 7's first
  EXPECT_EQ(order[1]->offset, 0U);     // id 2: thread 3's first
  EXPECT_EQ(order[2]->offset, 4096U);
  EXPECT_EQ(order[3]->offset, 12288U);
}

TEST(Fidelity, AFaithfulReplayKeepsOrderBytesAndGaps) {
  // The replayer's thread 0 is recorded thread 3 (ids 2, 3); its thread 1 is thread 7 (1, 4).
  const std::vector<Replayed> replayed = {
      {.id = 1, .thread = 1, .start_ns = 0, .result = 4096},
      {.id = 2, .thread = 0, .start_ns = 1'100, .result = 4096},
      {.id = 3, .thread = 0, .start_ns = 5'050, .result = 4096},
      {.id = 4, .thread = 1, .start_ns = 9'300, .result = 4096}};
  const Fidelity f = fidelity(two_threads(), replayed, 1.0);
  EXPECT_EQ(f.recorded, 4U);
  EXPECT_EQ(f.replayed, 4U);
  EXPECT_TRUE(f.order_preserved) << f.first_difference;
  EXPECT_EQ(f.recorded_bytes, 16384U);
  EXPECT_EQ(f.replayed_bytes, 16384U);
  ASSERT_TRUE(f.pacing);
  EXPECT_EQ(f.pacing->gaps, 2U);
  // Thread 0: recorded gap 4000, replayed 3950 (50 ns); thread 1: 9000 against 9300 (300 ns).
  EXPECT_DOUBLE_EQ(f.pacing->p50_us, 0.05);
  EXPECT_DOUBLE_EQ(f.pacing->p99_us, 0.3);
}

TEST(Fidelity, AReplayAtTwiceTheSpeedIsHeldToHalfTheGaps) {
  const std::vector<Replayed> replayed = {
      {.id = 2, .thread = 0, .start_ns = 0, .result = 4096},
      {.id = 3, .thread = 0, .start_ns = 2'000, .result = 4096}};
  const Fidelity f = fidelity(two_threads(), replayed, 2.0);
  ASSERT_TRUE(f.pacing);
  EXPECT_DOUBLE_EQ(f.pacing->p50_us, 0);
  EXPECT_FALSE(f.order_preserved);
  EXPECT_EQ(f.first_difference, "thread 1 replayed 0 requests of its 2");
}

TEST(Fidelity, OutOfOrderAndMissingRequestsAreNamed) {
  const std::vector<Replayed> swapped = {{.id = 3, .thread = 0, .start_ns = 0, .result = 4096},
                                         {.id = 2, .thread = 0, .start_ns = 10, .result = 4096},
                                         {.id = 1, .thread = 1, .start_ns = 0, .result = 4096},
                                         {.id = 4, .thread = 1, .start_ns = 9, .result = 4096}};
  const Fidelity f = fidelity(two_threads(), swapped, std::nullopt);
  EXPECT_FALSE(f.order_preserved);
  EXPECT_EQ(f.first_difference, "thread 0's request 1 was recorded request 3, not 2");
  EXPECT_FALSE(f.pacing) << "--pace fast keeps no gaps";
  const std::vector<Replayed> short_one = {{.id = 2, .thread = 0, .start_ns = 0, .result = -5}};
  const Fidelity g = fidelity(two_threads(), short_one, std::nullopt);
  EXPECT_EQ(g.replayed, 1U);
  EXPECT_EQ(g.replayed_bytes, 0U);
  EXPECT_EQ(g.first_difference, "thread 0 replayed 1 requests of its 2");
}

}  // namespace
}  // namespace iotap::recording
