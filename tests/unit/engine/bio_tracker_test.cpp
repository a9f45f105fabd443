// The join of bios into request trees, seen through the engine's results.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

// md0 = raid0(ram0, ram1), chunk 1024 sectors, no data offset.
std::vector<StackDevice> two_rams() {
  auto stack = raid0(2);
  for (auto& member : stack[0].md_members) member.second = 0;
  return stack;
}

std::vector<std::string> devices_of(const Waterfall& w) {
  std::vector<std::string> out;
  for (const auto& stage : w.stages)
    if (!stage.device.empty()) out.push_back(stage.device);
  return out;
}

TEST(BioTracker, SplitChainsWithReusedAddresses) {
  Stream s;
  const uint64_t root = 0xa0;
  const uint64_t piece = 0xb0;  // the kernel reuses the split part's address ...
  const uint64_t clone = 0xc0;  // ... and the clone's, once each has completed
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, root, kMd0, 0, 1048576);
  uint64_t t = 20 * kUs;
  for (uint64_t i = 0; i < 4; ++i, t += 100 * kUs) {
    const uint64_t sector = i * 248;
    s.x(t, 0, 100, piece, root, sector, 126976)
        .m(t + 1 * kUs, 0, 100, clone, ram(0), sector, 126976, kMd0, sector)
        .q(t + 2 * kUs, 0, 100, clone, ram(0), sector, 126976)
        .c(t + 2 * kUs + (i + 1) * 10 * kUs, 0, 100, clone)
        .c(t + 60 * kUs, 0, 100, piece);
  }
  s.c(t, 0, 100, root).rd(t + 5 * kUs, 0, 100, 1);

  Options options;
  options.slowest = 1;
  const Result r = run(two_rams(), s.text(), options);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(find(r, "md0")->ios, 1U);  // parts are not ios of their own
  EXPECT_EQ(find(r, "ram0")->ios, 4U);
  EXPECT_DOUBLE_EQ(find(r, "ram0")->latency.mean_us, 25);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  ASSERT_EQ(r.slowest.size(), 1U);
  // The critical path goes through the last part and its clone: 40 us on ram0.
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"md0", "ram0"}));
  EXPECT_EQ(r.slowest[0].stages[2].end_ns - r.slowest[0].stages[2].start_ns, 40 * kUs);
}

TEST(BioTracker, RemapJoinsTheBioWhoseSectorsContainFromSector) {
  // Two reads in flight at once, on chunks of different members; the remaps carry only
  // FROM_SECTOR, which must find each read's own bio.
  Stream s;
  s.rs(0, 0, 100, 1, 0).rs(1 * kUs, 1, 200, 2, 524288);
  s.q(10 * kUs, 0, 100, 0xa1, kMd0, 0, 524288).q(11 * kUs, 1, 200, 0xa2, kMd0, 1024, 524288);
  s.m(20 * kUs, 1, 200, 0xc2, ram(1), 0, 524288, kMd0, 1024)
      .q(21 * kUs, 1, 200, 0xc2, ram(1), 0, 524288);
  s.m(22 * kUs, 0, 100, 0xc1, ram(0), 0, 524288, kMd0, 0)
      .q(23 * kUs, 0, 100, 0xc1, ram(0), 0, 524288);
  s.c(50 * kUs, 0, 100, 0xc1).c(51 * kUs, 0, 100, 0xa1).rd(60 * kUs, 0, 100, 1);
  s.c(5 * kMs, 1, 200, 0xc2).c(5 * kMs + kUs, 1, 200, 0xa2).rd(5 * kMs + 9 * kUs, 1, 200, 2);

  Options options;
  options.slowest = 2;
  const Result r = run(two_rams(), s.text(), options);
  ASSERT_EQ(r.slowest.size(), 2U);
  EXPECT_EQ(r.slowest[0].request_id, 2U);
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"md0", "ram1"}));
  EXPECT_EQ(r.slowest[1].request_id, 1U);
  EXPECT_EQ(devices_of(r.slowest[1]), (std::vector<std::string>{"md0", "ram0"}));
}

TEST(BioTracker, ChunkSplitWithoutXJoinsTheSmallestContainingPart) {
  // md splits a part at a chunk boundary with no X: the remap's FROM_SECTOR lies inside a part
  // (and inside the root). The part is the parent; its untraced front half completes right
  // after its clone, on the same CPU, and is not loss.
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 900, 1048576);
  s.x(20 * kUs, 0, 100, 0xb0, 0xa0, 900, 126976);  // sectors 900..1148 cross 1024
  s.m(21 * kUs, 0, 100, 0xc1, ram(1), 0, 63488, kMd0, 1024)
      .q(22 * kUs, 0, 100, 0xc1, ram(1), 0, 63488);
  s.m(23 * kUs, 0, 100, 0xc0, ram(0), 900, 63488, kMd0, 900)
      .q(24 * kUs, 0, 100, 0xc0, ram(0), 900, 63488);
  s.c(30 * kUs, 0, 100, 0xc0).c(31 * kUs, 0, 100, 0xf00d);  // the untraced front half
  s.c(3 * kMs, 1, 100, 0xc1).c(3 * kMs + kUs, 1, 100, 0xb0).c(3 * kMs + 2 * kUs, 1, 100, 0xa0);
  s.rd(3 * kMs + 10 * kUs, 1, 100, 1);

  Options options;
  options.slowest = 1;
  const Result r = run(two_rams(), s.text(), options);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.untraced_split_completions, 1U);
  EXPECT_EQ(r.remap_check.mismatches, 0U);
  ASSERT_EQ(r.slowest.size(), 1U);
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"md0", "ram1"}));
  const auto& ram1_stage = r.slowest[0].stages[2];
  EXPECT_EQ(ram1_stage.start_ns, 22 * kUs);  // the member's time starts at its Q, not its M
}

TEST(BioTracker, CompletionOnAnotherCpuAndErrors) {
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xc0, ram(0), 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, ram(0), 0, 4096);
  s.c(112 * kUs, 3, 0, 0xc0, 10).c(113 * kUs, 3, 0, 0xa0, 10).rd(120 * kUs, 1, 100, 1, -5);

  const Result r = run(two_rams(), s.text());
  EXPECT_EQ(find(r, "ram0")->ios, 1U);
  EXPECT_EQ(find(r, "ram0")->errors, 1U);
  EXPECT_DOUBLE_EQ(find(r, "ram0")->latency.mean_us, 100);
  EXPECT_EQ(find(r, "md0")->errors, 1U);
  EXPECT_EQ(r.request_errors, 1U);
  ASSERT_EQ(r.failing_members.size(), 1U);  // where the errors start, not every layer above
  EXPECT_EQ(r.failing_members[0].name, "ram0");
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

// md0 = raid0(vda, vdb): request-based members, which trace no C for the bios md sends them.
std::vector<StackDevice> two_virtio_disks() {
  std::vector<StackDevice> stack{device("md0", kMd0, "raid0(virtio*2)", "")};
  stack[0].md_level = "raid0";
  stack[0].chunk_bytes = 524288;
  for (uint32_t i = 0; i < 2; ++i) {
    const std::string name = std::string("vd") + static_cast<char>('a' + i);
    stack[0].md_members.emplace_back(name, 0);
    stack.push_back(device(name, make_dev(253, i * 16), "virtio", "md0"));
  }
  return stack;
}

TEST(BioTracker, RequestCompletionEndsTheMemberBioOnARequestBasedDisk) {
  const uint32_t vda = make_dev(253, 0);
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xc0, vda, 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, vda, 0, 4096);
  s.i(15 * kUs, 0, 100, 0xe0, vda, 0, 4096, 0xc0);
  // The disk's interrupt: the request's completion, then md's bio (the member bio's C is not
  // traced).
  s.d(212 * kUs, 2, 0, 0xe0, vda, 0, 4096, 10).c(213 * kUs, 2, 0, 0xa0, 10);
  s.rd(220 * kUs, 1, 100, 1, -5);

  Options options;
  options.slowest = 1;
  const Result r = run(two_virtio_disks(), s.text(), options);
  EXPECT_EQ(find(r, "vda")->ios, 1U);
  EXPECT_EQ(find(r, "vda")->bytes, 4096U);
  EXPECT_EQ(find(r, "vda")->errors, 1U);
  EXPECT_DOUBLE_EQ(find(r, "vda")->latency.mean_us, 200);  // Q -> D
  EXPECT_EQ(find(r, "vda")->service.count, 1U);
  EXPECT_DOUBLE_EQ(find(r, "vda")->service.mean_us, 197);  // I -> D
  EXPECT_EQ(find(r, "md0")->service.count, 0U);
  EXPECT_EQ(find(r, "md0")->errors, 1U);
  ASSERT_EQ(r.failing_members.size(), 1U);
  EXPECT_EQ(r.failing_members[0].name, "vda");
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  ASSERT_EQ(r.slowest.size(), 1U);
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"md0", "vda"}));
  const auto& vda_stage = r.slowest[0].stages[2];
  EXPECT_EQ(vda_stage.start_ns, 12 * kUs);
  EXPECT_EQ(vda_stage.end_ns, 212 * kUs);
}

// A disk with a write cache: md's flush reaches vda as an empty bio; the block layer sends the
// disk its own flush request (no sector: the kernel's -1, no bio), then ends the bio's request
// with an empty D at the bio's sector. The bio ends there, and no data bio at that sector does.
TEST(BioTracker, AnEmptyRequestCompletionEndsTheFlushAtItsSectorAndNothingElse) {
  const uint32_t vda = make_dev(253, 0);
  constexpr uint64_t kNoSector = UINT64_MAX;
  Stream s;
  s.ss(0, 0, 100, "fsync", kMd0, 0, 0).qw(10 * kUs, 0, 100, 0xa0, kMd0, 0, 0);
  s.qw(12 * kUs, 0, 100, 0xd0, vda, 0, 4096);  // a write-back no request caused, in flight
  s.qw(20 * kUs, 1, 50, 0xc0, vda, 0, 0);      // md's flush to the member, from its worker
  s.i(21 * kUs, 1, 50, 0xe1, vda, kNoSector, 0, 0).d(5 * kMs, 1, 0, 0xe1, vda, kNoSector, 0);
  s.d(5 * kMs + 2 * kUs, 1, 0, 0xe0, vda, 0, 0);
  s.c(5 * kMs + 5 * kUs, 1, 0, 0xa0).sd(5 * kMs + 10 * kUs, 0, 100, 0);
  s.i(6 * kMs, 0, 0, 0xe2, vda, 0, 4096, 0xd0).d(7 * kMs, 0, 0, 0xe2, vda, 0, 4096);

  Options options;
  options.requests = RequestSource::syscall;
  options.slowest = 1;
  const Result r = run(two_virtio_disks(), s.text(), options);
  EXPECT_EQ(r.loss.malformed_lines, 0U);
  EXPECT_EQ(r.loss.sequence_gaps, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  EXPECT_EQ(find(r, "vda")->ios, 2U);
  // The flush 20 us .. 5.002 ms (4982 us), the write 12 us .. 7 ms (6988 us), each at its own D.
  EXPECT_DOUBLE_EQ(find(r, "vda")->latency.mean_us, (4982 + 6988) / 2.0);
  EXPECT_EQ(find(r, "vda")->service.count, 2U);  // the flush request and the write's
  ASSERT_EQ(r.slowest.size(), 1U);
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"md0", "vda"}));
  // The flush on vda: from its Q to the empty D.
  EXPECT_EQ(r.slowest[0].stages[2].start_ns, 20 * kUs);
  EXPECT_EQ(r.slowest[0].stages[2].end_ns, 5 * kMs + 2 * kUs);
}

// The D's CPU has nothing more to say for a while, and md's clone is freed and its address
// reused on another CPU microseconds later: the bio the D covered ended at the D, not lost.
TEST(BioTracker, AnAddressReusedRightAfterItsRequestsCompletionEndsTheOldBioAtTheD) {
  const uint32_t vda = make_dev(253, 0);
  Stream s;
  s.q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xc0, vda, 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, vda, 0, 4096);
  s.i(15 * kUs, 0, 100, 0xe0, vda, 0, 4096, 0xc0);
  s.d(212 * kUs, 2, 0, 0xe0, vda, 0, 4096);
  // Another read's clone gets the freed address 0xc0 on CPU 0 before CPU 2 says anything more.
  s.q(213 * kUs, 0, 101, 0xa1, kMd0, 8, 4096);
  s.m(214 * kUs, 0, 101, 0xc0, vda, 8, 4096, kMd0, 8).q(222 * kUs, 0, 101, 0xc0, vda, 8, 4096);
  s.c(230 * kUs, 2, 0, 0xa0);
  s.d(400 * kUs, 2, 0, 0xe1, vda, 8, 4096).c(401 * kUs, 2, 0, 0xa1);
  const Result r = run(two_virtio_disks(), s.text());
  EXPECT_EQ(find(r, "vda")->ios, 2U);
  EXPECT_EQ(r.stream.abandoned_bios, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  EXPECT_DOUBLE_EQ(find(r, "vda")->latency.mean_us, (200 + 178) / 2.0);
}

TEST(BioTracker, RequestCoveringTwoBiosEndsBoth) {
  // Two reads' member bios on vdb, contiguous, merged into one request; a third bio on vdb
  // beyond the request stays in flight.
  const uint32_t vdb = make_dev(253, 16);
  Stream s;
  s.rs(0, 0, 100, 1, 0).rs(1 * kUs, 1, 200, 2, 0);
  s.q(10 * kUs, 0, 100, 0xa1, kMd0, 1024, 4096).q(11 * kUs, 1, 200, 0xa2, kMd0, 1032, 4096);
  s.m(12 * kUs, 0, 100, 0xc1, vdb, 0, 4096, kMd0, 1024).q(13 * kUs, 0, 100, 0xc1, vdb, 0, 4096);
  s.m(14 * kUs, 1, 200, 0xc2, vdb, 8, 4096, kMd0, 1032).q(15 * kUs, 1, 200, 0xc2, vdb, 8, 4096);
  s.q(16 * kUs, 1, 300, 0xc3, vdb, 16, 4096);
  s.i(20 * kUs, 1, 200, 0xe0, vdb, 0, 8192, 0xc1);
  s.d(113 * kUs, 3, 0, 0xe0, vdb, 0, 8192).c(114 * kUs, 3, 0, 0xa1).c(115 * kUs, 3, 0, 0xa2);
  s.rd(120 * kUs, 0, 100, 1).rd(121 * kUs, 1, 200, 2);

  const Result r = run(two_virtio_disks(), s.text());
  EXPECT_EQ(find(r, "vdb")->ios, 2U);
  EXPECT_EQ(find(r, "vdb")->bytes, 8192U);
  EXPECT_EQ(find(r, "vdb")->errors, 0U);
  EXPECT_DOUBLE_EQ(find(r, "vdb")->latency.mean_us, 99);  // (100 + 98) / 2
  EXPECT_EQ(find(r, "md0")->ios, 2U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 1U);
  EXPECT_EQ(r.requests.count, 2U);
}

TEST(BioTracker, RequestsOfABioSplitOnTheDiskEndThePartAndTheRest) {
  // The disk's queue limits split the member bio (X): the front part and the rest go in two
  // requests; the second D covers only the rest of the bio.
  const uint32_t vda = make_dev(253, 0);
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 524288);
  s.m(11 * kUs, 0, 100, 0xc0, vda, 0, 524288, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, vda, 0, 524288);
  s.x(13 * kUs, 0, 100, 0xb0, 0xc0, 0, 516096);
  s.d(100 * kUs, 2, 0, 0xe0, vda, 0, 516096).d(150 * kUs, 2, 0, 0xe1, vda, 1008, 8192);
  s.c(151 * kUs, 2, 0, 0xa0).rd(160 * kUs, 1, 100, 1, 524288);
  const Result r = run(two_virtio_disks(), s.text());
  EXPECT_EQ(find(r, "vda")->ios, 1U);
  EXPECT_DOUBLE_EQ(find(r, "vda")->latency.mean_us, 138);  // Q -> the second D
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  EXPECT_EQ(r.stream.abandoned_bios, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(BioTracker, CompletionsTracedAfterTheRequestsEndTheBiosAsBefore) {
  // A kernel that also traces each bio's C after the request's: the C decide, as without D.
  const uint32_t vda = make_dev(253, 0);
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xc0, vda, 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, vda, 0, 4096);
  s.d(100 * kUs, 2, 0, 0xe0, vda, 0, 4096).c(112 * kUs, 2, 0, 0xc0).c(113 * kUs, 2, 0, 0xa0);
  s.rd(120 * kUs, 1, 100, 1, 4096);
  const Result r = run(two_virtio_disks(), s.text());
  EXPECT_EQ(find(r, "vda")->ios, 1U);
  EXPECT_DOUBLE_EQ(find(r, "vda")->latency.mean_us, 100);  // Q -> its C
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
}

TEST(BioTracker, UnknownCompletionsAndReadEndsAreLoss) {
  Stream s;
  s.c(1 * kUs, 0, 0, 0xdead).rd(2 * kUs, 0, 100, 77);
  const Result r = run(two_rams(), s.text());
  EXPECT_EQ(r.loss.unmatched_completions, 2U);
  EXPECT_EQ(r.stream.untraced_split_completions, 0U);
}

// md completes a bio it split at a chunk boundary (no X: never seen start) right after the
// member bio. A disk's interrupt may land in between on the same CPU, with its own D and its
// own owed completion: both unknown Cs are md's, not loss (before: the second one was).
TEST(BioTracker, SplitCompletionsAfterAnInterruptsEventsAreStillMdsNotLoss) {
  const uint32_t vda = make_dev(253, 0);
  const uint32_t vdb = make_dev(253, 16);
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xc0, vda, 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xc0, vda, 0, 4096);
  s.rs(13 * kUs, 1, 200, 2, 524288).q(14 * kUs, 1, 200, 0xa1, kMd0, 1024, 4096);
  s.m(15 * kUs, 1, 200, 0xc1, vdb, 0, 4096, kMd0, 1024).q(16 * kUs, 1, 200, 0xc1, vdb, 0, 4096);
  s.i(17 * kUs, 1, 200, 0xe1, vdb, 0, 4096, 0xc1);
  s.c(50 * kUs, 0, 100, 0xc0);                // read 1's member bio, in its thread
  s.d(51 * kUs, 0, 100, 0xe1, vdb, 0, 4096);  // vdb's interrupt ends read 2's member bio
  s.c(52 * kUs, 0, 100, 0xf1);                // md: read 2's split part
  s.c(53 * kUs, 0, 100, 0xf0);                // md: read 1's split part
  s.c(54 * kUs, 0, 100, 0xa0).c(55 * kUs, 0, 100, 0xa1);
  s.rd(60 * kUs, 0, 100, 1).rd(61 * kUs, 1, 200, 2);
  const Result r = run(two_virtio_disks(), s.text());
  EXPECT_EQ(r.stream.untraced_split_completions, 2U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
}

TEST(BioTracker, QueuesWithoutAReadCountOnTheDeviceOnly) {
  // The kernel's partition scan at open: no read is open on its thread.
  Stream s;
  s.q(1 * kUs, 0, 163, 0xa0, kMd0, 0, 4096)
      .m(2 * kUs, 0, 163, 0xc0, ram(0), 0, 4096, kMd0, 0)
      .q(3 * kUs, 0, 163, 0xc0, ram(0), 0, 4096)
      .c(4 * kUs, 0, 163, 0xc0)
      .c(5 * kUs, 0, 163, 0xa0);
  const Result r = run(two_rams(), s.text());
  EXPECT_EQ(find(r, "md0")->ios, 1U);
  EXPECT_EQ(find(r, "ram0")->ios, 1U);
  EXPECT_EQ(r.requests.count, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
}

TEST(BioTracker, RemapWithoutQueueDwellsFromTheRemap) {
  Stream s;
  s.q(1 * kUs, 0, 1, 0xa0, kMd0, 0, 4096)
      .m(2 * kUs, 0, 1, 0xc0, ram(0), 0, 4096, kMd0, 0)
      .c(32 * kUs, 0, 1, 0xc0)
      .c(33 * kUs, 0, 1, 0xa0);
  const Result r = run(two_rams(), s.text());
  EXPECT_DOUBLE_EQ(find(r, "ram0")->latency.mean_us, 30);
}

TEST(BioTracker, DevicesOutsideTheStackAreNamedByNumber) {
  Stream s;
  s.q(1 * kUs, 0, 1, 0xa0, make_dev(8, 16), 0, 4096).c(9 * kUs, 0, 1, 0xa0);
  const Result r = run(two_rams(), s.text());
  ASSERT_NE(find(r, "8:16"), nullptr);
  EXPECT_EQ(find(r, "8:16")->ios, 1U);
  EXPECT_EQ(r.devices.back().name, "8:16");
}

TEST(BioTracker, OlderKernelsRemapTheBioItself) {
  // No clone: the same address moves from md0 to ram0 and completes once for both.
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 4096);
  s.m(11 * kUs, 0, 100, 0xa0, ram(0), 0, 4096, kMd0, 0).q(12 * kUs, 0, 100, 0xa0, ram(0), 0, 4096);
  s.c(52 * kUs, 0, 100, 0xa0).rd(60 * kUs, 0, 100, 1);
  const Result r = run(two_rams(), s.text());
  EXPECT_EQ(find(r, "md0")->ios, 1U);
  EXPECT_EQ(find(r, "ram0")->ios, 1U);
  EXPECT_DOUBLE_EQ(find(r, "ram0")->latency.mean_us, 40);
  EXPECT_DOUBLE_EQ(find(r, "md0")->latency.mean_us, 42);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
}

TEST(BioTracker, DmSplittingABioKeepsItOneIoWithEveryPartsClone) {
  // dm-0 = striped(ram0, ram1), chunk 64 KiB: a 256 KiB read is cut at each chunk. dm sends
  // the front part on as a clone, trims the bio to the rest and traces the trimmed bio itself
  // as the split (X with BIO = PARENT), then submits it again (no new Q).
  const std::vector<StackDevice> stack{device("dm-0", dm(0), "striped(chunk=64k,ram*2)", ""),
                                       device("ram0", ram(0), "ram", "dm-0"),
                                       device("ram1", ram(1), "ram", "dm-0")};
  const uint64_t bio = 0xa0;
  Stream s;
  s.rs(0, 0, 100, 1, 0).q(10 * kUs, 0, 100, bio, dm(0), 0, 262144);
  for (uint64_t part = 0; part < 4; ++part) {
    const uint64_t t = (20 + 10 * part) * kUs;
    const uint64_t from = part * 128;
    const uint64_t clone = 0xc0 + part;
    if (part > 0) s.x(t, 0, 100, bio, bio, from, 262144 - from * 512);
    s.m(t + kUs, 0, 100, clone, ram(part % 2), part / 2 * 128, 65536, dm(0), from)
        .q(t + 2 * kUs, 0, 100, clone, ram(part % 2), part / 2 * 128, 65536);
  }
  // Each clone takes 100 us, the last (on ram1) 500 us.
  for (uint64_t part = 0; part < 4; ++part)
    s.c((22 + 10 * part + (part == 3 ? 500 : 100)) * kUs, 0, 100, 0xc0 + part);
  s.c(560 * kUs, 0, 100, bio).rd(570 * kUs, 0, 100, 1);

  Options options;
  options.slowest = 1;
  const Result r = run(stack, s.text(), options);
  EXPECT_EQ(find(r, "dm-0")->ios, 1U);
  EXPECT_EQ(find(r, "dm-0")->bytes, 262144U);
  EXPECT_DOUBLE_EQ(find(r, "dm-0")->latency.mean_us, 550);
  EXPECT_EQ(find(r, "ram0")->ios, 2U);
  EXPECT_EQ(find(r, "ram1")->ios, 2U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.stream.abandoned_bios, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  ASSERT_EQ(r.slowest.size(), 1U);
  // The critical path: the last part's clone, on ram1.
  EXPECT_EQ(devices_of(r.slowest[0]), (std::vector<std::string>{"dm-0", "ram1"}));
}

}  // namespace
}  // namespace iotap::engine::testing

namespace iotap::engine::testing {
namespace {

// Hundreds of reads in flight on the array at once (past the point where a device's bios in
// flight are indexed by sector), twice (the index is dropped when they end, and made again):
// every remap still joins the smallest bio containing its FROM_SECTOR, near or far before it.
TEST(BioTracker, HundredsInFlightOnOneDeviceJoinAsAFewDo) {
  constexpr uint64_t kReads = 300;
  Stream s;
  uint64_t t = 0;
  for (uint64_t wave = 0; wave < 2; ++wave) {
    const uint64_t first = wave * kReads;
    auto address = [&](uint64_t read, uint64_t which) { return (read + 1) << 8U | which; };
    for (uint64_t i = first; i < first + kReads; ++i) {
      // A 1 MiB root at its own 2048 sectors, and its front half split off.
      const int tid = static_cast<int>(1000 + i);
      s.rs(t += kUs, 0, tid, i + 1, 0);
      s.q(t += kUs, 0, tid, address(i, 0xa), kMd0, (i - first) * 2048, 1048576);
      s.x(t += kUs, 0, tid, address(i, 0xb), address(i, 0xa), (i - first) * 2048, 524288);
    }
    for (uint64_t i = first; i < first + kReads; ++i) {
      // Its first chunk (inside the part and the root: the part is the smaller) to ram0, its
      // second (inside the root only, 1024 sectors past its start) to ram1.
      const int tid = static_cast<int>(1000 + i);
      const uint64_t on_array = (i - first) * 2048;
      const uint64_t on_member = (i - first) * 1024;
      s.m(t += kUs, 0, tid, address(i, 0xc), ram(0), on_member, 524288, kMd0, on_array);
      s.q(t += kUs, 0, tid, address(i, 0xc), ram(0), on_member, 524288);
      s.m(t += kUs, 0, tid, address(i, 0xd), ram(1), on_member, 524288, kMd0, on_array + 1024);
      s.q(t += kUs, 0, tid, address(i, 0xd), ram(1), on_member, 524288);
    }
    for (uint64_t k = 0; k < kReads; ++k) {
      const uint64_t i = first + kReads - 1 - k;  // the last queued ends first
      const int tid = static_cast<int>(1000 + i);
      for (const uint64_t which : {0xc, 0xb, 0xd, 0xa}) s.c(t += kUs, 0, tid, address(i, which));
      s.rd(t += kUs, 0, tid, i + 1);
    }
  }

  std::map<uint64_t, FinishedBio> bios;
  std::map<uint64_t, std::string> names;  // FinishedBio::device is a view into the engine
  Options options;
  options.finished_bio = [&](const FinishedBio& bio) {
    bios[bio.id] = bio;
    names[bio.id] = std::string(bio.device);
  };
  const Result r = run(two_rams(), s.text(), options);
  EXPECT_EQ(r.requests.count, 2 * kReads);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.remap_check.mismatches, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  size_t members = 0;
  for (const auto& [id, bio] : bios) {
    if (names[id] == "md0") continue;
    ++members;
    ASSERT_TRUE(bios.contains(bio.parent_id)) << names[id] << " bio " << id << " has no parent";
    const FinishedBio& parent = bios[bio.parent_id];
    EXPECT_EQ(names[bio.parent_id], "md0");
    EXPECT_EQ(parent.request_id, bio.request_id);
    const uint64_t read = bio.request_id - 1;
    EXPECT_EQ(parent.sector, (read % kReads) * 2048) << names[id] << " of read " << bio.request_id;
    // ram0's clone joins the 512 KiB part; ram1's the 1 MiB root.
    EXPECT_EQ(parent.bytes, names[id] == "ram0" ? 524288U : 1048576U)
        << names[id] << " of read " << bio.request_id;
  }
  EXPECT_EQ(members, 4 * kReads);
}

}  // namespace
}  // namespace iotap::engine::testing
