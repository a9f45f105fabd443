// The adaptation itself (stap/runtime_adaptation.h), on a runtime and headers of the test's own:
// a change applies when the headers show what it asks for, the copy records what was applied,
// and a runtime that lacks a change's text is refused by name rather than half adapted.
#include "iotap/stap/runtime_adaptation.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

// A runtime of one file and a kernel whose linux/task_work.h says `task_work` (or nothing).
class RuntimeAdaptationTest : public ::testing::Test {
 protected:
  RuntimeAdaptationTest() {
    fs::create_directories(runtime_ + "/linux");
    write_file(runtime_ + "/linux/work.c", "cancel(task); cancel(other);\n");
    fs::create_directories(include_ + "/linux");
  }
  void kernel_header(const std::string& text) { write_file(include_ + "/linux/task_work.h", text); }
  std::vector<std::string> adapt(const std::vector<RuntimeChange>& changes) {
    return adapt_runtime(runtime_, KernelHeaders{{include_}}, copy_, changes);
  }

  TempDir tmp_{"iotap-runtime-adaptation-test"};
  std::string runtime_ = tmp_.path() + "/system";
  std::string include_ = tmp_.path() + "/include";
  std::string copy_ = tmp_.path() + "/copy";
  // Applied when the header names cancel_func; another when it does not.
  std::vector<RuntimeChange> changes_{{"renamed",
                                       "test",
                                       {{"linux/task_work.h", "cancel_func"}},
                                       {{"linux/work.c", "cancel(", "cancel_func("}}},
                                      {"old_api",
                                       "test",
                                       {{"linux/task_work.h", "cancel_func", true}},
                                       {{"linux/work.c", "cancel(other)", "cancel(other, 0)"}}}};
};

TEST_F(RuntimeAdaptationTest, TheHeadersDecideWhichChangesApply) {
  kernel_header("void cancel_func(struct task_struct *);\n");
  EXPECT_EQ(adapt(changes_), (std::vector<std::string>{"renamed"}));
  // Every occurrence, and the record names it.
  EXPECT_EQ(read_file(copy_ + "/linux/work.c"), "cancel_func(task); cancel_func(other);\n");
  EXPECT_EQ(read_file(copy_ + "/iotap-compat.txt"), "renamed\n");
  EXPECT_EQ(read_file(runtime_ + "/linux/work.c"), "cancel(task); cancel(other);\n")
      << "the system's runtime is never edited";
}

TEST_F(RuntimeAdaptationTest, AHeaderWithoutTheTextOrMissingCallsForTheOther) {
  kernel_header("void cancel(struct task_struct *);\n");
  EXPECT_EQ(adapt(changes_), (std::vector<std::string>{"old_api"}));
  EXPECT_EQ(read_file(copy_ + "/linux/work.c"), "cancel(task); cancel(other, 0);\n");
  fs::remove_all(copy_);
  fs::remove(include_ + "/linux/task_work.h");
  EXPECT_EQ(adapt(changes_), (std::vector<std::string>{"old_api"}));
}

TEST_F(RuntimeAdaptationTest, ARuntimeWithoutAChangesTextIsRefusedNamingIt) {
  kernel_header("cancel_func\n");
  changes_[0].replacements[0].from = "uncancel(";
  try {
    adapt(changes_);
    FAIL() << "adapted a runtime that lacks the change's text";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("renamed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("linux/work.c"), std::string::npos) << e.what();
  }
}

// iotap's own table: names unique (they are the record), each says where it comes from, and
// each replaces something.
TEST(RuntimeChanges, EachIsNamedOnceSaysWhereItComesFromAndReplacesSomething) {
  std::set<std::string> names;
  for (const RuntimeChange& change : runtime_changes()) {
    EXPECT_TRUE(names.insert(change.name).second) << change.name;
    EXPECT_FALSE(change.upstream.empty()) << change.name;
    EXPECT_FALSE(change.replacements.empty()) << change.name;
    for (const auto& r : change.replacements) EXPECT_NE(r.from, r.to) << change.name;
  }
  EXPECT_GE(names.size(), 16U);
}

// Makefile.extrawarn as 6.1 has it (the warnings under W=1) and as 6.12 has it (always on), cut
// to the lines that decide.
constexpr const char* kExtrawarn61 =
    "KBUILD_CFLAGS += -Wall\n"
    "ifneq ($(findstring 1, $(KBUILD_EXTRA_WARN)),)\n"
    "KBUILD_CFLAGS += -Wextra -Wunused -Wno-unused-parameter\n"
    "KBUILD_CFLAGS += -Wmissing-declarations\n"
    "KBUILD_CFLAGS += -Wmissing-prototypes\n"
    "endif\n";
constexpr const char* kExtrawarn612 =
    "# Default set of warnings, always enabled\n"
    "KBUILD_CFLAGS += -Wall\n"
    "KBUILD_CFLAGS += -Wextra\n"
    "KBUILD_CFLAGS += $(call cc-disable-warning, frame-address)\n"
    "KBUILD_CFLAGS += -Wmissing-declarations\n"
    "KBUILD_CFLAGS += -Wmissing-prototypes\n"
    "ifneq ($(CONFIG_FRAME_WARN),0)\n"
    "KBUILD_CFLAGS += -Wframe-larger-than=$(CONFIG_FRAME_WARN)\n"
    "endif\n"
    "ifneq ($(findstring 1, $(KBUILD_EXTRA_WARN)),)\n"
    "KBUILD_CFLAGS += -Wold-style-definition\n"
    "endif\n";

TEST(KbuildWarnings, OnlyTheWarningsOutsideEveryConditionalAreAlwaysOn) {
  EXPECT_EQ(always_on_warnings(kExtrawarn61), (std::vector<std::string>{"-Wall"}));
  EXPECT_EQ(always_on_warnings(kExtrawarn612),
            (std::vector<std::string>{"-Wall", "-Wextra", "-Wmissing-declarations",
                                      "-Wmissing-prototypes"}));
}

TEST(KbuildWarnings, TheVariablesSilenceWhatTheKbuildTurnsOnAndNothingElse) {
  KernelHeaders headers;
  EXPECT_TRUE(kbuild_variables(headers).empty());
  headers.always_on_warnings = always_on_warnings(kExtrawarn612);
  EXPECT_EQ(kbuild_variables(headers),
            (std::vector<std::string>{"KCFLAGS=-Wno-missing-prototypes -Wno-missing-declarations "
                                      "-Wno-old-style-declaration"}));
  headers.always_on_warnings = {"-Wextra"};
  EXPECT_EQ(kbuild_variables(headers),
            (std::vector<std::string>{"KCFLAGS=-Wno-old-style-declaration"}));
}

TEST_F(RuntimeAdaptationTest, ArgsHsCountArgsDropsWerrorForTracepointQueriesOnly) {
  write_file(include_ + "/linux/args.h", "#define COUNT_ARGS(X...) __COUNT_ARGS(, ##X, 1, 0)\n");
  EXPECT_EQ(
      kbuild_variables(KernelHeaders{{include_}}),
      (std::vector<std::string>{"CFLAGS_MODULE=$(if $(findstring tracequery,$(M)),-Wno-error)"}));
}

TEST_F(RuntimeAdaptationTest, AChangeForAKbuildWarningNeedsItOn) {
  kernel_header("cancel_func\n");
  changes_[0].when_kbuild_warns = {"-Wextra"};
  EXPECT_EQ(adapt(changes_), (std::vector<std::string>{}));
  fs::remove_all(copy_);
  EXPECT_EQ(
      adapt_runtime(runtime_, KernelHeaders{{include_}, {"-Wall", "-Wextra"}}, copy_, changes_),
      (std::vector<std::string>{"renamed"}));
}

}  // namespace
}  // namespace iotap::stap
