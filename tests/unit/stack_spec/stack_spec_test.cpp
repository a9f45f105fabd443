#include "iotap/stack_spec/stack_spec.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "iotap/util/error.h"

namespace iotap::stack_spec {
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

std::string nested(const std::string& kind, size_t levels) {
  std::string spec;
  for (size_t i = 0; i < levels; ++i) spec += kind + "(";
  spec += "ram";
  spec += std::string(levels, ')');
  return spec;
}

size_t depth_of(const StackNode& node) {
  size_t deepest = 0;
  for (const auto& member : node.members) deepest = std::max(deepest, depth_of(member));
  return deepest + 1;
}

TEST(StackSpec, DeepNestingIsRefusedAtTheLimitNotACrash) {
  // 8,000 levels used to overflow the stack (and take minutes before that).
  const std::string error = error_of(nested("linear", 8000));
  EXPECT_NE(error.find("the stack is more than 16 levels deep"), std::string::npos) << error;
  // The 17th level's device: 16 "linear(" before it.
  EXPECT_NE(error.find("at column 113:"), std::string::npos) << error;
  // The message shows the part of the spec around the caret, not 56,000 characters of it.
  EXPECT_LT(error.size(), 400U) << error;

  EXPECT_EQ(depth_of(parse_stack_spec(nested("linear", kMaxStackDepth - 1))), kMaxStackDepth);
  EXPECT_NE(error_of(nested("linear", kMaxStackDepth)).find("more than 16 levels deep"),
            std::string::npos);
}

TEST(StackSpec, LongSpecsParseInLinearTime) {
  // 100,000 characters that the parser walks through to the end: 16 levels with blanks between
  // them. Parsing used to copy every subtree at every level (cubic in the depth); ctest's
  // timeout catches a return to that.
  const std::string blanks(100'000 / 29, ' ');
  std::string spec;
  for (int i = 0; i < 14; ++i) spec += "linear(" + blanks;
  spec += "raid0(ram*64, ram*64," + blanks + "ram*64, ram*47)";
  for (int i = 0; i < 14; ++i) spec += blanks + ")";
  ASSERT_GE(spec.size(), 100'000U);
  const StackNode top = parse_stack_spec(spec);
  EXPECT_EQ(depth_of(top), 16U);
  EXPECT_EQ(top.spec.find(' '), std::string::npos);

  // And 100,000 characters of nesting, or of members, stop at the first limit they pass.
  std::string deep;
  while (deep.size() < 100'000) deep += "raid0(ram, ";
  EXPECT_NE(error_of(deep).find("levels deep"), std::string::npos);
  std::string wide = "raid0(ram";
  while (wide.size() < 100'000) wide += ", ram";
  wide += ")";
  EXPECT_NE(error_of(wide).find("more than 256 devices"), std::string::npos);
}

TEST(StackSpec, TotalDevicesCountEveryCopy) {
  // 64 per '*N' is not the limit that matters: this asks for 4,161 devices.
  const std::string nested_repeat = error_of("raid0(raid0(ram*64)*64)");
  EXPECT_NE(nested_repeat.find("more than 256 devices, the most a stack has"), std::string::npos)
      << nested_repeat;
  EXPECT_NE(nested_repeat.find("at column 20:"), std::string::npos) << nested_repeat;  // the '*'
  // The top and 255 disks is 256: the most.
  EXPECT_EQ(parse_stack_spec("raid0(ram*64, ram*64, ram*64, ram*63)").members.size(), 255U);
  EXPECT_NE(error_of("raid0(ram*64, ram*64, ram*64, ram*64)").find("more than 256 devices"),
            std::string::npos);
  EXPECT_NE(error_of("linear(raid0(ram*2)*64, raid0(ram*2)*22)").find("more than 256 devices"),
            std::string::npos);
}

TEST(StackSpec, AtMostTwentySixVirtioDisks) {
  EXPECT_EQ(parse_stack_spec("raid0(virtio*26)").members.size(), 26U);
  const std::string error = error_of("raid0(virtio*13, linear(virtio)*14)");
  EXPECT_NE(error.find("more than 26 virtio disks, the most a guest names (vda to vdz)"),
            std::string::npos)
      << error;
}

TEST(StackSpec, AnOptionGivenTwice) {
  const std::string chunk = error_of("raid0(chunk=64k, chunk=128k, ram*2)");
  EXPECT_NE(chunk.find("option 'chunk' is given twice (first at column 7) at column 18:"),
            std::string::npos)
      << chunk;
  EXPECT_NE(error_of("ram:64M(size=128M)").find("option 'size' is given twice"), std::string::npos);
  EXPECT_NE(error_of("raid0(ram:64M:128M, ram)").find("ram:SIZE is the same as size=SIZE"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(ram, delay(ram, 5ms, delay=3ms))").find("'delay' is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(ram, delay(ram, 5ms, 3ms))").find("'delay' is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(ram, flakey(ram, up=1s, up=2s))").find("'up' is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(virtio(iops=5, iops=6), ram)").find("'iops' is given twice"),
            std::string::npos);
}

TEST(StackSpec, OnlyDisksHaveASize) {
  for (const char* spec : {"raid0(ram*2):5G", "raid0:5G(ram*2)", "raid0(ram, delay(ram, 5ms):1G)",
                           "linear(ram, size=1G)"}) {
    const std::string error = error_of(spec);
    EXPECT_NE(error.find("a size belongs to a disk (ram:128M, virtio:1G)"), std::string::npos)
        << spec << ": " << error;
  }
  EXPECT_NE(error_of("raid0(ram*2):5G").find("raid0's size comes from its members at column 13"),
            std::string::npos);
  EXPECT_EQ(parse_stack_spec("raid0(ram(size=1M)*2)").members[1].size_bytes, 1U << 20);
  EXPECT_EQ(parse_stack_spec("raid0(ram*2, virtio(iops=3):2G)").members[2].size_bytes, 2ULL << 30);
}

TEST(StackSpec, ErrorTakesAtMostOneMember) {
  const std::string error = error_of("raid0(ram*2, error(ram, ram))");
  EXPECT_NE(error.find("error takes at most 1 member, got 2 (example: error(ram), or error alone) "
                       "at column 14"),
            std::string::npos)
      << error;
  EXPECT_EQ(parse_stack_spec("raid0(ram, error)").members[1].members.size(), 0U);
  EXPECT_EQ(parse_stack_spec("raid0(ram, error(ram))").members[1].members.size(), 1U);
  EXPECT_NE(error_of("raid0(ram, delay(5ms))").find("delay needs 1 member, got 0"),
            std::string::npos);
}

TEST(StackSpec, NonAsciiIsNamedWholeWithTheCaretUnderIt) {
  const std::string accent = error_of("raid0(ram*2, délay(ram, 5ms))");
  // Column 15 counts characters: 'é' is two bytes but one column.
  EXPECT_NE(accent.find("unexpected character 'é' (a spec is written in ASCII"), std::string::npos)
      << accent;
  EXPECT_NE(accent.find("at column 15:\n    raid0(ram*2, délay(ram, 5ms))\n                  ^"),
            std::string::npos)
      << accent;
  // After a multi-byte character, columns still count characters.
  const std::string after = error_of("raid0(ram, ram)é");
  EXPECT_NE(after.find("at column 16:\n    raid0(ram, ram)é\n                   ^"),
            std::string::npos)
      << after;
  const std::string broken = error_of("raid0(ram, \xff)");
  EXPECT_NE(broken.find("unexpected byte 0xff"), std::string::npos) << broken;
  EXPECT_NE(broken.find("raid0(ram, ?)\n               ^"), std::string::npos) << broken;
  // A tab is a blank; in the message it shows as a space so the caret stays under its word.
  const std::string tab = error_of("raid0(ram,\tdealy(ram))");
  EXPECT_NE(tab.find("raid0(ram, dealy(ram))\n               ^"), std::string::npos) << tab;
}

TEST(StackSpec, Sizes) {
  EXPECT_EQ(parse_size("64k"), 65536U);
  EXPECT_EQ(parse_size("2G"), 2ULL << 30);
  EXPECT_EQ(parse_size("512"), 512U);
  EXPECT_THROW(parse_size("12T"), UserError);
  EXPECT_THROW(parse_size("0"), UserError);
  EXPECT_THROW(parse_size("M"), UserError);
  EXPECT_EQ(describe_size(64ULL << 20), "64M");
  EXPECT_EQ(describe_size(2ULL << 30), "2G");
  EXPECT_EQ(describe_size(1536ULL << 10), "1536k");
  EXPECT_EQ(describe_size(1000), "1000");
}

TEST(StackSpec, Raid10Raid5StripedCryptAndNull) {
  const StackNode raid10 = parse_stack_spec("raid10(chunk=64k, ram*4)");
  EXPECT_EQ(raid10.kind, DeviceKind::kRaid10);
  EXPECT_EQ(raid10.chunk_bytes, 64U << 10);
  EXPECT_EQ(raid10.members.size(), 4U);
  EXPECT_TRUE(is_md(raid10.kind));

  const StackNode degraded = parse_stack_spec("raid5(ram*3, missing)");
  EXPECT_EQ(degraded.kind, DeviceKind::kRaid5);
  ASSERT_EQ(degraded.members.size(), 4U);
  EXPECT_EQ(degraded.members[3].kind, DeviceKind::kMissing);
  EXPECT_EQ(degraded.spec, "raid5(ram*3,missing)");

  const StackNode striped = parse_stack_spec("striped(chunk=128k, ram*4)");
  EXPECT_EQ(striped.kind, DeviceKind::kStriped);
  EXPECT_EQ(striped.chunk_bytes, 128U << 10);
  EXPECT_TRUE(is_dm(striped.kind));
  EXPECT_TRUE(is_dm(parse_stack_spec("crypt(ram)").kind));

  const StackNode slow = parse_stack_spec("raid0(ram*3, null(lat=5ms))");
  EXPECT_EQ(slow.members[3].kind, DeviceKind::kNull);
  EXPECT_EQ(slow.members[3].latency, std::chrono::milliseconds(5));
  EXPECT_EQ(slow.members[3].spec, "null(lat=5ms)");
  const StackNode sized = parse_stack_spec("null:1G(lat=2ms)");
  EXPECT_EQ(sized.size_bytes, 1ULL << 30);
  EXPECT_EQ(sized.latency, std::chrono::milliseconds(2));
  EXPECT_EQ(parse_stack_spec("null").latency.count(), 0);
  EXPECT_EQ(parse_stack_spec("null(lat=250us)").latency, std::chrono::microseconds(250));
  EXPECT_TRUE(is_disk(parse_stack_spec("null").kind));
  EXPECT_EQ(parse_stack_spec("null").cache_bytes, 0U);
  const StackNode cached = parse_stack_spec("null(lat=20ms, cache=16M)");
  EXPECT_EQ(cached.cache_bytes, 16U << 20);
  EXPECT_EQ(cached.spec, "null(lat=20ms,cache=16M)");
  EXPECT_EQ(parse_stack_spec("raid0(striped(ram*2), crypt(ram), null(lat=2ms))").members.size(),
            3U);
}

// issue 27: null(lat=0.5ms) said "a duration needs a unit". Decimals are taken, as long as they
// come to what the target counts in.
TEST(StackSpec, DurationsTakeDecimals) {
  EXPECT_EQ(parse_stack_spec("null(lat=0.5ms)").latency, std::chrono::microseconds(500));
  EXPECT_EQ(parse_stack_spec("null(lat=1.25s)").latency, std::chrono::milliseconds(1250));
  EXPECT_EQ(parse_stack_spec("null(lat=2.000000001s)").latency,
            std::chrono::nanoseconds(2'000'000'001));
  EXPECT_EQ(parse_stack_spec("delay(ram, 1.5s)").delay, std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_stack_spec("delay(ram, 2.0ms)").delay, std::chrono::milliseconds(2));
  EXPECT_EQ(parse_stack_spec("delay(ram, 1.5s)").spec, "delay(ram,1.5s)");
  const std::string half_ms = error_of("raid0(ram, delay(ram, 0.5ms))");
  EXPECT_NE(half_ms.find("dm-delay counts whole milliseconds: '0.5ms' is not a whole number of "
                         "them at column 23"),
            std::string::npos)
      << half_ms;
  EXPECT_NE(error_of("null(lat=0.5ns)")
                .find("null_blk counts whole nanoseconds: '0.5ns' is a "
                      "fraction of one"),
            std::string::npos);
  EXPECT_NE(error_of("null(lat=5.ms)")
                .find("expected a duration such as 5ms or 500us, found "
                      "'5.ms'"),
            std::string::npos);
  EXPECT_NE(error_of("null(lat=.5ms)").find("expected a duration such as"), std::string::npos);
  EXPECT_NE(error_of("null(lat=1.0000000001s)").find("expected a duration such as"),
            std::string::npos);
  EXPECT_NE(error_of("null(lat=10.5s)").find("latency is at most 10s"), std::string::npos);
  EXPECT_NE(error_of("null(lat=0.5)").find("a duration needs a unit"), std::string::npos);
  EXPECT_NE(error_of("flakey(ram, up=1.5s)").find("dm-flakey counts whole seconds"),
            std::string::npos);
}

TEST(StackSpec, TheNewKindsRefuseWrongShapesWithACaret) {
  const std::string lat = error_of("null(lat=abc)");
  EXPECT_NE(lat.find("expected a duration such as 5ms or 500us, found 'abc' at column 10:\n"
                     "    null(lat=abc)\n"
                     "             ^"),
            std::string::npos)
      << lat;
  EXPECT_NE(error_of("null(lat=5)").find("a duration needs a unit: ns, us, ms or s"),
            std::string::npos);
  EXPECT_NE(error_of("null(lat=11s)").find("latency is at most 10s"), std::string::npos);
  EXPECT_NE(error_of("null:1500k").find("whole MiB"), std::string::npos);
  EXPECT_NE(error_of("null(cache=100k)").find("sizes its cache in whole MiB"), std::string::npos);
  EXPECT_NE(error_of("ram(cache=16M)").find("option 'cache' does not apply to ram"),
            std::string::npos);
  EXPECT_NE(error_of("ram(lat=5ms)").find("option 'lat' does not apply to ram"), std::string::npos);
  EXPECT_NE(error_of("raid0(ram, null(chunk=64k))")
                .find("option 'chunk' does not apply to null (null takes lat=DURATION"),
            std::string::npos);

  const std::string raid5 = error_of("raid5(ram)");
  EXPECT_NE(raid5.find("raid5 needs at least 3 members, got 1 (example: raid5(ram*4), or "
                       "raid5(ram*3, missing)) at column 1:"),
            std::string::npos)
      << raid5;
  EXPECT_NE(error_of("raid5(ram*2, missing*2)").find("at most one member missing"),
            std::string::npos);
  EXPECT_NE(error_of("raid0(ram*2, missing)")
                .find("'missing' is an absent raid5 member; raid0 "
                      "takes none"),
            std::string::npos);
  EXPECT_NE(error_of("missing").find("not a device"), std::string::npos);
  EXPECT_NE(error_of("raid10(ram)").find("raid10 needs at least 2 members, got 1"),
            std::string::npos);
  EXPECT_NE(error_of("striped(ram)")
                .find("striped needs at least 2 members, got 1 (example: "
                      "striped(ram*4))"),
            std::string::npos);
  const std::string crypt = error_of("raid0(ram, crypt(ram, ram))");
  EXPECT_NE(crypt.find("crypt needs 1 member, got 2 (example: crypt(ram)) at column 12:"),
            std::string::npos)
      << crypt;
  EXPECT_NE(error_of("crypt(chunk=64k, ram)").find("option 'chunk' does not apply to crypt"),
            std::string::npos);
  EXPECT_NE(error_of("striped(chunk=3k, ram*2)").find("power of two"), std::string::npos);
}

}  // namespace
}  // namespace iotap::stack_spec
