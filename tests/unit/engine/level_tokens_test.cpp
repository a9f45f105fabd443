// PB, PT and PE: a provider's requests, as docs/event-format.md gives them.
#include <gtest/gtest.h>

#include <string>

#include "tokenizer.h"

namespace iotap::engine {
namespace {

Tokenized parse(std::string_view line, Event& e) {
  return tokenize(line, e);
}

TEST(LevelTokens, BeginHasLevelKeyOpFileOffsetSize) {
  Event e;
  ASSERT_EQ(parse("PB 1000 1 7 4242 2 0 R 16384 8192 8192", e).kind, LineKind::event);
  EXPECT_EQ(e.kind, Kind::level_begin);
  EXPECT_EQ(e.tid, 4242);
  EXPECT_EQ(e.level, 2U);
  EXPECT_EQ(e.id, 0U);
  EXPECT_EQ(e.rw, 'R');
  EXPECT_EQ(e.inode, 16384U);
  EXPECT_EQ(e.offset, 8192U);
  EXPECT_EQ(e.size, 8192U);
  ASSERT_EQ(parse("PB 1000 1 8 4242 0 77 - 0 0 0", e).kind, LineKind::event);
  EXPECT_EQ(e.rw, '-');
  EXPECT_EQ(e.id, 77U);
}

TEST(LevelTokens, TextIsTheRestOfTheLineSpacesAndAll) {
  Event e;
  const Tokenized t = parse("PT 1000 1 8 4242 0 0 SELECT count(*)  FROM t WHERE a = 1", e);
  ASSERT_EQ(t.kind, LineKind::event);
  EXPECT_EQ(e.kind, Kind::level_text);
  EXPECT_EQ(e.level, 0U);
  EXPECT_EQ(t.text, "SELECT count(*)  FROM t WHERE a = 1");
  const Tokenized empty = parse("PT 1000 1 9 4242 0 0", e);
  ASSERT_EQ(empty.kind, LineKind::event);
  EXPECT_EQ(empty.text, "");
}

TEST(LevelTokens, EndHasASignedResult) {
  Event e;
  ASSERT_EQ(parse("PE 1000 1 9 4242 2 0 -5", e).kind, LineKind::event);
  EXPECT_EQ(e.kind, Kind::level_end);
  EXPECT_EQ(e.level, 2U);
  EXPECT_EQ(e.value, -5);
}

TEST(LevelTokens, LinesThatDoNotParseAreMalformed) {
  for (const std::string line : {
           "PB 1000 1 7 4242 2 0 X 1 2 3",    // not an op
           "PB 1000 1 7 4242 2 0 R 1 2",      // no SIZE
           "PB 1000 1 7 4242 2 0 R 1 2 3 4",  // one field too many
           "PB 1000 1 7 4242 64 0 R 1 2 3",   // no provider has 65 levels
           "PE 1000 1 7 4242 2 0",            // no RESULT
           "PE 1000 1 7 4242 2 0 12 9",       // extra
           "PT 1000 1 7 4242 x 0 SELECT 1",   // LEVEL not a number
       }) {
    Event e;
    EXPECT_EQ(parse(line, e).kind, LineKind::malformed) << line;
  }
}

}  // namespace
}  // namespace iotap::engine
