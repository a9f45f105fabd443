// iotap run's stap options: the checks that refuse a typo before anything is compiled, the words
// stap, staprun and the module get, and the stap command compile_module builds from them.
#include "iotap/stap/stap_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "iotap/stap/compiler.h"
#include "iotap/util/error.h"

namespace iotap::stap {
namespace {

using Words = std::vector<std::string>;

TEST(StapOptions, DefinesTakeStapsForms) {
  EXPECT_EQ(check_define("MAXACTION=100000"), "MAXACTION=100000");
  EXPECT_EQ(check_define("STP_NO_OVERLOAD"), "STP_NO_OVERLOAD");  // stap takes a bare name
  EXPECT_EQ(check_define("_x1=-5"), "_x1=-5");
  for (const char* bad : {"", "=5", "1X=3", "X=", "X=a b", "X=(1)", "X=a.b", "X=--5", "X Y=1"})
    EXPECT_THROW(check_define(bad), UserError) << bad;
}

TEST(StapOptions, GlobalsTakeNameEqualsValue) {
  EXPECT_EQ(check_global("limit=3"), "limit=3");
  EXPECT_EQ(check_global("Dev=vda-1.5_x"), "Dev=vda-1.5_x");
  for (const char* bad :
       {"", "limit", "limit=", "=3", "1x=3", "x=a/b", "x=a b", "x='a'", "x=$(id)"})
    EXPECT_THROW(check_global(bad), UserError) << bad;
}

TEST(StapOptions, SuppressTimeLimitsNeedsGuruMode) {
  StapOptions options;
  options.suppress_time_limits = true;
  EXPECT_THROW(check_stap_options(options), UserError);
  options.guru = true;
  EXPECT_NO_THROW(check_stap_options(options));
}

TEST(StapOptions, EachProgramGetsItsWords) {
  StapOptions options;
  options.defines = {"MAXACTION=5000", "STP_NO_OVERLOAD"};
  options.globals = {"limit=3", "name=vda"};
  options.guru = true;
  options.suppress_time_limits = true;
  options.all_modules = true;
  options.verbosity = 2;
  options.exit_after_seconds = 7;
  EXPECT_EQ(compile_words(options),
            (Words{"-D", "MAXACTION=5000", "-D", "STP_NO_OVERLOAD", "-g", "--suppress-time-limits",
                   "--all-modules", "-T", "7", "-v", "-v"}));
  EXPECT_EQ(staprun_words(options), (Words{"-v", "-v"}));
  EXPECT_EQ(module_words(options), (Words{"limit=3", "name=vda"}));
  EXPECT_TRUE(compile_words(StapOptions{}).empty());
  EXPECT_TRUE(staprun_words(StapOptions{}).empty());
}

// Options go before the script; the script's arguments after it, behind a `--` so that one
// starting with '-' is not read by stap as an option of its own.
TEST(StapArgv, OptionsBeforeTheScriptArgumentsAfterIt) {
  CompileRequest request{"probe begin {}\n",
                         "my.stp",
                         "6.1.0-test",
                         "/rt",
                         "/w",
                         {"-x", "5"},
                         "",
                         {"-D", "MAXACTION=5000", "-v"}};
  const Words argv = stap_argv(request);
  Words expected{"stap", "-p4", "-m", "iotap", "-r", "6.1.0-test", "-R", "/rt"};
  for (const auto& dir : tapset_dirs()) expected.insert(expected.end(), {"-I", dir});
  expected.insert(expected.end(), {"-I", "/w/tapset-paths", "-D", "INTERRUPTIBLE=0", "-D",
                                   "MAXACTION=5000", "-v", "--", "/w/iotap.stp", "-x", "5"});
  EXPECT_EQ(argv, expected);
}

// Handlers run with interrupts off, so that an interrupt's probe hit is not dropped uncounted
// while another handler runs on its CPU; the user's own -D INTERRUPTIBLE replaces iotap's.
TEST(StapArgv, HandlersRunWithInterruptsOffUnlessTheUserSaysOtherwise) {
  const auto defines_of = [](const Words& argv) {
    Words defines;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-D") defines.push_back(argv[i + 1]);
    return defines;
  };
  EXPECT_EQ(defines_of(stap_argv({"probe begin {}\n", "my.stp", "", "", "/w", {}, "", {}})),
            Words{"INTERRUPTIBLE=0"});
  EXPECT_EQ(defines_of(stap_argv(
                {"probe begin {}\n", "my.stp", "", "", "/w", {}, "", {"-D", "INTERRUPTIBLE=1"}})),
            Words{"INTERRUPTIBLE=1"});
  EXPECT_EQ(defines_of(stap_argv(
                {"probe begin {}\n", "my.stp", "", "", "/w", {}, "", {"-D", "INTERRUPTIBLE"}})),
            Words{"INTERRUPTIBLE"});
}

TEST(StapArgv, NoOptionsNoArguments) {
  const Words argv = stap_argv({"probe begin {}\n", "my.stp", "", "", "/w", {}, "", {}});
  ASSERT_GE(argv.size(), 2U);
  EXPECT_EQ(argv[argv.size() - 2], "--");
  EXPECT_EQ(argv.back(), "/w/iotap.stp");
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "-r"), 0);
}

}  // namespace
}  // namespace iotap::stap
