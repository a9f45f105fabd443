// Requests from system calls (SS/SD): joined to their bios by thread as USDT reads are, calls
// elsewhere left alone, calls that reached no device and bios no call caused kept apart.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

Options syscalls() {
  Options options;
  options.requests = RequestSource::syscall;
  options.slowest = 4;
  return options;
}

// One pread64 of 4 KiB through md0 to ram0: SS 0, Q 10, M/Q 12/13, C 33/40, SD 60 (us).
void pread_on_ram0(Stream& s, uint64_t t, int tid, uint64_t bio) {
  s.ss(t, 0, tid, "pread64", kMd0, 0, 4096)
      .q(t + 10 * kUs, 0, tid, bio, kMd0, 0, 4096)
      .m(t + 12 * kUs, 0, tid, bio + 1, ram(0), 4096, 4096, kMd0, 0)
      .q(t + 13 * kUs, 0, tid, bio + 1, ram(0), 4096, 4096)
      .c(t + 33 * kUs, 0, 0, bio + 1)
      .c(t + 40 * kUs, 0, 0, bio)
      .sd(t + 60 * kUs, 0, tid, 4096);
}

TEST(SyscallRequests, ACallIsJoinedToTheBiosItsThreadQueues) {
  Stream s;
  pread_on_ram0(s, 0, 300, 0xa0);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(r.request_source, RequestSource::syscall);
  ASSERT_EQ(r.requests.count, 1U);
  EXPECT_DOUBLE_EQ(r.requests.mean_us, 60);
  EXPECT_EQ(r.requests_without_block_io, 0U);
  ASSERT_EQ(r.request_kinds.size(), 1U);
  EXPECT_EQ(r.request_kinds[0].op, "read");
  EXPECT_NEAR(r.layers[0].mean_us, 10, 1e-9);  // before submit: SS -> Q
  EXPECT_NEAR(r.layers[3].mean_us, 20, 1e-9);  // member device: ram0's Q -> C
  ASSERT_EQ(r.slowest.size(), 1U);
  EXPECT_EQ(r.slowest[0].call, "pread64");
  EXPECT_EQ(r.slowest[0].thread, 300);  // the tid
  EXPECT_EQ(r.unrequested.reads, 0U);
}

TEST(SyscallRequests, CallsOnOtherFilesAreNotFollowed) {
  Stream s;
  // The loader reading a library (dev 0:2), then a write to a file elsewhere, then the call.
  s.ss(0, 0, 300, "read", make_dev(0, 2), 0, 832).sd(kUs, 0, 300, 832);
  s.ss(2 * kUs, 0, 300, "write", make_dev(8, 1), 0, 4096).sd(3 * kUs, 0, 300, 4096);
  pread_on_ram0(s, 10 * kUs, 300, 0xa0);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(r.requests.count, 1U);
  EXPECT_EQ(r.stream.requests_elsewhere, 2U);
  EXPECT_EQ(r.stream.requests_unfinished, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(SyscallRequests, AnEndWithoutAStartIsACallLeftOutNotLoss) {
  Stream s;
  s.sd(kUs, 0, 300, 10);  // a read on a pipe: the probe left its start out
  pread_on_ram0(s, 10 * kUs, 300, 0xa0);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(r.requests.count, 1U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(SyscallRequests, CacheHitsAndBufferedWritesAreCountedApartFromTheLayers) {
  Stream s;
  pread_on_ram0(s, 0, 300, 0xa0);
  // A read served from the page cache and a buffered write: no bio of theirs, 5 ms each.
  s.ss(kMs, 0, 300, "read", kMd0, 0, 4096, false).sd(6 * kMs, 0, 300, 4096);
  s.ss(7 * kMs, 0, 300, "write", kMd0, 0, 4096, false).sd(12 * kMs, 0, 300, 4096);
  // Writeback by a kernel thread (tid 77, no call open) and a flush of no bytes.
  s.qw(13 * kMs, 1, 77, 0xd0, kMd0, 0, 4096).c(14 * kMs, 1, 0, 0xd0);
  s.qw(15 * kMs, 1, 77, 0xd1, kMd0, 0, 0).c(16 * kMs, 1, 0, 0xd1);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(r.requests.count, 3U);
  EXPECT_EQ(r.requests_without_block_io, 2U);
  ASSERT_EQ(r.request_kinds.size(), 2U);
  EXPECT_EQ(r.request_kinds[0].op, "read");
  EXPECT_EQ(r.request_kinds[0].count, 2U);
  EXPECT_EQ(r.request_kinds[0].without_block_io, 1U);
  EXPECT_EQ(r.request_kinds[1].op, "write");
  EXPECT_EQ(r.request_kinds[1].without_block_io, 1U);
  // The layers are the one read that reached a device: its 60 us, not the cache's 5 ms.
  double total = 0;
  for (const auto& layer : r.layers) total += layer.mean_us;
  EXPECT_NEAR(total, 60, 1e-9);
  ASSERT_EQ(r.slowest.size(), 1U);  // the waterfalls too
  EXPECT_EQ(r.unrequested.writes, 1U);
  EXPECT_EQ(r.unrequested.flushes, 1U);
  EXPECT_EQ(r.unrequested.bytes, 4096U);
  EXPECT_EQ(verdict_status(r), VerdictStatus::ok);
}

TEST(SyscallRequests, AnFsyncIsChargedTheWritesAndFlushItsThreadQueues) {
  Stream s;
  s.ss(0, 0, 300, "fsync", kMd0, 0, 0)
      .qw(10 * kUs, 0, 300, 0xa0, kMd0, 0, 4096)
      .qw(20 * kUs, 0, 300, 0xa1, kMd0, 0, 0)
      .c(2 * kMs, 1, 0, 0xa0)
      .c(3 * kMs, 1, 0, 0xa1)
      .sd(3 * kMs + 10 * kUs, 0, 300, 0);
  const Result r = run(raid0(2), s.text(), syscalls());
  ASSERT_EQ(r.request_kinds.size(), 1U);
  EXPECT_EQ(r.request_kinds[0].op, "flush");
  EXPECT_EQ(r.request_kinds[0].without_block_io, 0U);
  EXPECT_NEAR(r.request_kinds[0].latency.mean_us, 3010, 1e-9);
  // Backwards from the end: the flush carries 20 us..3 ms; before it, the write 10..20 us (the
  // rest of the write ran beside the flush). 10 us before the write, 10 us back up.
  EXPECT_NEAR(r.layers[0].mean_us, 10, 1e-9);
  EXPECT_NEAR(r.layers[1].mean_us, 2990, 1e-9);  // md0's: both roots are md0 bios
  EXPECT_NEAR(r.layers[4].mean_us, 10, 1e-9);
  EXPECT_EQ(r.unrequested.writes + r.unrequested.flushes, 0U);
  // The two stretches are back to back on the same path: one md0 stage standing for both.
  ASSERT_EQ(r.slowest.size(), 1U);
  const auto& stages = r.slowest[0].stages;
  ASSERT_EQ(stages.size(), 3U);
  EXPECT_EQ(stages[1].device, "md0");
  EXPECT_EQ(stages[1].bios, 2U);
  EXPECT_EQ(stages[1].start_ns, 10 * kUs);
  EXPECT_EQ(stages[1].end_ns, 3 * kMs);
}

// md sends a flush on to each member from its workqueue as new empty bios, with no remap: they
// join the array's flush, and the slower member's flush is on the fsync's path.
TEST(SyscallRequests, AnMdFlushWaitsOnItsMembersFlushes) {
  Stream s;
  s.ss(0, 0, 300, "fsync", kMd0, 0, 0)
      .qw(10 * kUs, 0, 300, 0xa0, kMd0, 0, 0)
      .qw(30 * kUs, 1, 50, 0xb0, ram(0), 0, 0)
      .qw(31 * kUs, 1, 50, 0xb1, ram(1), 0, 0)
      .c(1 * kMs, 0, 0, 0xb0)
      .c(5 * kMs, 1, 0, 0xb1)
      .c(5 * kMs + 10 * kUs, 1, 0, 0xa0)
      .sd(5 * kMs + 20 * kUs, 0, 300, 0);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(find(r, "ram0")->ios, 1U);
  EXPECT_EQ(find(r, "ram1")->ios, 1U);
  EXPECT_EQ(r.unrequested.flushes, 0U);
  EXPECT_NEAR(r.layers[3].mean_us, 4969, 1e-9);  // the member device: ram1's flush, 31 us..5 ms
  ASSERT_EQ(r.slowest.size(), 1U);
  const auto& stages = r.slowest[0].stages;
  ASSERT_GE(stages.size(), 3U);
  EXPECT_EQ(stages[1].device, "md0");
  EXPECT_EQ(stages[2].device, "ram1");
}

// dm sends an empty flush on as clones remapped from the flush's own sector (an empty bio
// spans one sector for the join).
TEST(SyscallRequests, ADmFlushsClonesJoinItAtItsSector) {
  const std::vector<StackDevice> stack{device("dm-0", dm(0), "linear(ram)", ""),
                                       device("ram0", ram(0), "ram", "dm-0")};
  Stream s;
  s.ss(0, 0, 300, "fdatasync", dm(0), 0, 0)
      .qw(10 * kUs, 0, 300, 0xa0, dm(0), 0, 0)
      .m(12 * kUs, 0, 300, 0xc0, ram(0), 0, 0, dm(0), 0)
      .qw(13 * kUs, 0, 300, 0xc0, ram(0), 0, 0)
      .c(2 * kMs, 1, 0, 0xc0)
      .c(2 * kMs + 5 * kUs, 1, 0, 0xa0)
      .sd(2 * kMs + 20 * kUs, 0, 300, 0);
  const Result r = run(stack, s.text(), syscalls());
  EXPECT_EQ(find(r, "ram0")->ios, 1U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_NEAR(r.layers[3].mean_us, 1987, 1e-9);  // the member device: 13 us..2 ms
  ASSERT_EQ(r.slowest.size(), 1U);
  ASSERT_GE(r.slowest[0].stages.size(), 3U);
  EXPECT_EQ(r.slowest[0].stages[1].device, "dm-0");
  EXPECT_EQ(r.slowest[0].stages[2].device, "ram0");
}

// A request that waited on one bio, then another (writes, then a flush): each root carries its
// own stretch, and the gap between them is not charged to either.
TEST(SyscallRequests, SequentialRootsEachCarryTheirStretch) {
  Stream s;
  s.ss(0, 0, 300, "fsync", kMd0, 0, 0)
      .qw(10 * kUs, 0, 300, 0xa0, kMd0, 0, 4096)
      .c(1 * kMs, 1, 0, 0xa0)
      .qw(1 * kMs + 100 * kUs, 0, 300, 0xa1, kMd0, 0, 0)
      .c(2 * kMs, 1, 0, 0xa1)
      .sd(2 * kMs + 10 * kUs, 0, 300, 0);
  Options options = syscalls();
  const Result r = run(raid0(2), s.text(), options);
  EXPECT_NEAR(r.layers[0].mean_us, 110, 1e-9);  // 10 before the write, 100 between
  EXPECT_NEAR(r.layers[1].mean_us, 990 + 900, 1e-9);
  EXPECT_NEAR(r.layers[4].mean_us, 10, 1e-9);
  ASSERT_EQ(r.slowest.size(), 1U);
  const auto& stages = r.slowest[0].stages;
  ASSERT_EQ(stages.size(), 5U);  // before, md0, before, md0, back up
  EXPECT_EQ(stages[1].device, "md0");
  EXPECT_EQ(stages[2].start_ns, 1 * kMs);
  EXPECT_EQ(stages[2].end_ns, 1 * kMs + 100 * kUs);
}

TEST(SyscallRequests, WithNoCallOnTheStackTheStatusSaysNoRequests) {
  Stream s;
  s.ss(0, 0, 300, "read", make_dev(0, 2), 0, 832).sd(kUs, 0, 300, 832);
  s.q(2 * kUs, 0, 300, 0xa0, kMd0, 0, 4096).c(3 * kUs, 0, 0, 0xa0);
  const Result r = run(raid0(2), s.text(), syscalls());
  EXPECT_EQ(r.requests.count, 0U);
  EXPECT_EQ(r.unrequested.reads, 1U);
  EXPECT_EQ(verdict_status(r), VerdictStatus::no_requests);
}

}  // namespace
}  // namespace iotap::engine::testing
