#include "iotap/interval/device_table.h"

#include <gtest/gtest.h>

namespace iotap::interval {
namespace {

// iotime.stp's table as a guest run printed it: raid0(ram, delay(ram, 20ms)) read with 8 MiB
// of O_DIRECT reads, with block_hasher's own lines around it.
constexpr const char* kRecorded =
    R"(thread 0: 8 blocks, 8.0 MiB in 0.412 s, 19.4 MiB/s, 0 errors, sha1 2fd4e1c6
device  rw   total (us)    count   avg (us)
  dm-0   R       939632       40      23490
   md0   R       193323        9      21480
  ram0   R         1393       41         33
  ram1   R          948       40         23
)";

StackDevice device(const std::string& parent, const std::string& name, const std::string& spec) {
  StackDevice out;
  out.parent = parent;
  out.name = name;
  out.spec = spec;
  return out;
}

std::vector<StackDevice> incident_stack() {
  // As the guest reports raid0(ram*2, delay(ram, 50ms)): top first.
  return {device("", "md0", "raid0(ram*2,delay(ram,50ms))"), device("md0", "ram0", "ram"),
          device("md0", "ram1", "ram"), device("md0", "dm-0", "delay(ram,50ms)"),
          device("dm-0", "ram2", "ram")};
}

TEST(DeviceTable, ParsesRowsAndSkipsOtherLines) {
  const auto rows = parse_device_table(kRecorded);
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[0].device, "dm-0");
  EXPECT_EQ(rows[0].rw, "R");
  EXPECT_EQ(rows[0].total_us, 939632U);
  EXPECT_EQ(rows[0].count, 40U);
  EXPECT_EQ(rows[0].avg_us, 23490U);
}

TEST(DeviceTable, TheDelayedMemberIsNamedAgainstItsSiblings) {
  const auto rows = parse_device_table(
      "dm-0 R 2000000 40 50000\nmd0 R 2100000 60 35000\nram0 R 1600 40 40\nram1 R 2000 40 50\nram2 "
      "R 1200 40 30\n");
  const auto slow = find_slow_members(rows, incident_stack());
  ASSERT_EQ(slow.size(), 1U);
  EXPECT_EQ(slow[0].device.name, "dm-0");
  EXPECT_EQ(slow[0].device.spec, "delay(ram,50ms)");
  EXPECT_EQ(slow[0].parent, "md0");
  EXPECT_EQ(slow[0].avg_us, 50000U);
  EXPECT_EQ(slow[0].siblings_avg_us, 45U);  // median of 40 and 50
  EXPECT_EQ(slow[0].siblings, 2U);
}

TEST(DeviceTable, AHealthyStackHasNoSlowMember) {
  const auto rows = parse_device_table(
      "md0 R 9000 60 150\nram0 R 1600 40 40\nram1 R 2400 40 60\ndm-0 R 3000 40 75\n");
  EXPECT_TRUE(find_slow_members(rows, incident_stack()).empty());
}

TEST(DeviceTable, SmallAbsoluteDifferencesAreNotAlarms) {
  // 5x slower but only 400 us more: below the 1 ms floor.
  const auto rows = parse_device_table("ram0 R 100 1 100\nram1 R 100 1 100\ndm-0 R 500 1 500\n");
  EXPECT_TRUE(find_slow_members(rows, incident_stack()).empty());
}

}  // namespace
}  // namespace iotap::interval
