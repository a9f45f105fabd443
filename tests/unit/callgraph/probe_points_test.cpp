#include "iotap/callgraph/probe_points.h"

#include <gtest/gtest.h>

#include "iotap/guest/elf_dependencies.h"
#include "iotap/util/error.h"

namespace iotap::callgraph {
namespace {

TEST(ProbePoints, AllFunctionsByDefaultAndNothingElse) {
  ProbeSelection selection;
  selection.program = "/bin/prog";
  EXPECT_EQ(script_arguments(selection),
            std::vector<std::string>{R"(process("/bin/prog").function("*@*"))"});
}

TEST(ProbePoints, TriggerIsTheSecondArgument) {
  ProbeSelection selection{"/bin/prog", "read_*", "run", "", "", {}};
  EXPECT_EQ(script_arguments(selection),
            (std::vector<std::string>{R"(process("/bin/prog").function("read_*@*"))",
                                      R"(process("/bin/prog").function("run@*"))"}));
}

TEST(ProbePoints, KernelWithoutATriggerLeavesTheTriggerEmpty) {
  ProbeSelection selection{"/bin/prog", "*", "", "vfs_read", "", {}};
  EXPECT_EQ(script_arguments(selection),
            (std::vector<std::string>{R"(process("/bin/prog").function("*@*"))", "",
                                      R"(kprobe.function("vfs_read"))",
                                      R"(kprobe.function("vfs_read").return)"}));
}

// Symbol-table-only parts such as "parse.cold" are entered by a jump: a return probe there
// would overwrite a word of the caller's frame. "@*" keeps to the functions with debug info.
TEST(ProbePoints, OnlyFunctionsWithDebugInfoUnlessAFileIsNamed) {
  EXPECT_EQ(user_probe_point("/bin/prog", "parse_*"),
            R"(process("/bin/prog").function("parse_*@*"))");
  EXPECT_EQ(user_probe_point("/bin/prog", "parse_*@options.cpp"),
            R"(process("/bin/prog").function("parse_*@options.cpp"))");
}

TEST(ProbePoints, ExceptionProbesAreTheFifthAndSixthArguments) {
  ProbeSelection selection{"/bin/prog", "*", "", "", "", {}};
  selection.exceptions = {R"(process("/lib/libgcc_s.so.1").function("_Unwind_RaiseException"))",
                          R"(process("/lib/libstdc++.so.6").function("__cxa_begin_catch"))"};
  EXPECT_EQ(
      script_arguments(selection),
      (std::vector<std::string>{R"(process("/bin/prog").function("*@*"))", "", "", "",
                                selection.exceptions.unwind, selection.exceptions.catch_point}));
}

// An ASan build's program defines _Unwind_RaiseException itself (the sanitizer runtime's
// interceptor, linked in statically): the program's throws call that one, so that is where the
// probe must go.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kProgramInterceptsTheUnwinder = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kProgramInterceptsTheUnwinder = true;
#else
constexpr bool kProgramInterceptsTheUnwinder = false;
#endif
#else
constexpr bool kProgramInterceptsTheUnwinder = false;
#endif

// block_hasher (C++) finds the unwinder in libgcc_s and the catch in libstdc++; the program
// alone, which defines neither, has nothing to probe.
TEST(ExceptionProbes, FoundInTheLibrariesThatDefineThem) {
  std::vector<std::string> files{BLOCK_HASHER};
  for (const auto& library : guest::runtime_dependencies(BLOCK_HASHER)) files.push_back(library);
  const auto points = exception_probe_points(files);
  const std::string raise_from =
      kProgramInterceptsTheUnwinder ? std::string(BLOCK_HASHER) : std::string("libgcc_s.so.1");
  EXPECT_NE(points.unwind.find(raise_from + R"(").function("_Unwind_RaiseException"))"),
            std::string::npos)
      << points.unwind;
  EXPECT_NE(points.unwind.find(R"(.function("_Unwind_ForcedUnwind"))"), std::string::npos);
  EXPECT_NE(points.unwind.find(R"(.function("_Unwind_Resume_or_Rethrow"))"), std::string::npos);
  EXPECT_NE(points.catch_point.find(R"(").function("__cxa_begin_catch"))"), std::string::npos)
      << points.catch_point;
  EXPECT_EQ(points.catch_point.find("block_hasher"), std::string::npos)
      << "block_hasher only calls it";
  const auto none = exception_probe_points({BLOCK_HASHER});
  if (!kProgramInterceptsTheUnwinder) {
    EXPECT_EQ(none.unwind, "");
  }
  EXPECT_EQ(none.catch_point, "");
}

// The guest kernel's raid0.ko, installed on this host with its headers (setup.sh).
TEST(ProbePoints, ModuleGlobsAreExpandedFromTheModulesSymbols) {
  const auto points = kernel_probe_points("raid0:raid0_m*", GUEST_KERNEL);
  EXPECT_EQ(points.entry, R"(kprobe.module("raid0").function("raid0_make_request"), )"
                          R"(kprobe.module("raid0").function("raid0_map_submit_bio"))");
  EXPECT_EQ(points.exit, R"(kprobe.module("raid0").function("raid0_make_request").return, )"
                         R"(kprobe.module("raid0").function("raid0_map_submit_bio").return)");
  const auto all = kernel_probe_points("raid0:*", GUEST_KERNEL);
  EXPECT_EQ(all.entry.find(".cold"), std::string::npos) << "no compiler-split parts";
  EXPECT_EQ(all.entry.find("init_module"), std::string::npos);
  EXPECT_THROW(kernel_probe_points("raid0:no_such_*", GUEST_KERNEL), UserError);
  EXPECT_THROW(kernel_probe_points("no_such_module:*", GUEST_KERNEL), UserError);
  EXPECT_THROW(kernel_probe_points(":x", GUEST_KERNEL), UserError);
  EXPECT_THROW(kernel_probe_points("raid0:", GUEST_KERNEL), UserError);
}

TEST(ProbePoints, RefusesWhatWouldEndTheStringLiteral) {
  ProbeSelection selection{"/bin/prog", R"(x"){} probe begin{)", "", "", "", {}};
  EXPECT_THROW(script_arguments(selection), UserError);
  selection.functions = "*";
  selection.trigger = "a\\b";
  EXPECT_THROW(script_arguments(selection), UserError);
  selection.trigger = "";
  selection.kernel = "a\nb";
  EXPECT_THROW(script_arguments(selection), UserError);
  selection.kernel = "";
  selection.functions = "";
  EXPECT_THROW(script_arguments(selection), UserError);
}

}  // namespace
}  // namespace iotap::callgraph
