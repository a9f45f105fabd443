#include "iotap/stap/script.h"

#include <gtest/gtest.h>
#include <wordexp.h>

#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/quoting.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

TEST(Script, MarkersAreReplaced) {
  TempDir dir;
  write_file(dir / "s.stp",
             "probe process(\"__EXE__\").mark(\"x\") { if (pid() == __PID__) exit() }\n");
  const std::string text = prepare_script(dir / "s.stp", {"/usr/bin/prog", 42});
  EXPECT_EQ(text, "probe process(\"/usr/bin/prog\").mark(\"x\") { if (pid() == 42) exit() }\n");
}

TEST(Script, MarkerWithoutAValueSaysWhatToAdd) {
  TempDir dir;
  write_file(dir / "s.stp", "probe begin { println(__PID__) }\n");
  try {
    prepare_script(dir / "s.stp", {"/bin/true", std::nullopt});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("uses __PID__, which needs -x PID"), std::string::npos)
        << e.what();
  }
}

TEST(Script, AScriptWithoutMarkersIsUnchanged) {
  TempDir dir;
  write_file(dir / "s.stp", "probe begin { exit() }\n");
  EXPECT_EQ(prepare_script(dir / "s.stp", {}), "probe begin { exit() }\n");
}

TEST(Script, MissingScriptIsAUserError) {
  EXPECT_THROW(prepare_script("/nonexistent.stp", {}), UserError);
}

// iotap's bundled examples keep interrupts off in their handlers (iotap run); any other script
// is a user's, run as stap runs it: a copy elsewhere, or a file under a subdirectory, is not one.
TEST(Script, BundledExamplesAreThoseInTheExamplesDirectory) {
  TempDir dir;
  std::filesystem::create_directories(dir / "examples/sub");
  write_file(dir / "examples/iotime.stp", "probe begin {}\n");
  write_file(dir / "examples/sub/x.stp", "probe begin {}\n");
  write_file(dir / "mine.stp", "probe begin {}\n");
  std::filesystem::create_symlink(dir / "examples/iotime.stp", dir / "link.stp");
  const std::string examples = dir / "examples";
  EXPECT_TRUE(is_bundled_example(dir / "examples/iotime.stp", examples));
  EXPECT_TRUE(is_bundled_example(dir / "examples/../examples/iotime.stp", examples));
  EXPECT_TRUE(is_bundled_example(dir / "link.stp", examples));
  EXPECT_FALSE(is_bundled_example(dir / "mine.stp", examples));
  EXPECT_FALSE(is_bundled_example(dir / "examples/sub/x.stp", examples));
  EXPECT_FALSE(is_bundled_example(dir / "examples/missing.stp", examples));
  EXPECT_FALSE(is_bundled_example(dir / "mine.stp", dir / "no-such-dir"));
}

TEST(Quoting, WordexpGivesBackTheWords) {
  const std::vector<std::string> argv{"/bin/prog", "a b", "it's $HOME", "*", "`id`"};
  const std::string command = quoted_command(argv);
  EXPECT_EQ(single_quoted("it's"), "'it'\\''s'");
  // What staprun does with -c's string: no command substitution, no variables, no globs.
  wordexp_t words;
  ASSERT_EQ(wordexp(command.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF), 0);
  const std::vector<std::string> back(words.we_wordv, words.we_wordv + words.we_wordc);
  wordfree(&words);
  EXPECT_EQ(back, argv);
}

}  // namespace
}  // namespace iotap::stap
