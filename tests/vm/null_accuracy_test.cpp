// Accuracy against a latency known exactly: a null_blk disk completes each request on an
// hrtimer set to its completion_nsec, so a member made as null(lat=D) takes D plus what any
// member takes. iotap's mean for it must be within 5% of D plus the ram members' mean, for D in
// 1, 2, 5 and 20 ms: one guest, one stack with the four of them beside four ram disks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"

namespace iotap::test {
namespace {

using nlohmann::json;

TEST(NullBlkAccuracy, EachNullMembersMeanIsItsLatencyPlusAHealthyMembers) {
  require_guest_tools();
  const TempDir tmp("iotap-null-accuracy-test");
  // 256 reads of 1 MiB over 8 members with 512 KiB chunks: 64 ios on each member.
  const auto run = run_iotap(
      {"attribute", "--json", "--target", "vm", "--stack",
       "raid0(ram*4, null(lat=1ms), null(lat=2ms), null(lat=5ms), null(lat=20ms))", "-c",
       "block_hasher -d __DEV__ -b 1048576 -t 4 -n 256 --direct"},
      tmp.path());
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
      const double error = (mean - expected) / expected;
      // The numbers of docs/engine.md's table, from every run.
      std::printf("null-accuracy: %s | iotap %.1f us | D + healthy %.1f us | %+.2f%% | %d ios\n",
                  spec.c_str(), mean, expected, 100 * error, d["ios"].get<int>());
      EXPECT_GE(d["ios"].get<int>(), 48) << spec;
      EXPECT_LE(std::abs(error), 0.05) << spec << ": iotap " << mean << " us, expected "
                                       << expected << " us";
    }
  }
  EXPECT_EQ(checked, 4) << result["devices"].dump();
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << "iotap left files in its temp directory";
}

}  // namespace
}  // namespace iotap::test
