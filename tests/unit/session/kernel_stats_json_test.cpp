// devices[].kernel_stats in attribute's and diagnose's JSON (session/attribution_run.h).
#include <gtest/gtest.h>

#include "iotap/session/attribution_run.h"

namespace iotap::session {
namespace {

TEST(KernelStatsJson, OnlyDevicesTheKernelCountedGetThem) {
  Json devices = Json::array({{{"name", "md0"}}, {{"name", "dm-0"}}, {{"name", "ram0"}}});
  KernelDiskStats stats;
  stats["dm-0"].reads = 80;
  stats["dm-0"].read_ms = 1600;
  stats["dm-7"].reads = 1;  // not in the report: ignored
  add_kernel_stats(devices, stats);
  EXPECT_FALSE(devices[0].contains("kernel_stats"));
  ASSERT_TRUE(devices[1].contains("kernel_stats"));
  EXPECT_EQ(devices[1]["kernel_stats"]["reads"], 80);
  EXPECT_EQ(devices[1]["kernel_stats"]["read_mean_us"], 20000.0);
  EXPECT_FALSE(devices[2].contains("kernel_stats")) << "brd keeps no statistics";
  EXPECT_EQ(devices.size(), 3U);
}

}  // namespace
}  // namespace iotap::session
