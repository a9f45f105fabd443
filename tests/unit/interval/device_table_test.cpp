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

// The table of a fresh-clone CI run (2026-11-29, the installed .deb's demo, raid0(ram*7,
// delay(ram, 50ms)) on a loaded host): ram0's reads averaged 1.6 ms, 15 times its siblings', a
// slow member by the rule; dm-0's 60.6 ms made every one of its reads slow. dm-0 is named first.
TEST(DeviceTable, TheCostliestSlowMemberIsNamedFirst) {
  const auto rows = parse_device_table(R"(
device  rw   total (us)    count   avg (us)
   md0   R      2146387       65      33021
  ram0   R       129993       81       1604
  ram1   R         2629       80         32
  ram2   R         4182       80         52
  ram3   R         2688       80         33
  ram4   R         8457       80        105
  ram5   R        11849       80        148
  ram6   R        28724       80        359
  dm-0   R      4846955       80      60586
  ram7   R         3171       80         39
)");
  std::vector<StackDevice> stack{device("", "md0", "raid0(ram*7,delay(ram,50ms))")};
  for (int i = 0; i < 7; ++i) stack.push_back(device("md0", "ram" + std::to_string(i), "ram"));
  stack.push_back(device("md0", "dm-0", "delay(ram,50ms)"));
  stack.push_back(device("dm-0", "ram7", "ram"));
  const auto slow = find_slow_members(rows, stack);
  ASSERT_EQ(slow.size(), 2U);
  EXPECT_EQ(slow[0].device.name, "dm-0");
  EXPECT_EQ(slow[0].excess_us, (60586U - 105U) * 80U);
  EXPECT_EQ(slow[1].device.name, "ram0");
  EXPECT_EQ(slow[1].excess_us, (1604U - 105U) * 81U);
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
