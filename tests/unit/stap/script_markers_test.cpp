// Markers are replaced where stap sees them (code, string literals, embedded C) and left alone
// in comments; the script is checked (type, emptiness) before anything is compiled.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <string>

#include "iotap/stap/script.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

const Markers kBoth{"/usr/bin/prog", 42};

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

TEST(ScriptMarkers, CommentsKeepTheirMarkers) {
  const std::string text =
      "# run as: iotap run x.stp -x PID   (__PID__ is the pid, __EXE__ its program)\n"
      "// __EXE__ again\n"
      "/* and __PID__\n   over __EXE__ lines */\n"
      "probe process(\"__EXE__\").mark(\"x\") { if (pid() == __PID__) exit() }  # __PID__\n";
  EXPECT_EQ(
      substitute_markers(text, kBoth, "x.stp"),
      "# run as: iotap run x.stp -x PID   (__PID__ is the pid, __EXE__ its program)\n"
      "// __EXE__ again\n"
      "/* and __PID__\n   over __EXE__ lines */\n"
      "probe process(\"/usr/bin/prog\").mark(\"x\") { if (pid() == 42) exit() }  # __PID__\n");
}

TEST(ScriptMarkers, AMarkerOnlyInACommentNeedsNoValue) {
  // Before: "uses __PID__, which needs -x PID" for a script that only mentions it.
  const std::string text = "# attach with -x; __PID__ is then the pid\nprobe begin { exit() }\n";
  EXPECT_EQ(substitute_markers(text, {}, "x.stp"), text);
}

TEST(ScriptMarkers, AMarkerInCodeWithoutAValueSaysWhichLineAndWhatToAdd) {
  const std::string text = "# __PID__ here is fine\nprobe begin {\n  println(__PID__)\n}\n";
  EXPECT_EQ(error_of([&] {
              substitute_markers(text, {"/bin/true", std::nullopt}, "x.stp");
            }),
            "x.stp uses __PID__, which needs -x PID (line 3)");
}

TEST(ScriptMarkers, CommentSignsInsideStringsAreNotComments) {
  const std::string text = "probe begin { printf(\"# // /* %s\\n\", \"__EXE__\") }\n";
  EXPECT_EQ(substitute_markers(text, kBoth, "x.stp"),
            "probe begin { printf(\"# // /* %s\\n\", \"/usr/bin/prog\") }\n");
}

TEST(ScriptMarkers, AQuoteInsideAStringDoesNotEndIt) {
  const std::string text = "probe begin { println(\"say \\\"__PID__\\\" # __PID__\") }\n";
  EXPECT_EQ(substitute_markers(text, kBoth, "x.stp"),
            "probe begin { println(\"say \\\"42\\\" # 42\") }\n");
}

TEST(ScriptMarkers, APathIsEscapedInsideAString) {
  const Markers odd{"/tmp/a \"quoted\" back\\slash", std::nullopt};
  EXPECT_EQ(substitute_markers("probe process(\"__EXE__\").begin {}\n", odd, "x.stp"),
            "probe process(\"/tmp/a \\\"quoted\\\" back\\\\slash\").begin {}\n");
}

TEST(ScriptMarkers, ArgumentCountIsNotAComment) {
  // $# and @# are stap's argument counts; the rest of the line is code.
  EXPECT_EQ(substitute_markers("probe begin { if ($# > 0 && @# != \"\") println(__PID__) }\n",
                               kBoth, "x.stp"),
            "probe begin { if ($# > 0 && @# != \"\") println(42) }\n");
}

TEST(ScriptMarkers, EmbeddedCIsCodeEvenWithAHash) {
  EXPECT_EQ(substitute_markers("%{ #include <linux/fs.h>\n static int p = __PID__; %}\n# __PID__\n",
                               kBoth, "x.stp"),
            "%{ #include <linux/fs.h>\n static int p = 42; %}\n# __PID__\n");
}

TEST(ScriptMarkers, AnUnterminatedStringEndsAtTheLine) {
  // stap reports the string; what follows on the next lines is code again, as stap reads it.
  EXPECT_EQ(substitute_markers("x = \"open\nprobe begin { println(__PID__) } # __PID__\n", kBoth,
                               "x.stp"),
            "x = \"open\nprobe begin { println(42) } # __PID__\n");
}

TEST(ScriptMarkers, LineCountsAreKept) {
  const std::string text =
      "# __EXE__\n/* __PID__\n*/ probe process(\"__EXE__\").begin { println(__PID__) }\n"
      "probe begin { println(\"a\\\nb __EXE__\") }\n";
  const std::string out = substitute_markers(text, kBoth, "x.stp");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(text.begin(), text.end(), '\n'));
}

// ---- the script file itself --------------------------------------------------------------

TEST(ScriptFile, ADirectoryIsNotAScript) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { read_script(dir.path()); }),
            dir.path() + " is a directory, not a script (name the .stp file)");
}

TEST(ScriptFile, AFifoIsRefusedWithoutOpeningIt) {
  // Opening it would wait for a writer that never comes: the test would hang.
  TempDir dir;
  const std::string fifo = dir / "s.stp";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { prepare_script(fifo, {}); }),
            fifo + " is a FIFO (named pipe), not a script (name a .stp file on disk)");
}

TEST(ScriptFile, AnEmptyScriptIsSaidBeforeStapSeesIt) {
  TempDir dir;
  write_file(dir / "s.stp", " \n\n");
  EXPECT_EQ(error_of([&] { read_script(dir / "s.stp"); }),
            dir / "s.stp" + " is empty: there is no script to compile");
}

TEST(ScriptFile, AMissingScriptSaysSo) {
  EXPECT_EQ(error_of([] { read_script("/nonexistent/s.stp"); }),
            "cannot read script '/nonexistent/s.stp': it does not exist (check the path)");
}

}  // namespace
}  // namespace iotap::stap
