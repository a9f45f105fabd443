#include "callgraph/probe_points.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace iotap::callgraph {
namespace {

TEST(ProbePoints, AllFunctionsByDefaultAndNothingElse) {
  ProbeSelection selection;
  selection.program = "/bin/prog";
  EXPECT_EQ(script_arguments(selection),
            std::vector<std::string>{R"(process("/bin/prog").function("*"))"});
}

TEST(ProbePoints, TriggerIsTheSecondArgument) {
  ProbeSelection selection{"/bin/prog", "read_*", "run", "", ""};
  EXPECT_EQ(script_arguments(selection),
            (std::vector<std::string>{R"(process("/bin/prog").function("read_*"))",
                                      R"(process("/bin/prog").function("run"))"}));
}

TEST(ProbePoints, KernelWithoutATriggerLeavesTheTriggerEmpty) {
  ProbeSelection selection{"/bin/prog", "*", "", "vfs_read", ""};
  EXPECT_EQ(script_arguments(selection),
            (std::vector<std::string>{R"(process("/bin/prog").function("*"))", "",
                                      R"(kprobe.function("vfs_read"))",
                                      R"(kprobe.function("vfs_read").return)"}));
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
  ProbeSelection selection{"/bin/prog", R"(x"){} probe begin{)", "", "", ""};
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
