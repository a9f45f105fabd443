// Attribution on hand-written streams whose numbers are known.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

// md0 = raid0(ram0, dm-0), dm-0 = linear over ram1; chunk 1024 sectors, no data offset.
std::vector<StackDevice> stack() {
  auto s = raid0(1);
  s[0].md_members = {{"ram0", 0}, {"dm-0", 0}};
  s.push_back(device("dm-0", dm(0), "linear(ram)", "md0"));
  s.back().dm_table = {"0 1000000 linear 1:1 0"};
  s.push_back(device("ram1", ram(1), "ram", "dm-0"));
  return s;
}

// One read through md0 and dm-0 to ram1:
//   RS 0; Q md0 10; M/Q dm-0 12/13; M/Q ram1 5013/5014; C ram1 5034, dm-0 5040, md0 5045; RD 5100
std::string one_read() {
  Stream s;
  s.rs(0, 0, 100, 1, 524288, 4096)
      .q(10 * kUs, 0, 100, 0xa1, kMd0, 1024, 4096)
      .m(12 * kUs, 0, 100, 0xb1, dm(0), 0, 4096, kMd0, 1024)
      .q(13 * kUs, 0, 100, 0xb1, dm(0), 0, 4096)
      .m(5013 * kUs, 1, 51, 0xc1, ram(1), 0, 4096, dm(0), 0)
      .q(5014 * kUs, 1, 51, 0xc1, ram(1), 0, 4096)
      .c(5034 * kUs, 1, 0, 0xc1)
      .c(5040 * kUs, 1, 0, 0xb1)
      .c(5045 * kUs, 1, 0, 0xa1)
      .rd(5100 * kUs, 0, 100, 1, 4096);
  return s.text();
}

TEST(Attribution, ChargesEachLayerItsOwnTimeOnTheCriticalPath) {
  Options options;
  options.slowest = 1;
  const Result r = run(stack(), one_read(), options);
  ASSERT_EQ(r.requests.count, 1U);
  EXPECT_DOUBLE_EQ(r.requests.mean_us, 5100);
  ASSERT_EQ(r.layers.size(), 5U);
  const std::vector<std::pair<std::string, double>> want = {
      {"before submit", 10},        // RS -> Q on md0
      {"md", 8},                    // md0's 5035 less dm-0's 5027
      {"dm", 5007},                 // dm-0's 5027 less ram1's 20
      {"member device", 20},        // ram1's Q -> C
      {"completion back up", 55}};  // md0's C -> RD
  double shares = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.layers[i].name, want[i].first);
    EXPECT_NEAR(r.layers[i].mean_us, want[i].second, 1e-9) << want[i].first;
    EXPECT_NEAR(r.layers[i].share, want[i].second / 5100, 1e-12) << want[i].first;
    shares += r.layers[i].share;
  }
  EXPECT_NEAR(shares, 1, 1e-12);

  EXPECT_NEAR(find(r, "dm-0")->exclusive_us, 5007, 1e-9);
  EXPECT_NEAR(find(r, "md0")->exclusive_us, 8, 1e-9);
  EXPECT_NEAR(find(r, "ram1")->exclusive_us, 20, 1e-9);

  ASSERT_EQ(r.slowest.size(), 1U);
  const Waterfall& w = r.slowest[0];
  EXPECT_EQ(w.request_id, 1U);
  EXPECT_EQ(w.offset, 524288U);
  EXPECT_EQ(w.latency_ns, 5100 * kUs);
  struct Want {
    const char* layer;
    const char* device;
    uint64_t start_us, end_us;
  };
  const std::vector<Want> stages = {{"before submit", "", 0, 10},
                                    {"md", "md0", 10, 5045},
                                    {"dm", "dm-0", 13, 5040},
                                    {"member device", "ram1", 5014, 5034},
                                    {"completion back up", "", 5045, 5100}};
  ASSERT_EQ(w.stages.size(), stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    EXPECT_EQ(w.stages[i].layer, stages[i].layer);
    EXPECT_EQ(w.stages[i].device, stages[i].device);
    EXPECT_EQ(w.stages[i].start_ns, stages[i].start_us * kUs);
    EXPECT_EQ(w.stages[i].end_ns, stages[i].end_us * kUs);
  }
}

TEST(Attribution, TheChildThatCompletesLastIsTheCriticalOne) {
  // One root, two members: ram0 answers in 30 us, dm-0 (-> ram1) in 2 ms. The read waits for
  // dm-0; ram0's time overlaps it and is charged nowhere.
  Stream s;
  s.rs(0, 0, 100, 1, 0)
      .q(10 * kUs, 0, 100, 0xa0, kMd0, 0, 1048576)
      .m(11 * kUs, 0, 100, 0xc0, ram(0), 0, 524288, kMd0, 0)
      .q(12 * kUs, 0, 100, 0xc0, ram(0), 0, 524288)
      .m(13 * kUs, 0, 100, 0xd0, dm(0), 0, 524288, kMd0, 1024)
      .q(14 * kUs, 0, 100, 0xd0, dm(0), 0, 524288)
      .m(15 * kUs, 1, 51, 0xe0, ram(1), 0, 524288, dm(0), 0)
      .q(16 * kUs, 1, 51, 0xe0, ram(1), 0, 524288)
      .c(42 * kUs, 0, 100, 0xc0)
      .c(2014 * kUs, 1, 0, 0xe0)
      .c(2015 * kUs, 1, 0, 0xd0)
      .c(2016 * kUs, 1, 0, 0xa0)
      .rd(2020 * kUs, 1, 100, 1);
  const Result r = run(stack(), s.text());
  EXPECT_NEAR(r.layers[0].mean_us, 10, 1e-9);
  EXPECT_NEAR(r.layers[1].mean_us, 4 + 1, 1e-9);  // md0: 10..14 and 2015..2016
  EXPECT_NEAR(r.layers[2].mean_us, 2 + 1, 1e-9);  // dm-0: 14..16 and 2014..2015
  EXPECT_NEAR(r.layers[3].mean_us, 1998, 1e-9);   // ram1: 16..2014
  EXPECT_NEAR(r.layers[4].mean_us, 4, 1e-9);
  EXPECT_EQ(r.stream.late_events, 0U);
}

TEST(Attribution, SlowestKeepsTheNSlowestOnly) {
  Stream s;
  for (uint64_t i = 1; i <= 50; ++i) {
    const uint64_t t = i * 10 * kMs;
    const uint64_t latency = ((i * 37) % 50 + 1) * 10 * kUs;  // a permutation of 10..500 us
    s.rs(t, 0, 100, i, 0).q(t + kUs, 0, 100, 0xa0, kMd0, 0, 4096);
    s.m(t + 2 * kUs, 0, 100, 0xc0, ram(0), 0, 4096, kMd0, 0)
        .q(t + 3 * kUs, 0, 100, 0xc0, ram(0), 0, 4096);
    s.c(t + latency - 2 * kUs, 0, 100, 0xc0)
        .c(t + latency - kUs, 0, 100, 0xa0)
        .rd(t + latency, 0, 100, i);
  }
  Options options;
  options.slowest = 3;
  const Result r = run(stack(), s.text(), options);
  ASSERT_EQ(r.slowest.size(), 3U);
  EXPECT_EQ(r.slowest[0].latency_ns, 500 * kUs);
  EXPECT_EQ(r.slowest[1].latency_ns, 490 * kUs);
  EXPECT_EQ(r.slowest[2].latency_ns, 480 * kUs);
  EXPECT_EQ(r.requests.count, 50U);
  EXPECT_DOUBLE_EQ(r.requests.max_us, 500);
}

// A read none of whose bios completed (a page-cache hit) spent no time below: it is counted
// as having reached no device, and the layers (time spent below, per request that reached a
// device) leave it out rather than call its whole time "before submit".
TEST(Attribution, AReadWithoutBiosReachedNoDeviceAndIsLeftOutOfTheLayers) {
  Stream s;
  s.rs(0, 0, 100, 1, 0).rd(7 * kUs, 0, 100, 1);
  const Result r = run(stack(), s.text());
  EXPECT_EQ(r.requests.count, 1U);
  EXPECT_EQ(r.requests_without_block_io, 1U);
  for (const auto& layer : r.layers) {
    EXPECT_EQ(layer.mean_us, 0) << layer.name;
    EXPECT_EQ(layer.share, 0) << layer.name;
  }
}

}  // namespace
}  // namespace iotap::engine::testing
