#include "iotap/stack_spec/stack_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "iotap/util/error.h"

namespace iotap::stack_spec {
namespace {

TEST(StackPlan, TheIncidentBuildsMembersBeforeTheArray) {
  const StackPlan plan = plan_stack(parse_stack_spec("raid0(ram*7, delay(ram, 50ms))"));
  ASSERT_EQ(plan.devices.size(), 10U);
  EXPECT_EQ(plan.top_path(), "/dev/md0");
  EXPECT_EQ(plan.devices[0].spec, "raid0(ram*7,delay(ram,50ms))");
  EXPECT_EQ(plan.devices[8].spec, "delay(ram,50ms)");
  EXPECT_EQ(plan.devices[8].parent, 0);
  EXPECT_EQ(plan.devices[8].path, "/dev/mapper/iotap8");
  EXPECT_EQ(plan.devices[9].path, "/dev/ram7");
  EXPECT_EQ(plan.devices[9].parent, 8);
  EXPECT_EQ(plan.brd_options, (std::vector<std::string>{"rd_nr=8", "rd_size=65536"}));
  EXPECT_EQ(plan.modules,
            (std::vector<std::string>{"brd", "dm-delay", "dm-mod", "md-mod", "raid0"}));
  const std::string& script = plan.guest_script;
  EXPECT_EQ(script,
            "iotap_disk 1 0 'ram' /dev/ram0\n"
            "iotap_disk 2 0 'ram' /dev/ram1\n"
            "iotap_disk 3 0 'ram' /dev/ram2\n"
            "iotap_disk 4 0 'ram' /dev/ram3\n"
            "iotap_disk 5 0 'ram' /dev/ram4\n"
            "iotap_disk 6 0 'ram' /dev/ram5\n"
            "iotap_disk 7 0 'ram' /dev/ram6\n"
            "iotap_disk 9 8 'ram' /dev/ram7\n"
            "iotap_dm 8 0 'delay(ram,50ms)' iotap8 \"0 $(iotap_sectors /dev/ram7) delay /dev/ram7 "
            "0 50\"\n"
            "iotap_md 0 -1 'raid0(ram*7,delay(ram,50ms))' /dev/md0 0 0 /dev/ram0 /dev/ram1 "
            "/dev/ram2 /dev/ram3 "
            "/dev/ram4 /dev/ram5 /dev/ram6 /dev/mapper/iotap8\n");
}

TEST(StackPlan, NestingAndOptions) {
  const StackPlan plan =
      plan_stack(parse_stack_spec("linear(raid0(chunk=64k, ram*2), raid1(ram, ram))"));
  EXPECT_EQ(plan.top_path(), "/dev/mapper/iotap0");
  EXPECT_NE(plan.guest_script.find(
                "iotap_md 1 0 'raid0(chunk=64k,ram*2)' /dev/md0 0 64 /dev/ram0 /dev/ram1\n"),
            std::string::npos)
      << plan.guest_script;
  EXPECT_NE(
      plan.guest_script.find("iotap_md 4 0 'raid1(ram,ram)' /dev/md1 1 0 /dev/ram2 /dev/ram3\n"),
      std::string::npos);
  EXPECT_NE(plan.guest_script.find("iotap_dm 0 -1 'linear(raid0(chunk=64k,ram*2),raid1(ram,ram))' "
                                   "iotap0 \"$(iotap_linear_table /dev/md0 /dev/md1)\"\n"),
            std::string::npos);
}

TEST(StackPlan, AnErrorMemberTurnsIntoAnErrorTargetOnceTheArrayStands) {
  const StackPlan plan = plan_stack(parse_stack_spec("raid0(ram*2, error(ram))"));
  const std::string& script = plan.guest_script;
  const auto created = script.find(
      "iotap_dm 3 0 'error(ram)' iotap3 \"0 $(iotap_sectors /dev/ram2) linear /dev/ram2 0\"\n");
  const auto array = script.find("iotap_md 0 -1");
  const auto switched =
      script.find("iotap_dm_switch iotap3 \"0 $(iotap_sectors /dev/ram2) error\"\n");
  ASSERT_NE(created, std::string::npos) << script;
  ASSERT_NE(switched, std::string::npos) << script;
  EXPECT_LT(created, array);
  EXPECT_LT(array, switched);
}

TEST(StackPlan, VirtioDisksAndRamSizes) {
  const StackPlan plan =
      plan_stack(parse_stack_spec("raid0(virtio:512M(iops=40), ram:32M, ram:32M)"));
  ASSERT_EQ(plan.virtio_disks.size(), 1U);
  EXPECT_EQ(plan.virtio_disks[0].iops, 40U);
  EXPECT_EQ(plan.devices[1].path, "/dev/vda");
  EXPECT_EQ(plan.brd_options[1], "rd_size=32768");
  EXPECT_THROW(plan_stack(parse_stack_spec("raid0(ram:32M, ram:64M)")), UserError);
}

TEST(StackPlan, RamDisksMustLeaveTheGuestRoomToRun) {
  // The incident: 8 x 64M in the default 1024 MiB.
  EXPECT_NO_THROW(check_fits_in_memory(plan_stack(parse_stack_spec("raid0(ram*7, delay(ram, "
                                                                   "50ms))")),
                                       1024));
  const StackPlan big = plan_stack(parse_stack_spec("raid0(ram:512M*4)"));
  EXPECT_EQ(big.ram_disks, 4U);
  EXPECT_EQ(big.ram_disk_bytes, 512ULL << 20);
  try {
    check_fits_in_memory(big, 1024);
    ADD_FAILURE() << "2 GiB of ram disks fit in 1 GiB";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--stack: the ram disks take 2048 MiB (4 x 512M) but --memory 1024 leaves them "
                 "768 MiB (256 MiB go to the guest's kernel, initrd and stap): raise --memory to "
                 "at least 2304, or make the disks smaller");
  }
  EXPECT_NO_THROW(check_fits_in_memory(big, 2304));
  EXPECT_THROW(check_fits_in_memory(big, 2303), UserError);
  // Virtio disks live in host files, not guest memory.
  EXPECT_NO_THROW(check_fits_in_memory(plan_stack(parse_stack_spec("raid0(virtio:4G*2)")), 300));
}

TEST(StackPlan, TwentySixVirtioDisksAreVdaToVdz) {
  const StackPlan plan = plan_stack(parse_stack_spec("raid0(virtio*26)"));
  ASSERT_EQ(plan.virtio_disks.size(), 26U);
  EXPECT_EQ(plan.devices.back().path, "/dev/vdz");
}

TEST(StackPlan, Raid10AndADegradedRaid5) {
  const StackPlan plan =
      plan_stack(parse_stack_spec("linear(raid10(ram*4), raid5(ram*3, missing))"));
  ASSERT_EQ(plan.devices.size(), 10U) << "the missing slot is no device";
  EXPECT_NE(plan.guest_script.find("iotap_md 1 0 'raid10(ram*4)' /dev/md0 10 0 /dev/ram0 /dev/ram1 "
                                   "/dev/ram2 /dev/ram3\n"),
            std::string::npos)
      << plan.guest_script;
  EXPECT_NE(plan.guest_script.find("iotap_md 6 0 'raid5(ram*3,missing)' /dev/md1 5 0 /dev/ram4 "
                                   "/dev/ram5 /dev/ram6 missing\n"),
            std::string::npos)
      << plan.guest_script;
  EXPECT_NE(std::find(plan.modules.begin(), plan.modules.end(), "raid10"), plan.modules.end());
  EXPECT_NE(std::find(plan.modules.begin(), plan.modules.end(), "raid456"), plan.modules.end());
}

TEST(StackPlan, StripedCryptAndNullDisks) {
  const StackPlan plan = plan_stack(parse_stack_spec(
      "raid0(striped(chunk=128k, ram*2), crypt(ram), null(lat=2ms), null:1G(cache=8M))"));
  const std::string& script = plan.guest_script;
  EXPECT_NE(script.find("iotap_dm 1 0 'striped(chunk=128k,ram*2)' iotap1 "
                        "\"$(iotap_striped_table 256 /dev/ram0 /dev/ram1)\"\n"),
            std::string::npos)
      << script;
  EXPECT_NE(
      script.find("iotap_dm 4 0 'crypt(ram)' iotap4 \"0 $(iotap_sectors /dev/ram2) crypt "
                  "aes-xts-plain64 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
                  "1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f 0 "
                  "/dev/ram2 0\"\n"),
      std::string::npos)
      << script;
  EXPECT_NE(script.find("iotap_null 6 0 'null(lat=2ms)' /dev/nullb0 64 2000000 0\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("iotap_null 7 0 'null:1G(cache=8M)' /dev/nullb1 1024 0 8\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(plan.null_blk_options, std::vector<std::string>{"nr_devices=0"});
  for (const char* module : {"dm-crypt", "ecb", "xts", "configfs", "null_blk", "dm-mod"}) {
    EXPECT_NE(std::find(plan.modules.begin(), plan.modules.end(), module), plan.modules.end())
        << module;
  }
  EXPECT_TRUE(plan_stack(parse_stack_spec("raid0(ram*2)")).null_blk_options.empty());
}

}  // namespace
}  // namespace iotap::stack_spec
