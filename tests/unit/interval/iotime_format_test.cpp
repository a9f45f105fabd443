#include "iotap/interval/iotime_format.h"

#include <gtest/gtest.h>

#include <map>

#include "recorded.h"

namespace iotap::interval {
namespace {

using test::incident_stack;
using test::read_blocks;
using test::recorded;

std::vector<Json> recorded_json() {
  std::vector<Json> lines;
  for (const auto& block : read_blocks(recorded("iotime_interval_incident.txt"), 512).blocks)
    lines.push_back(iotime_json(block, incident_stack()));
  return lines;
}

TEST(IotimeReport, TheWholeRunShowsTheDelayedMemberAgainstItsSiblings) {
  const Json whole = recorded_json().back();
  EXPECT_EQ(whole["kind"], "whole_run");
  EXPECT_TRUE(whole["interval"].is_null());
  std::map<std::string, Json> by_name;
  for (const auto& device : whole["devices"]) by_name[device["name"]] = device;
  ASSERT_EQ(by_name.size(), 10U);  // md0, its 8 members, and ram7 under dm-0
  const Json& delayed = by_name["dm-0"];
  EXPECT_EQ(delayed["spec"], "delay(ram,50ms)");
  EXPECT_EQ(delayed["parent"], "md0");
  EXPECT_EQ(delayed["rw"], "R");
  EXPECT_GE(delayed["avg_us"].get<uint64_t>(), 50000U);  // dm-delay's 50 ms, at least
  for (int i = 0; i < 7; ++i) {
    const Json& sibling = by_name["ram" + std::to_string(i)];
    EXPECT_EQ(sibling["parent"], "md0");
    EXPECT_GT(delayed["avg_us"].get<uint64_t>(), 100 * sibling["avg_us"].get<uint64_t>());
  }
  EXPECT_EQ(by_name["ram7"]["parent"], "dm-0");
  EXPECT_TRUE(by_name["md0"]["parent"].is_null());
  // Totals and averages agree, as iotime.stp computes them.
  for (const auto& [name, device] : by_name) {
    const auto count = device["count"].get<uint64_t>();
    EXPECT_NEAR(device["avg_us"].get<double>(),
                static_cast<double>(device["total_us"].get<uint64_t>()) / count, 1.0)
        << name;
  }
}

TEST(IotimeReport, TheIntervalsAddUpToTheWholeRun) {
  const auto lines = recorded_json();
  std::map<std::string, uint64_t> count;
  std::map<std::string, uint64_t> total_us;
  size_t intervals = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["kind"], "interval");
    EXPECT_EQ(lines[i]["interval"], i + 1);
    ++intervals;
    for (const auto& device : lines[i]["devices"]) {
      count[device["name"]] += device["count"].get<uint64_t>();
      total_us[device["name"]] += device["total_us"].get<uint64_t>();
    }
  }
  EXPECT_GE(intervals, 2U);
  for (const auto& device : lines.back()["devices"]) {
    const std::string name = device["name"];
    EXPECT_EQ(count[name], device["count"].get<uint64_t>()) << name;
    // Each table rounds its own total down to a microsecond.
    EXPECT_LE(total_us[name], device["total_us"].get<uint64_t>()) << name;
    EXPECT_GE(total_us[name] + intervals, device["total_us"].get<uint64_t>()) << name;
  }
}

TEST(IotimeReport, DevicesOutsideTheStackHaveNoSpec) {
  TableBlock block;
  block.kind = TableBlock::Kind::kInterval;
  block.index = 3;
  block.from_seconds = 0.5;
  block.to_seconds = 0.75;
  block.lines = {"device  rw   total (us)    count   avg (us)",
                 "   vda   W          900        3"
                 "        300"};
  const Json json = iotime_json(block, incident_stack());
  EXPECT_EQ(json["interval"], 3);
  EXPECT_EQ(json["from_s"], 0.5);
  ASSERT_EQ(json["devices"].size(), 1U);
  EXPECT_EQ(json["devices"][0]["name"], "vda");
  EXPECT_TRUE(json["devices"][0]["spec"].is_null());
  EXPECT_EQ(json["devices"][0]["rw"], "W");
}

}  // namespace
}  // namespace iotap::interval
