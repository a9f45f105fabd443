// The remap arithmetic checked against the stack's own description.
#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

// What raid0 over `members` members of chunk `chunk` sectors and data offset `offset` does
// with a read of `bytes` at md sector `from`, cut at chunk boundaries.
Stream& raid0_read(Stream& s, uint64_t& t, uint64_t from, uint64_t bytes, uint32_t members,
                   uint64_t chunk, uint64_t offset, uint32_t first_ram = 0) {
  uint64_t at = from;
  while (at < from + bytes / 512) {
    const uint64_t c = at / chunk;
    const uint64_t len = std::min(from + bytes / 512, (c + 1) * chunk) - at;
    const uint64_t sector = (c / members) * chunk + at % chunk + offset;
    s.m(t += kUs, 0, 1, 0xc000 + at, ram(first_ram + c % members), sector, len * 512, kMd0, at);
    at += len;
  }
  return s;
}

TEST(RemapCheck, Raid0ThatMatchesItsGeometry) {
  Stream s;
  uint64_t t = 0;
  for (uint64_t block = 0; block < 16; ++block)
    raid0_read(s, t, block * 2048 + 100, 1048576, 8, 1024, 4096);
  const Result r = run(raid0(8), s.text());
  EXPECT_EQ(r.remap_check.checked, 16U * 3);
  EXPECT_EQ(r.remap_check.mismatches, 0U);
  EXPECT_TRUE(r.remap_check.examples.empty());
}

TEST(RemapCheck, Raid0WhoseDescriptionIsWrong) {
  // The kernel used 256 KiB chunks; the stack says 512 KiB.
  Stream s;
  uint64_t t = 0;
  for (uint64_t block = 0; block < 16; ++block)
    raid0_read(s, t, block * 2048, 1048576, 8, 512, 4096);
  const Result r = run(raid0(8), s.text());
  EXPECT_EQ(r.remap_check.checked, 16U * 4);
  EXPECT_GT(r.remap_check.mismatches, 0U);
  ASSERT_FALSE(r.remap_check.examples.empty());
  EXPECT_LE(r.remap_check.examples.size(), 5U);
  EXPECT_NE(r.remap_check.examples[0].find("md0 sector"), std::string::npos)
      << r.remap_check.examples[0];
  EXPECT_NE(r.remap_check.examples[0].find("expected ram"), std::string::npos)
      << r.remap_check.examples[0];
}

TEST(RemapCheck, Raid0MembersInAnotherOrder) {
  auto stack = raid0(4);
  std::swap(stack[0].md_members[1], stack[0].md_members[2]);
  Stream s;
  uint64_t t = 0;
  raid0_read(s, t, 0, uint64_t{4} * 524288, 4, 1024, 4096);
  const Result r = run(stack, s.text());
  EXPECT_EQ(r.remap_check.checked, 4U);
  EXPECT_EQ(r.remap_check.mismatches, 2U);
}

TEST(RemapCheck, DmLinearAndDelayTargets) {
  std::vector<StackDevice> stack{device("dm-0", dm(0), "linear(ram)", "")};
  stack[0].dm_table = {"0 1000 linear 1:0 2048", "1000 1000 delay 1:1 0 50"};
  stack.push_back(device("ram0", ram(0), "ram", "dm-0"));
  stack.push_back(device("ram1", ram(1), "ram", "dm-0"));
  Stream s;
  s.m(1, 0, 1, 0xa, ram(0), 2048 + 10, 4096, dm(0), 10);  // right
  s.m(2, 0, 1, 0xb, ram(1), 500, 4096, dm(0), 1500);      // right
  s.m(3, 0, 1, 0xc, ram(0), 10, 4096, dm(0), 10);         // offset forgotten
  s.m(4, 0, 1, 0xd, ram(0), 500, 4096, dm(0), 1500);      // wrong device
  const Result r = run(stack, s.text());
  EXPECT_EQ(r.remap_check.checked, 4U);
  EXPECT_EQ(r.remap_check.mismatches, 2U);
  ASSERT_EQ(r.remap_check.examples.size(), 2U);
  EXPECT_EQ(r.remap_check.examples[0],
            "dm-0 sector 10 went to ram0 sector 10, expected ram0 sector 2058");
  EXPECT_EQ(r.remap_check.examples[1],
            "dm-0 sector 1500 went to ram0 sector 500, expected ram1 sector 500");
}

TEST(RemapCheck, Raid1AddsTheLegsDataOffset) {
  std::vector<StackDevice> stack{device("md0", kMd0, "raid1(ram*2)", "")};
  stack[0].md_level = "raid1";
  stack[0].md_members = {{"ram0", 2048}, {"ram1", 2048}};
  stack.push_back(device("ram0", ram(0), "ram", "md0"));
  stack.push_back(device("ram1", ram(1), "ram", "md0"));
  Stream s;
  s.m(1, 0, 1, 0xa, ram(0), 2048 + 8, 4096, kMd0, 8);
  s.m(2, 0, 1, 0xb, ram(1), 2048 + 16, 4096, kMd0, 16);
  s.m(3, 0, 1, 0xc, ram(1), 16, 4096, kMd0, 16);
  const Result r = run(stack, s.text());
  EXPECT_EQ(r.remap_check.checked, 3U);
  EXPECT_EQ(r.remap_check.mismatches, 1U);
}

// md0 = raid10 near copies (layout n2, 258) over 3 ram disks: odd, so a chunk's second copy
// wraps to slot 0 one chunk further down. Chunk 1024 sectors, data offset 2048.
std::vector<StackDevice> raid10_of_three(int64_t layout = 258) {
  std::vector<StackDevice> stack{device("md0", kMd0, "raid10(ram*3)", "")};
  stack[0].md_level = "raid10";
  stack[0].chunk_bytes = 524288;
  stack[0].md_layout = layout;
  for (uint32_t i = 0; i < 3; ++i) {
    stack[0].md_members.emplace_back("ram" + std::to_string(i), 2048);
    stack.push_back(device("ram" + std::to_string(i), ram(i), "ram", "md0"));
  }
  return stack;
}

TEST(RemapCheck, Raid10NearCopiesEitherCopyIsRight) {
  Stream s;
  s.m(1, 0, 1, 0xa, ram(0), 2048 + 10, 4096, kMd0, 10);          // chunk 0, first copy
  s.m(2, 0, 1, 0xb, ram(1), 2048 + 10, 4096, kMd0, 10);          // chunk 0, second copy
  s.m(3, 0, 1, 0xc, ram(2), 2048 + 5, 4096, kMd0, 1024 + 5);     // chunk 1 on the last slot
  s.m(4, 0, 1, 0xd, ram(0), 2048 + 1029, 4096, kMd0, 1024 + 5);  // its copy, wrapped a row down
  s.m(5, 0, 1, 0xe, ram(1), 2048 + 1025, 4096, kMd0, 2048 + 1);  // chunk 2: slots 1 and 2, row 1
  s.m(6, 0, 1, 0xf, ram(1), 2048 + 5, 4096, kMd0, 1024 + 5);     // wrong: chunk 1 is not on ram1
  const Result r = run(raid10_of_three(), s.text());
  EXPECT_EQ(r.remap_check.checked, 6U);
  EXPECT_EQ(r.remap_check.mismatches, 1U);
  ASSERT_EQ(r.remap_check.examples.size(), 1U);
  EXPECT_EQ(r.remap_check.examples[0],
            "md0 sector 1029 went to ram1 sector 2053, expected ram2 sector 2053 or ram0 sector "
            "3077");
}

TEST(RemapCheck, Raid10FarLayoutIsLeftUnchecked) {
  Stream s;
  s.m(1, 0, 1, 0xa, ram(1), 99, 4096, kMd0, 10);
  EXPECT_EQ(run(raid10_of_three(0x201), s.text()).remap_check.checked, 0U);  // f2
  EXPECT_EQ(run(raid10_of_three(258), s.text()).remap_check.mismatches, 1U);
}

TEST(RemapCheck, DmStripedChunksGoRoundTheStripes) {
  std::vector<StackDevice> stack{device("dm-0", dm(0), "striped(ram*2)", "")};
  stack[0].dm_table = {"0 8192 striped 2 128 1:0 0 1:1 2048"};
  stack.push_back(device("ram0", ram(0), "ram", "dm-0"));
  stack.push_back(device("ram1", ram(1), "ram", "dm-0"));
  Stream s;
  s.m(1, 0, 1, 0xa, ram(0), 10, 4096, dm(0), 10);         // chunk 0: stripe 0
  s.m(2, 0, 1, 0xb, ram(1), 2048 + 2, 4096, dm(0), 130);  // chunk 1: stripe 1, its offset
  s.m(3, 0, 1, 0xc, ram(0), 128 + 44, 4096, dm(0), 300);  // chunk 2: stripe 0, one chunk down
  s.m(4, 0, 1, 0xd, ram(0), 2, 4096, dm(0), 130);         // wrong stripe
  const Result r = run(stack, s.text());
  EXPECT_EQ(r.remap_check.checked, 4U);
  EXPECT_EQ(r.remap_check.mismatches, 1U);
  ASSERT_EQ(r.remap_check.examples.size(), 1U);
  EXPECT_EQ(r.remap_check.examples[0],
            "dm-0 sector 130 went to ram0 sector 2, expected ram1 sector 2050");
}

}  // namespace
}  // namespace iotap::engine::testing
