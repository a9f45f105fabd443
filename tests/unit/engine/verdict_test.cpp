// The verdict on generated streams: reads striped over an array's members, each member a chain
// of devices with known time in each.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

struct Level {
  uint32_t dev;
  uint64_t own_ns;  // time spent in this device before handing the bio down (or serving it)
};
using Path = std::vector<Level>;

// `reads` reads, one after another, read k hitting member k % paths.size().
std::string striped(const std::vector<Path>& paths, int reads) {
  Stream s;
  uint64_t t = 0;
  uint64_t bio = 0x1000;
  for (int k = 0; k < reads; ++k) {
    const Path& path = paths[k % paths.size()];
    const uint64_t chunk = k;
    const uint64_t sector = (chunk / paths.size()) * 1024;
    const uint64_t root = ++bio;
    s.rs(t, 0, 100, k + 1, chunk * 524288, 4096).q(t + kUs, 0, 100, root, kMd0, chunk * 1024, 4096);
    uint64_t at = t + 2 * kUs;
    uint32_t from = kMd0;
    uint64_t from_sector = chunk * 1024;
    std::vector<uint64_t> bios;
    for (const Level& level : path) {
      bios.push_back(++bio);
      s.m(at, 0, 100, bio, level.dev, sector, 4096, from, from_sector)
          .q(at, 0, 100, bio, level.dev, sector, 4096);
      from = level.dev;
      from_sector = sector;
      at += level.own_ns;
    }
    for (auto it = bios.rbegin(); it != bios.rend(); ++it, at += kUs) s.c(at, 0, 100, *it);
    s.c(at, 0, 100, root).rd(at + kUs, 0, 100, k + 1);
    t = at + 100 * kUs;
  }
  return s.text();
}

Path fast(uint32_t n, uint64_t us = 30) {
  return {{ram(n), us * kUs}};
}

TEST(Verdict, NamesTheDelayedMemberOfTheIncident) {
  auto stack = raid0(7);
  stack[0].md_members.emplace_back("dm-0", 4096);
  stack.push_back(device("dm-0", dm(0), "delay(ram,50ms)", "md0"));
  stack.push_back(device("ram7", ram(7), "ram", "dm-0"));
  std::vector<Path> paths;
  for (uint32_t i = 0; i < 7; ++i) paths.push_back(fast(i, 25 + i * 3));
  paths.push_back({{dm(0), 50 * kMs}, {ram(7), 30 * kUs}});

  const Result r = run(stack, striped(paths, 64));
  ASSERT_EQ(r.slow_members.size(), 1U);
  const SlowMember& s = r.slow_members[0];
  EXPECT_EQ(s.name, "dm-0");
  EXPECT_EQ(s.spec, "delay(ram,50ms)");
  EXPECT_EQ(s.parent, "md0");
  EXPECT_EQ(s.member, "dm-0");
  EXPECT_EQ(s.siblings, 7U);
  EXPECT_NEAR(s.mean_us, 50'031, 1e-6);       // its 50 ms, ram7's 30 us, 1 us back up
  EXPECT_NEAR(s.siblings_mean_us, 34, 1e-6);  // ram0..ram6: 25, 28, ... 43 us
  EXPECT_GT(s.share_of_slowest, 0.99);
  EXPECT_LE(s.share_of_slowest, 1.0);
  EXPECT_GE(s.slowest_requests, 7U);  // the slowest tenth of 64 reads, whole latency buckets
}

TEST(Verdict, AHealthyArrayHasNoSlowMember) {
  // Members differ by up to 10 times, but by far less than a millisecond: no alarm.
  const auto stack = raid0(8);
  std::vector<Path> paths;
  for (uint32_t i = 0; i < 8; ++i) paths.push_back(fast(i, i == 5 ? 400 : 30 + i * 5));
  const Result r = run(stack, striped(paths, 64));
  EXPECT_TRUE(r.slow_members.empty());
  EXPECT_TRUE(r.failing_members.empty());
}

TEST(Verdict, OneOutlierDoesNotMakeAHealthyMemberSlow) {
  // Seen in the guest on a loaded host: one of ram3's 80 ios took 60 ms (its vCPU preempted),
  // lifting its mean to 15 times its siblings' while its median stayed like theirs.
  const auto stack = raid0(8);
  std::vector<Path> paths;
  for (uint32_t k = 0; k < 64; ++k)
    paths.push_back(k == 3 ? Path{{ram(3), 60 * kMs}} : fast(k % 8));
  const Result r = run(stack, striped(paths, 64));
  EXPECT_TRUE(r.slow_members.empty()) << r.slow_members.front().name;
}

TEST(Verdict, ASlowDiskIsNamedThroughSingleMemberDevices) {
  // raid0(ram*3, linear(delay(ram, 20ms))): the linear device is the slow member, but the
  // delay beneath it carries the time.
  auto stack = raid0(3);
  stack[0].md_members.emplace_back("dm-1", 4096);
  stack.push_back(device("dm-1", dm(1), "linear(delay(ram,20ms))", "md0"));
  stack.push_back(device("dm-0", dm(0), "delay(ram,20ms)", "dm-1"));
  stack.push_back(device("ram3", ram(3), "ram", "dm-0"));
  std::vector<Path> paths = {
      fast(0), fast(1), fast(2), {{dm(1), 10 * kUs}, {dm(0), 20 * kMs}, {ram(3), 30 * kUs}}};
  const Result r = run(stack, striped(paths, 32));
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].name, "dm-0");
  EXPECT_EQ(r.slow_members[0].parent, "dm-1");
  EXPECT_EQ(r.slow_members[0].member, "dm-1");
  EXPECT_EQ(r.slow_members[0].array, "md0");
  EXPECT_EQ(r.slow_members[0].siblings, 3U);
}

TEST(Verdict, TheDiskItselfWhenItCarriesTheTime) {
  // linear(ram) over a slow disk: the disk is named, not the linear device.
  auto stack = raid0(3);
  stack[0].md_members.emplace_back("dm-0", 4096);
  stack.push_back(device("dm-0", dm(0), "linear(virtio)", "md0"));
  stack.push_back(device("vda", make_dev(252, 0), "virtio", "dm-0"));
  std::vector<Path> paths = {
      fast(0), fast(1), fast(2), {{dm(0), 10 * kUs}, {make_dev(252, 0), 8 * kMs}}};
  const Result r = run(stack, striped(paths, 32));
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].name, "vda");
  EXPECT_EQ(r.slow_members[0].member, "dm-0");
}

TEST(Verdict, ASlowLegOfRaid1) {
  std::vector<StackDevice> stack{device("md0", kMd0, "raid1(ram,delay(ram,20ms))", "")};
  stack[0].md_level = "raid1";
  stack[0].md_members = {{"ram0", 2048}, {"dm-0", 2048}};
  stack.push_back(device("ram0", ram(0), "ram", "md0"));
  stack.push_back(device("dm-0", dm(0), "delay(ram,20ms)", "md0"));
  stack.push_back(device("ram1", ram(1), "ram", "dm-0"));
  const Result r = run(stack, striped({fast(0), {{dm(0), 20 * kMs}, {ram(1), 30 * kUs}}}, 20));
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].name, "dm-0");
  EXPECT_EQ(r.slow_members[0].siblings, 1U);
}

TEST(Verdict, TwoSlowMembersAtOnce) {
  auto stack = raid0(6);
  for (uint32_t i = 0; i < 2; ++i) {
    stack[0].md_members.emplace_back("dm-" + std::to_string(i), 4096);
    stack.push_back(device("dm-" + std::to_string(i), dm(i), "delay(ram,10ms)", "md0"));
    stack.push_back(
        device("ram" + std::to_string(6 + i), ram(6 + i), "ram", "dm-" + std::to_string(i)));
  }
  std::vector<Path> paths;
  for (uint32_t i = 0; i < 6; ++i) paths.push_back(fast(i));
  paths.push_back({{dm(0), 10 * kMs}, {ram(6), 30 * kUs}});
  paths.push_back({{dm(1), 20 * kMs}, {ram(7), 30 * kUs}});
  const Result r = run(stack, striped(paths, 64));
  ASSERT_EQ(r.slow_members.size(), 2U);
  // The one with the larger share of the slowest reads first.
  EXPECT_EQ(r.slow_members[0].name, "dm-1");
  EXPECT_EQ(r.slow_members[1].name, "dm-0");
  EXPECT_EQ(r.slow_members[0].siblings, 7U);
}

}  // namespace
}  // namespace iotap::engine::testing
