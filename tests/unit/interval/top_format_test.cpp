#include "iotap/interval/top_format.h"

#include <gtest/gtest.h>

#include <map>

#include "recorded.h"

namespace iotap::interval {
namespace {

using test::incident_stack;
using test::read_blocks;
using test::recorded;

// The recorded run's stap reported "skipped probes: 2": two hits that an interval missed while
// the timer printed, which the whole run's own handlers still counted.
constexpr uint64_t kRecordedSkipped = 2;

std::vector<TableBlock> recorded_blocks() {
  return read_blocks(recorded("top_interval_incident.txt"), 333).blocks;
}

TEST(TopReport, ReadsDevicesAndProbesOfTheWholeRun) {
  const TopTable table = parse_top_table(recorded_blocks().back().lines);
  std::map<std::string, TopProbeRow> probes;
  for (const auto& row : table.probes) probes[row.probe] = row;
  // block_hasher -t 8 -n 64: one run, 8 threads, 64 reads, each hashed.
  EXPECT_EQ(probes["run_start"].hits, 1U);
  EXPECT_EQ(probes["thread_start"].hits, 8U);
  EXPECT_EQ(probes["thread_end"].hits, 8U);
  for (const char* per_read : {"read_start", "read_done", "hash_start", "hash_done"})
    EXPECT_EQ(probes[per_read].hits, 64U) << per_read;
  std::map<std::string, TopDeviceRow> devices;
  for (const auto& row : table.devices) devices[row.device] = row;
  ASSERT_EQ(devices.size(), 10U);
  // Every 1 MiB read is cut at md0's 512k chunks: each member gets more submits than md0.
  EXPECT_GE(devices["md0"].submits, 64U);
  for (int i = 0; i < 7; ++i)
    EXPECT_GT(devices["ram" + std::to_string(i)].submits, devices["md0"].submits);
  EXPECT_EQ(devices["dm-0"].submits, devices["ram7"].submits);
}

TEST(TopReport, IntervalsAddUpToTheWholeRunLessWhatWasSkipped) {
  const auto blocks = recorded_blocks();
  ASSERT_GE(blocks.size(), 3U);
  std::map<std::string, uint64_t> hits;
  std::map<std::string, uint64_t> submits;
  for (size_t i = 0; i + 1 < blocks.size(); ++i) {
    const TopTable table = parse_top_table(blocks[i].lines);
    for (const auto& row : table.probes) hits[row.probe] += row.hits;
    for (const auto& row : table.devices) submits[row.device] += row.submits;
  }
  const TopTable whole = parse_top_table(blocks.back().lines);
  uint64_t short_by = 0;
  for (const auto& row : whole.probes) {
    EXPECT_LE(hits[row.probe], row.hits) << row.probe;
    short_by += row.hits - hits[row.probe];
  }
  for (const auto& row : whole.devices) {
    EXPECT_LE(submits[row.device], row.submits) << row.device;
    short_by += row.submits - submits[row.device];
  }
  EXPECT_LE(short_by, kRecordedSkipped);
}

TEST(TopReport, RatesArePerSecondOfTheTablesSpan) {
  for (const auto& block : recorded_blocks()) {
    const double seconds = block.to_seconds - block.from_seconds;
    for (const auto& row : parse_top_table(block.lines).probes) {
      // The script rounds down; the span is printed to the millisecond.
      EXPECT_NEAR(static_cast<double>(row.hits_per_second), row.hits / seconds,
                  1.0 + row.hits / seconds * 0.01)
          << block.text;
    }
  }
}

TEST(TopReport, JsonCarriesTheSpanDevicesAndProbes) {
  const auto blocks = recorded_blocks();
  const Json json = top_json(blocks.front(), incident_stack());
  EXPECT_EQ(json["kind"], "interval");
  EXPECT_EQ(json["interval"], 1);
  EXPECT_EQ(json["from_s"], 0.0);
  ASSERT_FALSE(json["devices"].empty());
  for (const auto& device : json["devices"]) {
    EXPECT_FALSE(device["spec"].is_null()) << device;
    EXPECT_TRUE(device.contains("submits_per_s"));
    EXPECT_TRUE(device.contains("kib_per_s"));
  }
  ASSERT_FALSE(json["probes"].empty());
  EXPECT_TRUE(json["probes"][0].contains("hits_per_s"));
}

TEST(TopReport, SkipsLinesOutsideItsSections) {
  const TopTable table = parse_top_table({"md0 1 2 3", "device   submits  submits/s      KiB/s",
                                          "  md0   5   20   40", "garbage here", "ram0 x 1 2",
                                          "probe  hits  hits/s", "read_start 4 16", "a 1 2 3"});
  ASSERT_EQ(table.devices.size(), 1U);
  EXPECT_EQ(table.devices[0].device, "md0");
  EXPECT_EQ(table.devices[0].kib_per_second, 40U);
  ASSERT_EQ(table.probes.size(), 1U);
  EXPECT_EQ(table.probes[0].probe, "read_start");
  EXPECT_EQ(table.probes[0].hits_per_second, 16U);
}

}  // namespace
}  // namespace iotap::interval
