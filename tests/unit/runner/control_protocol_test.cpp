#include "iotap/runner/control_protocol.h"

#include <gtest/gtest.h>

namespace iotap::runner {
namespace {

using Kind = ControlLine::Kind;
using Members = std::vector<std::pair<std::string, uint64_t>>;

TEST(ControlLine, StatusKeepsTheWholePhrase) {
  const ControlLine line = parse_control_line("status reading the kernel's symbol table");
  EXPECT_EQ(line.kind, Kind::kStatus);
  EXPECT_EQ(line.text, "reading the kernel's symbol table");
}

TEST(ControlLine, NodeNamesTheDeviceAndItsParent) {
  const ControlLine line = parse_control_line("node 8 0 dm-0 253:0 delay(ram,50ms)");
  ASSERT_EQ(line.kind, Kind::kNode);
  EXPECT_EQ(line.node.id, 8);
  EXPECT_EQ(line.node.parent, 0);
  EXPECT_EQ(line.node.device.name, "dm-0");
  EXPECT_EQ(line.node.device.dev, make_dev(253, 0));
  EXPECT_EQ(line.node.device.spec, "delay(ram,50ms)");
}

TEST(ControlLine, TheTopNodeHasNoParent) {
  const ControlLine line = parse_control_line("node 0 -1 md0 9:0 raid0(ram*2)");
  ASSERT_EQ(line.kind, Kind::kNode);
  EXPECT_EQ(line.node.parent, -1);
  EXPECT_EQ(dev_major(line.node.device.dev), 9U);
}

TEST(ControlLine, MdListsMembersInSlotOrderWithTheirOffsets) {
  const ControlLine line = parse_control_line("md md0 raid1 0 0 ram1:2048 dm-0:8");
  ASSERT_EQ(line.kind, Kind::kMd);
  EXPECT_EQ(line.name, "md0");
  EXPECT_EQ(line.node.device.md_level, "raid1");
  EXPECT_EQ(line.node.device.chunk_bytes, 0U);
  EXPECT_EQ(line.node.device.md_members, (Members{{"ram1", 2048}, {"dm-0", 8}}));
}

TEST(ControlLine, MdCarriesItsLayout) {
  // raid10 near copies n2: md's layout 0x102 (near copies in the low byte, far in the next).
  const ControlLine line = parse_control_line("md md1 raid10 524288 258 ram0:2048 ram1:2048");
  ASSERT_EQ(line.kind, Kind::kMd);
  EXPECT_EQ(line.node.device.md_level, "raid10");
  EXPECT_EQ(line.node.device.md_layout, 258);
  EXPECT_EQ(line.node.device.md_members.size(), 2U);
  GuestReport report;
  report.feed("node 0 -1 md1 9:1 raid10(ram*2)");
  report.feed("md md1 raid10 524288 258 ram0:2048 ram1:2048");
  EXPECT_EQ(report.devices().at(0).md_layout, 258);
}

TEST(ControlLine, DmKeepsTheTableLineWhole) {
  const ControlLine line = parse_control_line("dm dm-0 0 131072 delay 1:7 0 50");
  ASSERT_EQ(line.kind, Kind::kDm);
  EXPECT_EQ(line.name, "dm-0");
  EXPECT_EQ(line.text, "0 131072 delay 1:7 0 50");
}

TEST(ControlLine, DmclearNamesTheDevice) {
  const ControlLine line = parse_control_line("dmclear dm-3");
  ASSERT_EQ(line.kind, Kind::kDmClear);
  EXPECT_EQ(line.name, "dm-3");
}

TEST(ControlLine, ExitCarriesStaprunsStatus) {
  const ControlLine line = parse_control_line("exit 125");
  ASSERT_EQ(line.kind, Kind::kExit);
  EXPECT_EQ(line.exit_status, 125);
}

TEST(ControlLine, ErrorKeepsTheWholeMessage) {
  const ControlLine line = parse_control_line("error mdadm could not create /dev/md0 for raid0");
  ASSERT_EQ(line.kind, Kind::kError);
  EXPECT_EQ(line.text, "mdadm could not create /dev/md0 for raid0");
}

TEST(ControlLine, AnUnknownKindOrAnEmptyLineIsUnknown) {
  EXPECT_EQ(parse_control_line("hello there").kind, Kind::kUnknown);
  EXPECT_EQ(parse_control_line("").kind, Kind::kUnknown);
  EXPECT_EQ(parse_control_line("Status running").kind, Kind::kUnknown);
}

TEST(ControlLine, LinesThatLackTheirFieldsAreMalformed) {
  for (const char* text : {"node", "node 1 0 ram0 1:0", "node one 0 ram0 1:0 ram", "md",
                           "md md0 raid0", "md md0 raid0 big 0 ram0:0", "md md0 raid0 4096 ram0:0",
                           "dm", "dmclear", "exit", "exit done"}) {
    EXPECT_EQ(parse_control_line(text).kind, Kind::kMalformed) << text;
  }
}

TEST(ControlLine, ABadNumberInsideAFieldReadsAsZero) {
  const ControlLine node = parse_control_line("node 1 0 ram0 x:y ram");
  ASSERT_EQ(node.kind, Kind::kNode);
  EXPECT_EQ(node.node.device.dev, 0U);
  const ControlLine md = parse_control_line("md md0 raid0 65536 0 ram0 ram1:z");
  ASSERT_EQ(md.kind, Kind::kMd);
  EXPECT_EQ(md.node.device.md_members, (Members{{"ram0", 0}, {"ram1", 0}}));
}

TEST(GuestReport, BuildsTheStackFromItsLines) {
  GuestReport report;
  for (const char* line :
       {"status booted", "status building stack", "node 1 0 ram0 1:0 ram",
        "node 2 0 dm-0 253:0 error(ram)", "dm dm-0 0 131072 linear 1:1 0", "dmclear dm-0",
        "dm dm-0 0 131072 error", "node 0 -1 md0 9:0 raid1(ram,error(ram))",
        "md md0 raid1 0 0 ram0:0 dm-0:0", "status running"}) {
    report.feed(line);
  }
  const std::vector<StackDevice> devices = report.devices();
  ASSERT_EQ(devices.size(), 3U);
  EXPECT_EQ(devices[0].name, "md0") << "top first";
  EXPECT_EQ(devices[1].parent, "md0");
  const StackDevice* error_leg = find_device(devices, std::string_view("dm-0"));
  const StackDevice* ram = find_device(devices, std::string_view("ram0"));
  ASSERT_NE(error_leg, nullptr);
  ASSERT_NE(ram, nullptr);
  EXPECT_EQ(error_leg->dm_table, std::vector<std::string>{"0 131072 error"});
  EXPECT_EQ(devices[0].md_level, "raid1");
  EXPECT_EQ(devices[0].md_members, (Members{{"ram0", 0}, {"dm-0", 0}}));
  EXPECT_TRUE(ram->md_members.empty());
  EXPECT_EQ(report.phase(), "running");
  EXPECT_FALSE(report.exit_status().has_value());
  EXPECT_TRUE(report.error().empty());
}

TEST(GuestReport, PhaseIsBootingUntilTheFirstStatus) {
  GuestReport report;
  EXPECT_EQ(report.phase(), "booting");
  EXPECT_EQ(report.feed("status loading modules").kind, Kind::kStatus);
  EXPECT_EQ(report.phase(), "loading modules");
}

TEST(GuestReport, KeepsTheErrorAndTheExitStatus) {
  GuestReport report;
  report.feed("error no virtio-serial port for the output");
  report.feed("exit 125");
  EXPECT_EQ(report.error(), "no virtio-serial port for the output");
  EXPECT_EQ(report.exit_status(), 125);
}

TEST(GuestReport, IgnoresUnknownAndMalformedLines) {
  GuestReport report;
  report.feed("status running");
  for (const char* line : {"hello", "node 1", "md md9 raid0 4096 ram0:0", "dm", "exit soon"})
    report.feed(line);
  EXPECT_TRUE(report.devices().empty());
  EXPECT_EQ(report.phase(), "running");
  EXPECT_FALSE(report.exit_status().has_value());
}

// /sys/block/dm-0/stat as the 6.1 guest prints it: 17 fields, padded with spaces.
constexpr const char* kStatBefore =
    "      12        0     1536       48        0        0        0        0        0       52"
    "       48        0        0        0        0        0        0";
constexpr const char* kStatAfter =
    "      92        0    17920     1648        3        0       24        8        0     1592"
    "     1656        0        0        0        0        1        4";

TEST(ControlLine, DiskStatKeepsTheStatFileFields) {
  const ControlLine line = parse_control_line(std::string("diskstat dm-0 after ") + kStatAfter);
  ASSERT_EQ(line.kind, Kind::kDiskStat);
  EXPECT_EQ(line.name, "dm-0");
  EXPECT_EQ(line.text, "after");
  EXPECT_EQ(line.disk_stats.reads, 92U);
  EXPECT_EQ(line.disk_stats.sectors_read, 17920U);
  EXPECT_EQ(line.disk_stats.read_ms, 1648U);
  EXPECT_EQ(line.disk_stats.writes, 3U);
  EXPECT_EQ(line.disk_stats.sectors_written, 24U);
  EXPECT_EQ(line.disk_stats.write_ms, 8U);
  EXPECT_EQ(line.disk_stats.io_ms, 1592U);
}

TEST(ControlLine, DiskStatWithoutItsFieldsOrWhenIsMalformed) {
  for (const char* text :
       {"diskstat dm-0 before 1 2 3", "diskstat dm-0 during 1 2 3 4 5 6 7 8 9 10",
        "diskstat dm-0 before 1 2 x 4 5 6 7 8 9 10", "diskstat dm-0"})
    EXPECT_EQ(parse_control_line(text).kind, Kind::kMalformed) << text;
}

TEST(GuestReport, KernelStatsAreTheRunsDifference) {
  GuestReport report;
  report.feed(std::string("diskstat dm-0 before ") + kStatBefore);
  report.feed(std::string("diskstat md0 before ") + kStatBefore);  // md0 has no "after"
  const std::string zeros = " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";
  report.feed("diskstat ram0 before" + zeros);  // brd counts nothing: no statistics
  report.feed("diskstat ram0 after" + zeros);
  report.feed(std::string("diskstat dm-0 after ") + kStatAfter);
  const KernelDiskStats stats = report.kernel_stats();
  ASSERT_EQ(stats.size(), 1U);
  const DiskStats& dm0 = stats.at("dm-0");
  EXPECT_EQ(dm0.reads, 80U);
  EXPECT_EQ(dm0.sectors_read, 16384U);
  EXPECT_EQ(dm0.read_ms, 1600U);
  EXPECT_EQ(dm0.writes, 3U);
  EXPECT_EQ(dm0.io_ms, 1540U);
  EXPECT_EQ(kernel_read_mean_us(dm0), 20000.0);
}

TEST(DiskStats, JsonHasTheCountsAndTheMeans) {
  DiskStats stats;
  stats.reads = 4;
  stats.read_ms = 10;
  const Json json = disk_stats_json(stats);
  EXPECT_EQ(json["reads"], 4);
  EXPECT_EQ(json["read_ms"], 10);
  EXPECT_EQ(json["read_mean_us"], 2500.0);
  EXPECT_TRUE(json["write_mean_us"].is_null()) << "no writes, no mean";
}

TEST(DiskStats, ACounterThatWentBackCountsNothing) {
  DiskStats before;
  DiskStats after;
  before.reads = 5;
  after.reads = 3;
  after.in_flight = 2;
  const DiskStats d = disk_stats_difference(before, after);
  EXPECT_EQ(d.reads, 0U);
  EXPECT_EQ(d.in_flight, 2U) << "a level, not a count";
}

TEST(RunPhases, RunningToRanIsTheTracedRunAndRanIsNotShown) {
  RunPhases phases;
  EXPECT_TRUE(phases.note("building stack"));
  EXPECT_FALSE(phases.running());
  EXPECT_FALSE(phases.traced_seconds());
  EXPECT_TRUE(phases.note("running"));
  EXPECT_TRUE(phases.running());
  EXPECT_FALSE(phases.traced_seconds()) << "not over yet";
  EXPECT_FALSE(phases.note("ran"));
  ASSERT_TRUE(phases.traced_seconds());
  EXPECT_GE(*phases.traced_seconds(), 0.0);
}

}  // namespace
}  // namespace iotap::runner
