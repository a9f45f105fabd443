// issue 27: text from the user or a file as a message shows it.
#include "iotap/util/printable.h"

#include <gtest/gtest.h>

namespace iotap {
namespace {

TEST(Escaped, KeepsPrintableTextAndWholeCharacters) {
  EXPECT_EQ(escaped("root@db7 é ü €"), "root@db7 é ü €");
  EXPECT_EQ(escaped(""), "");
}

TEST(Escaped, WritesControlBytesAndBytesThatAreNotUtf8AsEscapes) {
  EXPECT_EQ(escaped("a\xff"
                    "b"),
            "a\\xffb");
  EXPECT_EQ(escaped("line\r\n\tx\x1b[2J\x7f"), "line\\r\\n\\tx\\x1b[2J\\x7f");
  // A lead byte without its continuation, an overlong '/', a surrogate, past U+10FFFF.
  EXPECT_EQ(escaped("\xc3"), "\\xc3");
  EXPECT_EQ(escaped("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}

TEST(Escaped, CharacterBytesIsTheWholeSequenceOrOne) {
  EXPECT_EQ(character_bytes("é", 0), 2U);
  EXPECT_EQ(character_bytes("€", 0), 3U);
  EXPECT_EQ(character_bytes("\xff", 0), 1U);
  EXPECT_EQ(character_bytes("a", 0), 1U);
}

}  // namespace
}  // namespace iotap
