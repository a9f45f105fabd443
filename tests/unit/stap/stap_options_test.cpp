// iotap run's stap options: the checks that refuse a typo before anything is compiled, the words
// stap, staprun and the module get, and the stap command compile_module builds from them.
#include "iotap/stap/stap_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "iotap/stap/compiler.h"
#include "iotap/util/error.h"

namespace iotap::stap {
namespace {

using Words = std::vector<std::string>;

// The -D words of a stap command.
Words defines_of(const Words& argv) {
  Words defines;
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "-D") defines.push_back(argv[i + 1]);
  return defines;
}

TEST(StapOptions, DefinesTakeStapsForms) {
  EXPECT_EQ(check_define("MAXACTION=100000"), "MAXACTION=100000");
  EXPECT_EQ(check_define("STP_NO_OVERLOAD"), "STP_NO_OVERLOAD");  // stap takes a bare name
  EXPECT_EQ(check_define("_x1=-5"), "_x1=-5");
  for (const char* bad : {"", "=5", "1X=3", "X=", "X=a b", "X=(1)", "X=a.b", "X=--5", "X Y=1"})
    EXPECT_THROW(check_define(bad), UserError) << bad;
}

TEST(StapOptions, GlobalsTakeNameEqualsValue) {
  EXPECT_EQ(check_global("max_lines=3"), "max_lines=3");
  EXPECT_EQ(check_global("Dev=vda-1.5_x"), "Dev=vda-1.5_x");
  for (const char* bad :
       {"", "limit", "limit=", "=3", "1x=3", "x=a/b", "x=a b", "x='a'", "x=$(id)"})
    EXPECT_THROW(check_global(bad), UserError) << bad;
}

// stap takes -G limit=3 and the module refuses the parameter at load time: no script can declare
// a global named as a keyword (run --help's own example once did it). A name that only starts
// like one is a name.
TEST(StapOptions, GlobalsNamedAsKeywordsAreRefused) {
  for (const char* keyword :
       {"limit",   "probe", "global", "function", "if",       "else",   "for",
        "foreach", "in",    "while",  "break",    "continue", "return", "next",
        "delete",  "try",   "catch",  "string",   "long",     "private"}) {
    const std::string global = std::string(keyword) + "=3";
    try {
      check_global(global);
      ADD_FAILURE() << global << " was taken";
    } catch (const UserError& error) {
      EXPECT_NE(
          std::string(error.what()).find("'" + std::string(keyword) + "' is a SystemTap keyword"),
          std::string::npos)
          << error.what();
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    }
  }
  for (const char* name : {"limits=3", "Limit=3", "probe_count=1", "interval=5", "do=1"})
    EXPECT_EQ(check_global(name), name);
}

// -d: a module by name, stap's "kernel", or a file that exists; anything else is refused.
TEST(StapOptions, UnwindModulesAreNamesOrFiles) {
  for (const char* good : {"raid0", "md-mod", "md_mod", "kernel", "dm_delay"})
    EXPECT_EQ(check_unwind_module(good), good);
  EXPECT_EQ(check_unwind_module("/bin/sh"), "/bin/sh");
  for (const char* bad :
       {"", "raid0.ko", "raid0;x", "raid0 x", "$(id)", "/nonexistent/raid0.ko", "/"})
    EXPECT_THROW(check_unwind_module(bad), UserError) << bad;
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
  options.globals = {"max_lines=3", "name=vda"};
  options.unwind_modules = {"raid0", "/lib/modules/x/md-mod.ko"};
  options.guru = true;
  options.suppress_time_limits = true;
  options.all_modules = true;
  options.verbosity = 2;
  options.exit_after_seconds = 7;
  EXPECT_EQ(
      compile_words(options),
      (Words{"-D", "MAXACTION=5000", "-D", "STP_NO_OVERLOAD", "-g", "--suppress-time-limits", "-d",
             "raid0", "-d", "/lib/modules/x/md-mod.ko", "--all-modules", "-T", "7", "-v", "-v"}));
  EXPECT_EQ(staprun_words(options), (Words{"-v", "-v"}));
  EXPECT_EQ(module_words(options), (Words{"max_lines=3", "name=vda"}));
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
  expected.insert(expected.end(), {"-I", "/w/tapset-paths", "-D", "MAXACTION=5000", "-v", "--",
                                   "/w/iotap.stp", "-x", "5"});
  EXPECT_EQ(argv, expected);
}

// iotap's own scripts run their handlers with interrupts off, so that an interrupt's probe hit
// is not dropped uncounted while another handler runs on its CPU, and wait longer for a
// global's lock; the user's own -D INTERRUPTIBLE or MAXTRYLOCK replaces iotap's.
TEST(StapArgv, IotapsOwnScriptsRunHandlersWithInterruptsOffUnlessTheUserSaysOtherwise) {
  const auto own = [](Words options) {
    CompileRequest request{"probe begin {}\n", "events.stp", "", "", "/w", {}, "", options};
    request.interrupts_off = true;
    return defines_of(stap_argv(request));
  };
  EXPECT_EQ(own({}), (Words{"INTERRUPTIBLE=0", "MAXTRYLOCK=100000"}));
  EXPECT_EQ(own({"-D", "INTERRUPTIBLE=1"}), (Words{"MAXTRYLOCK=100000", "INTERRUPTIBLE=1"}));
  EXPECT_EQ(own({"-D", "INTERRUPTIBLE"}), (Words{"MAXTRYLOCK=100000", "INTERRUPTIBLE"}));
  // A global another CPU holds is waited for up to 1 s, not stap's 1 ms, unless the user says.
  EXPECT_EQ(own({"-D", "MAXTRYLOCK=50"}), (Words{"INTERRUPTIBLE=0", "MAXTRYLOCK=50"}));
}

// A user's script (iotap run) gets stap's own default, interrupts on, and with it stap 4.8's
// budgets: INTERRUPTIBLE=0 gave begin, end, init and tracepoint handlers MAXACTION (1,000)
// instead of MAXACTION_INTERRUPTIBLE (10,000), and scripts on syscall_any (whose init runs 1,660
// statements) died with "MAXACTION exceeded". The user may still ask for interrupts off.
TEST(StapArgv, AUsersScriptGetsStapsOwnInterruptsAndBudgets) {
  const auto users = [](Words options) {
    return defines_of(
        stap_argv({"probe begin {}\n", "my.stp", "", "", "/w", {}, "", std::move(options)}));
  };
  EXPECT_EQ(users({}), Words{});
  EXPECT_EQ(users({"-D", "INTERRUPTIBLE=0"}), Words{"INTERRUPTIBLE=0"});
  EXPECT_EQ(users({"-D", "MAXACTION=5000"}), Words{"MAXACTION=5000"});
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
