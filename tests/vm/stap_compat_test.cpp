// iotap run as stap would run a script, for real in the guest (issue 27): backtraces through the
// guest's md modules with their unwind data (-d MODULE, --all-modules), stap's own names left as
// stap printed them, and run --help's example of stap's options running as written.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using StapCompatTest = VmFixture;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The frames md_backtrace.stp printed: stap's print_backtrace() lines, " 0xADDRESS : NAME+OFF/SIZE
// [MODULE]".
std::vector<std::string> frames_of(const std::string& out) {
  std::vector<std::string> frames;
  bool in_backtrace = false;
  for (const auto& line : lines_of(out)) {
    if (line.starts_with("backtrace of ")) in_backtrace = true;
    if (line == "end of backtrace") break;
    if (in_backtrace && !line.starts_with("backtrace of ")) frames.push_back(line);
  }
  return frames;
}

// What a backtrace through raid0 and md must show: stap named every frame itself, from the
// guest's modules' own symbols and unwind data, and iotap left the address column alone.
void expect_unwound_through_md(const Captured& run) {
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_FALSE(contains(run.err, "Missing unwind data")) << run.err;
  const std::vector<std::string> frames = frames_of(run.out);
  ASSERT_FALSE(frames.empty()) << run.out;
  bool raid0 = false;
  bool md = false;
  bool below_md = false;  // a vmlinux frame under md's: the walk went on through md_mod
  for (const auto& frame : frames) {
    // The probe handler's own frames, in the module iotap compiled ("[iotap+0xa5b6/0x0]").
    if (contains(frame, " [iotap+")) continue;
    // " 0xffffffffc0524151 : raid0_make_request+0x151/0x200 [raid0]": an address, then stap's name.
    EXPECT_TRUE(frame.starts_with(" 0xffff") && contains(frame, " : ")) << frame << "\n" << run.out;
    EXPECT_FALSE(contains(frame, "(inexact)")) << frame << "\n" << run.out;
    raid0 = raid0 || frame.ends_with(" [raid0]");
    if (md && frame.ends_with(" [kernel]")) below_md = true;
    md = md || frame.ends_with(" [md_mod]");
  }
  EXPECT_TRUE(raid0) << "no raid0 frame:\n" << run.out;
  EXPECT_TRUE(md) << "no md_mod frame:\n" << run.out;
  EXPECT_TRUE(below_md) << "the walk stopped in md_mod:\n" << run.out;
}

constexpr const char* kStack = "raid0(ram*2)";
constexpr const char* kReads = "block_hasher -d __DEV__ -b 1048576 -t 1 -n 4 --direct";

// --all-modules in a guest run: the kernel and the modules the guest has loaded (here md_mod,
// raid0, brd), not this host's /proc/modules (this host has none: its kernel has no modules).
TEST_F(StapCompatTest, AllModulesUnwindsThroughTheGuestsMdModules) {
  const std::string script = VM_SCRIPTS_DIR "/scripts/md_backtrace.stp";
  expect_unwound_through_md(
      iotap({"run", script, "--all-modules", "--target", "vm", "--stack", kStack, "-c", kReads}));
}

// -d MODULE by name, as on a real machine: the guest kernel's raid0 and md_mod, and stap's own
// -d kernel for vmlinux (without it, stap says "Missing unwind data for a module, rerun with
// 'stap -d kernel'", as it would on a real machine).
TEST_F(StapCompatTest, DashDNamesTheGuestsModules) {
  const std::string script = VM_SCRIPTS_DIR "/scripts/md_backtrace.stp";
  expect_unwound_through_md(iotap({"run", script, "-d", "raid0", "-d", "md_mod", "-d", "kernel",
                                   "--target", "vm", "--stack", kStack, "-c", kReads}));
}

// run --help's example of stap's options, run as written, with a my.stp that prints what it got:
// its -G once named `limit`, a SystemTap keyword no script can declare.
TEST_F(StapCompatTest, RunHelpsStapOptionsExampleRuns) {
  const Captured help = iotap({"run", "--help"});
  ASSERT_EQ(help.status.code, 0);
  std::vector<std::string> example;
  for (const auto& line : lines_of(help.out)) {
    if (!contains(line, "iotap run my.stp") || !contains(line, " -G ")) continue;
    std::istringstream words(line.substr(0, line.find('#')));
    for (std::string word; words >> word;) example.push_back(word);
    break;
  }
  ASSERT_GE(example.size(), 6U) << help.out;
  ASSERT_EQ(example[0], "iotap");
  example.erase(example.begin());  // run my.stp ARG... -G NAME=VALUE ...
  // The script's arguments: the words after my.stp up to the first option.
  std::vector<std::string> args;
  for (size_t i = 2; i < example.size() && !example[i].starts_with("-"); ++i)
    args.push_back(example[i]);
  ASSERT_EQ(args.size(), 2U) << "the example's $1 and $2";
  std::string global;
  for (size_t i = 0; i + 1 < example.size(); ++i)
    if (example[i] == "-G") global = example[i + 1];
  const std::string name = global.substr(0, global.find('='));
  const std::string value = global.substr(global.find('=') + 1);
  ASSERT_FALSE(name.empty()) << global;

  TempDir dir{"iotap-help-example"};
  const std::string script = dir / "my.stp";
  write_file(script, "global " + name + " = 0\nprobe begin {\n  printf(\"%s %d %d\\n\", @1, $2, " +
                         name + ")\n  exit()\n}\n");
  example[1] = script;
  const Captured run = iotap(example);
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, args[0] + " " + args[1] + " " + value + "\n") << run.err;
}

}  // namespace
}  // namespace iotap::test
