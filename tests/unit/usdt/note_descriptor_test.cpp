#include "note_descriptor.h"

#include <gtest/gtest.h>

#include "elf_image.h"

namespace iotap::usdt {
namespace {

using testing::Bytes;
using testing::make_descriptor;

constexpr AddressFormat k64Little{ElfClass::k64, ByteOrder::kLittle};
constexpr AddressFormat k32Little{ElfClass::k32, ByteOrder::kLittle};
constexpr AddressFormat k64Big{ElfClass::k64, ByteOrder::kBig};
constexpr AddressFormat k32Big{ElfClass::k32, ByteOrder::kBig};

TEST(NoteDescriptor, Reads64BitLittleEndianByHand) {
  // Written out byte by byte, so the test does not share a bug with make_descriptor.
  const Bytes desc = {
      0x87, 0x11, 0,   0, 0,   0,   0,   0,                      // pc 0x1187
      0x10, 0x20, 0,   0, 0,   0,   0,   0,                      // base 0x2010
      0x10, 0x40, 0,   0, 0,   0,   0,   0,                      // semaphore 0x4010
      'p',  0,    'n', 0, '-', '4', '@', '%', 'e', 'd', 'x', 0,  // provider, name, args
  };
  auto probe = parse_note_descriptor(desc, k64Little);
  ASSERT_TRUE(probe) << probe.error();
  EXPECT_EQ(probe->provider, "p");
  EXPECT_EQ(probe->name, "n");
  EXPECT_EQ(probe->pc, 0x1187U);
  EXPECT_EQ(probe->base, 0x2010U);
  EXPECT_EQ(probe->semaphore, 0x4010U);
  ASSERT_EQ(probe->args.size(), 1U);
  EXPECT_EQ(probe->args[0], (Argument{4, true, false, "%edx"}));
}

TEST(NoteDescriptor, Reads32BitBigEndianByHand) {
  const Bytes desc = {
      0x08, 0x04, 0x80, 0x00,                              // pc
      0x08, 0x04, 0x90, 0x00,                              // base
      0x00, 0x00, 0x00, 0x00,                              // no semaphore
      'a',  'p',  'p',  0,    's', 't', 'a', 'r', 't', 0,  // provider, name
      '8',  '@',  'r',  '3',  ' ', '-', '4', '@', '4', '(', 'r', '1', ')', 0,
  };
  auto probe = parse_note_descriptor(desc, k32Big);
  ASSERT_TRUE(probe) << probe.error();
  EXPECT_EQ(probe->pc, 0x08048000U);
  EXPECT_EQ(probe->base, 0x08049000U);
  EXPECT_EQ(probe->semaphore, 0U);
  EXPECT_EQ(probe->args,
            (std::vector<Argument>{{8, false, false, "r3"}, {4, true, false, "4(r1)"}}));
}

TEST(NoteDescriptor, AllFourLayoutsRoundTrip) {
  for (const AddressFormat format : {k64Little, k32Little, k64Big, k32Big}) {
    const std::uint64_t top = format.elf_class == ElfClass::k64 ? 0xfedcba9876543210U : 0xfedcba98U;
    auto probe = parse_note_descriptor(
        make_descriptor(format, top, 0x1000, top - 1, "prov", "name", "8@%rax"), format);
    ASSERT_TRUE(probe) << probe.error();
    EXPECT_EQ(probe->pc, top);
    EXPECT_EQ(probe->base, 0x1000U);
    EXPECT_EQ(probe->semaphore, top - 1);
  }
}

TEST(NoteDescriptor, VeryOldNotesMayEndAfterTheName) {
  Bytes desc = make_descriptor(k64Little, 1, 2, 0, "prov", "name", "");
  desc.pop_back();  // drop the empty argument string's NUL: the descriptor ends after the name
  auto probe = parse_note_descriptor(desc, k64Little);
  ASSERT_TRUE(probe) << probe.error();
  EXPECT_TRUE(probe->args.empty());
}

TEST(NoteDescriptor, TooShortForTheAddresses) {
  const Bytes desc(23, 0);
  auto probe = parse_note_descriptor(desc, k64Little);
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error(),
            "descriptor is 23 bytes, too short for the three 8-byte addresses it starts with");
  EXPECT_FALSE(parse_note_descriptor(Bytes(11, 0), k32Little));
  EXPECT_FALSE(parse_note_descriptor(Bytes{}, k32Little));
}

TEST(NoteDescriptor, StringsMustEndInsideTheDescriptor) {
  const Bytes whole = make_descriptor(k32Little, 1, 2, 0, "prov", "name", "8@%rax");
  // Cut inside each string in turn: provider, name, arguments.
  const std::vector<std::pair<std::size_t, std::string>> cuts = {
      {12 + 2, "provider name is not NUL-terminated"},
      {12 + 5 + 2, "probe name after provider 'prov' is not NUL-terminated"},
      {12 + 5 + 5 + 3, "probe prov:name: argument string is not NUL-terminated"},
  };
  for (const auto& [size, message] : cuts) {
    auto probe = parse_note_descriptor(std::span(whole).first(size), k32Little);
    ASSERT_FALSE(probe) << size;
    EXPECT_NE(probe.error().find(message), std::string::npos) << probe.error();
  }
}

TEST(NoteDescriptor, RejectsUnprintableOrEmptyNames) {
  EXPECT_FALSE(parse_note_descriptor(make_descriptor(k64Little, 1, 2, 0, "", "n", ""), k64Little));
  EXPECT_FALSE(parse_note_descriptor(make_descriptor(k64Little, 1, 2, 0, "p", "", ""), k64Little));
  EXPECT_FALSE(
      parse_note_descriptor(make_descriptor(k64Little, 1, 2, 0, "p\x01", "n", ""), k64Little));
  EXPECT_FALSE(
      parse_note_descriptor(make_descriptor(k64Little, 1, 2, 0, "p", "a b", ""), k64Little));
  EXPECT_FALSE(
      parse_note_descriptor(make_descriptor(k64Little, 1, 2, 0, "p", "n", "8@\x7f"), k64Little));
}

TEST(NoteDescriptor, BadArgumentsNameTheProbe) {
  auto probe = parse_note_descriptor(
      make_descriptor(k64Little, 1, 2, 0, "app", "read", "8@%rax 3@%eax"), k64Little);
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error(),
            "probe app:read: argument 2: '3@%eax' has size 3 (sizes are 1, 2, 4 or 8 bytes)");
}

}  // namespace
}  // namespace iotap::usdt
