// -c's text to argv (split_shell_words) and argv back to one string for staprun's -c
// (quoted_command), each checked against the real wordexp(3) that staprun splits with.
#include "iotap/util/shell_words.h"

#include <gtest/gtest.h>
#include <wordexp.h>

#include "iotap/util/error.h"
#include "iotap/util/quoting.h"

namespace iotap {
namespace {

// What staprun does with -c's string: wordexp without command substitution.
std::vector<std::string> wordexp_words(const std::string& text) {
  wordexp_t words;
  const int rc = wordexp(text.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF);
  EXPECT_EQ(rc, 0) << text;
  if (rc != 0) return {};
  std::vector<std::string> out(words.we_wordv, words.we_wordv + words.we_wordc);
  wordfree(&words);
  return out;
}

const std::vector<std::string> kAwkwardWords{
    "",      "a b", " ",    "'",     "''",     "'x",      "x'",    "'x'",          "it's",     "\"",
    "\"x\"", "\\",  "\\\\", "a\\'b", "$HOME",  "${X}",    "$(id)", "`id`",         "*",        "?",
    "[ab]",  "~",   "a\nb", "\n",    "\t",     "'\"'\"'", "-d",    "--name='x y'", "#comment", ";",
    "|",     "&&",  ">out", "é",     "'$HOME'"};

TEST(Quoting, WordexpGivesBackEachAwkwardWord) {
  for (const auto& word : kAwkwardWords) {
    EXPECT_EQ(wordexp_words(single_quoted(word)), std::vector<std::string>{word})
        << "word: [" << word << "] quoted: " << single_quoted(word);
  }
}

TEST(Quoting, WordexpGivesBackAWholeCommand) {
  std::vector<std::string> argv{"/bin/prog"};
  argv.insert(argv.end(), kAwkwardWords.begin(), kAwkwardWords.end());
  EXPECT_EQ(wordexp_words(quoted_command(argv)), argv) << quoted_command(argv);
}

TEST(Quoting, AWordStartingWithAQuoteIsNotCutInTwo) {
  // glibc's wordexp reads ''\''x' as two words; the quoting must not produce it.
  EXPECT_EQ(single_quoted("'x"), "\\''x'");
  EXPECT_EQ(single_quoted(""), "''");
}

TEST(ShellWords, CutsAsShDoes) {
  EXPECT_EQ(split_shell_words("  prog  -d /dev/md0\t-b 4096\n"),
            (std::vector<std::string>{"prog", "-d", "/dev/md0", "-b", "4096"}));
  EXPECT_EQ(split_shell_words("a '' \"\" b"), (std::vector<std::string>{"a", "", "", "b"}));
  EXPECT_EQ(split_shell_words("'it'\\''s' \"it's\" it\\'s"),
            (std::vector<std::string>{"it's", "it's", "it's"}));
  EXPECT_EQ(split_shell_words(R"("a\"b" "c\d" 'e\f' g\h)"),
            (std::vector<std::string>{"a\"b", "c\\d", "e\\f", "gh"}));
  EXPECT_EQ(split_shell_words("a\\\nb"), (std::vector<std::string>{"ab"}));
  EXPECT_TRUE(split_shell_words(" \t ").empty());
}

TEST(ShellWords, AgreesWithWordexpWhereWordexpDoesNotExpand) {
  for (const char* text :
       {"prog -d /dev/md0", "a '' b", R"('a b' "c d" e\ f)", R"("a\"b" "c\d" 'e\f' g\h)",
        R"('it'\''s' "it's")", "x\\\ny", R"("\\" '\' \\)", "'\"' \"'\""}) {
    EXPECT_EQ(split_shell_words(text), wordexp_words(text)) << text;
  }
}

TEST(ShellWords, ExpandsNothing) {
  EXPECT_EQ(
      split_shell_words("echo $HOME \"$HOME\" `id` $(id) * ~ >out"),
      (std::vector<std::string>{"echo", "$HOME", "$HOME", "`id`", "$(id)", "*", "~", ">out"}));
}

TEST(ShellWords, AQuoteNeverClosedIsAnError) {
  for (const char* text : {"prog 'abc", "prog \"abc", "prog 'a'\"b", "prog \"a\\\"", "prog \\"}) {
    EXPECT_THROW(split_shell_words(text), UserError) << text;
  }
  try {
    split_shell_words("block_hasher -d 'x");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "the ' at column 17 is never closed: close it, or write a literal ' as \\' "
                 "outside quotes");
  }
}

TEST(ShellWords, RoundTripsThroughQuotedCommand) {
  std::vector<std::string> argv{"/bin/prog"};
  argv.insert(argv.end(), kAwkwardWords.begin(), kAwkwardWords.end());
  EXPECT_EQ(split_shell_words(quoted_command(argv)), argv);
}

}  // namespace
}  // namespace iotap
