// A recording turned into per-thread steps: ids by start, threads in their numbers' order,
// offsets fitted to a smaller device.
#include "plan.h"

#include <gtest/gtest.h>

#include "error.h"

namespace io_replayer {
namespace {

using iotap::recording::Recording;
using iotap::recording::Request;

Request req(uint64_t start, uint32_t thread, char op, uint64_t offset, uint64_t size,
            const char* call = "pread64") {
  return Request{.start_ns = start,
                 .thread = thread,
                 .op = op,
                 .offset = offset,
                 .size = size,
                 .result = static_cast<int64_t>(size),
                 .latency_ns = 10,
                 .dev = "9:0",
                 .direct = op != 'F',
                 .call = call};
}

TEST(ReplayPlan, EachThreadGetsItsRequestsInTheOrderTheyStarted) {
  Recording rec;
  // In the order they ended.
  rec.requests = {req(50, 9, 'R', 0, 4096), req(10, 2, 'W', 8192, 4096, "pwrite64"),
                  req(60, 2, 'F', 0, 0, "fdatasync"), req(100, 9, 'R', 4096, 4096)};
  const Plan plan = make_plan(rec, 1 << 20, "/dev/md0");
  EXPECT_EQ(plan.requests, 4U);
  EXPECT_EQ(plan.reads, 2U);
  EXPECT_EQ(plan.writes, 1U);
  EXPECT_EQ(plan.flushes, 1U);
  EXPECT_DOUBLE_EQ(plan.scale, 1);
  ASSERT_EQ(plan.threads.size(), 2U);
  // Thread number 2 comes first: ids 1 (the write, started first) and 3 (its fdatasync).
  ASSERT_EQ(plan.threads[0].size(), 2U);
  EXPECT_EQ(plan.threads[0][0].id, 1U);
  EXPECT_EQ(plan.threads[0][0].op, 'W');
  EXPECT_EQ(plan.threads[0][1].id, 3U);
  EXPECT_TRUE(plan.threads[0][1].datasync);
  EXPECT_EQ(plan.threads[1][0].id, 2U);
  EXPECT_EQ(plan.threads[1][1].id, 4U);
  EXPECT_EQ(plan.threads[1][1].recorded_start, 100U);
  const Needs needs = needs_of(rec);
  EXPECT_EQ(needs.writes, 1U);
  EXPECT_TRUE(needs.direct);
  EXPECT_FALSE(needs.buffered) << "a flush is neither";
}

TEST(ReplayPlan, ASmallerDeviceScalesOffsetsToAlignedPlacesInsideIt) {
  Recording rec;
  rec.requests = {req(0, 0, 'R', 0, 65536), req(1, 0, 'R', 1000 * 65536, 65536),
                  req(2, 0, 'R', 2047 * 65536, 65536)};  // span: 128 MiB
  const uint64_t device = 32ULL << 20;
  const Plan plan = make_plan(rec, device, "/dev/md0");
  EXPECT_EQ(plan.span, 128ULL << 20);
  EXPECT_DOUBLE_EQ(plan.scale, 0.25);
  const auto& steps = plan.threads[0];
  EXPECT_EQ(steps[0].offset, 0U);
  EXPECT_EQ(steps[1].offset, 250U * 65536);
  EXPECT_LE(steps[2].offset + steps[2].size, device);
  for (const auto& s : steps) EXPECT_EQ(s.offset % kScaledAlignment, 0U);
}

TEST(ReplayPlan, ARequestLargerThanTheDeviceCannotBeReplayed) {
  Recording rec;
  rec.requests = {req(0, 0, 'R', 0, 1 << 20)};
  try {
    make_plan(rec, 65536, "/dev/ram0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the recording has a request of 1048576 bytes; /dev/ram0 holds 65536");
  }
}

}  // namespace
}  // namespace io_replayer
