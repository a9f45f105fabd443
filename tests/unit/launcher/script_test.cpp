#include "stap/script.h"

#include <gtest/gtest.h>

#include "target/vm/vm_runner.h"
#include "util/error.h"
#include "util/files.h"
#include "util/temp_dir.h"

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

TEST(WordexpQuoting, SingleQuotesSurviveWordexp) {
  EXPECT_EQ(vm::quote_for_wordexp("a b"), "'a b'");
  EXPECT_EQ(vm::quote_for_wordexp("it's $HOME"), "'it'\\''s $HOME'");
}

}  // namespace
}  // namespace iotap::stap
