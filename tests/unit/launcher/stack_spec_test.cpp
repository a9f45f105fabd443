#include "target/vm/stack_spec.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace iotap::vm {
namespace {

std::string error_of(const std::string& spec) {
  try {
    parse_stack_spec(spec);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(StackSpec, TheIncident) {
  const StackNode top = parse_stack_spec("raid0(ram*7, delay(ram, 50ms))");
  EXPECT_EQ(top.kind, DeviceKind::kRaid0);
  EXPECT_EQ(top.spec, "raid0(ram*7,delay(ram,50ms))");
  ASSERT_EQ(top.members.size(), 8U);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(top.members[i].kind, DeviceKind::kRam);
    EXPECT_EQ(top.members[i].spec, "ram");
  }
  const StackNode& delayed = top.members[7];
  EXPECT_EQ(delayed.kind, DeviceKind::kDelay);
  EXPECT_EQ(delayed.spec, "delay(ram,50ms)");
  EXPECT_EQ(delayed.delay.count(), 50);
  ASSERT_EQ(delayed.members.size(), 1U);
  EXPECT_EQ(delayed.members[0].kind, DeviceKind::kRam);
}

TEST(StackSpec, OptionsSizesAndNesting) {
  const StackNode top = parse_stack_spec("linear(raid0(chunk=64k, ram:128M*4))");
  ASSERT_EQ(top.members.size(), 1U);
  const StackNode& raid = top.members[0];
  EXPECT_EQ(raid.chunk_bytes, 64U * 1024);
  ASSERT_EQ(raid.members.size(), 4U);
  EXPECT_EQ(raid.members[3].size_bytes, 128ULL << 20);
  EXPECT_EQ(raid.members[3].spec, "ram:128M");
}

TEST(StackSpec, FlakeyErrorRaid1Virtio) {
  const StackNode flakey = parse_stack_spec("raid0(ram*3, flakey(ram, up=2s, down=1s))");
  EXPECT_EQ(flakey.members[3].up.count(), 2);
  EXPECT_EQ(flakey.members[3].down.count(), 1);
  EXPECT_EQ(parse_stack_spec("raid0(ram*3, error(ram))").members[3].kind, DeviceKind::kError);
  EXPECT_EQ(parse_stack_spec("raid1(ram, delay(ram, 20ms))").members.size(), 2U);
  const StackNode virtio = parse_stack_spec("raid0(virtio:1G(iops=40), virtio:1G)");
  EXPECT_EQ(virtio.members[0].iops, 40U);
  EXPECT_EQ(virtio.members[0].size_bytes, 1ULL << 30);
}

TEST(StackSpec, ErrorsPointAtTheOffendingCharacter) {
  const std::string typo = error_of("raid0(ram*7, dealy(ram, 50ms))");
  EXPECT_NE(typo.find("unknown device 'dealy'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("column 14"), std::string::npos) << typo;
  // The caret line sits under the 'd' of dealy.
  EXPECT_NE(typo.find("\n    raid0(ram*7, dealy(ram, 50ms))\n                 ^"),
            std::string::npos)
      << typo;

  EXPECT_NE(error_of("raid0(ram*7, delay(ram, 50))").find("needs a unit"), std::string::npos);
  EXPECT_NE(error_of("raid0(ram").find("ends where"), std::string::npos);
  EXPECT_NE(error_of("raid0(ram)").find("raid0 needs at least 2 members, got 1"),
            std::string::npos);
  EXPECT_NE(error_of("ram*2").find("top of the stack is one device"), std::string::npos);
  EXPECT_NE(error_of("raid1(chunk=64k, ram, ram)").find("does not apply to raid1"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(ram*0)").find("count from 1"), std::string::npos);
  EXPECT_NE(error_of("raid0(ram, ram) x").find("after the top device"), std::string::npos);
  EXPECT_NE(error_of("ram(ram)").find("is a disk and has no members"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("raid0(chunk=3k, ram*2)").find("power of two"), std::string::npos);
}

TEST(StackSpec, Sizes) {
  EXPECT_EQ(parse_size("64k"), 65536U);
  EXPECT_EQ(parse_size("2G"), 2ULL << 30);
  EXPECT_EQ(parse_size("512"), 512U);
  EXPECT_THROW(parse_size("12T"), UserError);
  EXPECT_THROW(parse_size("0"), UserError);
  EXPECT_THROW(parse_size("M"), UserError);
}

}  // namespace
}  // namespace iotap::vm
