// Accuracy against latencies the test did not compute: null_blk disks with an hrtimer
// completion of D = 1, 2, 5 and 20 ms (one guest, one stack with the four of them beside four ram
// disks). Two ground truths:
//  - D itself: no io on a null(lat=D) disk can take less than D;
//  - the kernel's own accounting of each request (blk-mq, nanosecond clock, /sys/block/nullbN/
//    stat read ticks over reads). The kernel starts a request's clock when it allocates the
//    request: after the bio's queueing (iotap's Q), before its issue to the driver (iotap's I).
//    So the kernel's mean must lie between iotap's issue-to-completion mean (service_us) and its
//    queue-to-completion mean (latency_us), within 5% either side.
// The issue asked for "within 5% of D plus the healthy members' mean". Under TCG the hrtimer
// fires about 1 ms late, and the kernel's own numbers show it (docs/engine.md, "Accuracy against
// a known latency"): that bar holds at 20 ms only, and is printed for every D.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

using NullBlkAccuracy = VmFixture;

TEST_F(NullBlkAccuracy, EachNullMembersMeanIsAtLeastItsLatencyAndAgreesWithTheKernel) {
  // 256 reads of 1 MiB over 8 members with 512 KiB chunks: 64 ios on each member.
  const auto run =
      iotap({"attribute", "--json", "--target", "vm", "--stack",
             "raid0(ram*4, null(lat=1ms), null(lat=2ms), null(lat=5ms), null(lat=20ms))", "-c",
             "block_hasher -d __DEV__ -b 1048576 -t 4 -n 256 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  double healthy_sum = 0;
  int healthy = 0;
  for (const auto& d : result["devices"]) {
    if (d["spec"] == "ram" && d["parent"] == "md0") {
      healthy_sum += d["latency_us"]["mean"].get<double>();
      ++healthy;
    }
  }
  ASSERT_EQ(healthy, 4) << result["devices"].dump();
  const double healthy_mean = healthy_sum / healthy;
  int checked = 0;
  for (const int ms : {1, 2, 5, 20}) {
    const std::string spec = "null(lat=" + std::to_string(ms) + "ms)";
    for (const auto& d : result["devices"]) {
      if (d["spec"] != spec) continue;
      ++checked;
      const double mean = d["latency_us"]["mean"];
      const double expected = ms * 1000.0 + healthy_mean;
      ASSERT_TRUE(d.contains("kernel_stats")) << d.dump();
      const json& kernel = d["kernel_stats"];
      const double kernel_mean =
          kernel["read_ms"].get<double>() * 1000 / kernel["reads"].get<double>();
      const double error = (mean - kernel_mean) / kernel_mean;
      // The numbers of docs/engine.md's table, from every run.
      std::printf(
          "null-accuracy: %s | iotap %.1f us | kernel %.1f us | %+.2f%% | D + healthy %.1f us "
          "| %+.2f%% | %d ios, kernel %d\n",
          spec.c_str(), mean, kernel_mean, 100 * error, expected,
          100 * (mean - expected) / expected, d["ios"].get<int>(), kernel["reads"].get<int>());
      const double service = d["service_us"]["mean"];
      std::printf("null-accuracy: %s | iotap service (I to D) %.1f us\n", spec.c_str(), service);
      EXPECT_GE(mean, ms * 1000.0) << spec;
      EXPECT_GE(mean, 0.95 * kernel_mean)
          << spec << ": iotap Q to C " << mean << " us, kernel " << kernel_mean << " us";
      EXPECT_LE(service, 1.05 * kernel_mean)
          << spec << ": iotap I to D " << service << " us, kernel " << kernel_mean << " us";
      // Each of md's bios is one request here (124 KiB at most, under null_blk's limit): the
      // kernel's count and iotap's agree. null_blk completes in hardirq context; before stap's
      // INTERRUPTIBLE=0, 2% to 15% of those completions were dropped while another probe ran.
      EXPECT_EQ(d["ios"].get<int>(), kernel["reads"].get<int>()) << spec;
      EXPECT_GE(d["ios"].get<int>(), 64) << spec;
    }
  }
  EXPECT_EQ(checked, 4) << result["devices"].dump();
}

}  // namespace
}  // namespace iotap::test
