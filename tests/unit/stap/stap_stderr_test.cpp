#include "iotap/stap/stap_stderr.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iotap::stap {
namespace {

TEST(StapStderr, TakesTheExitStatusOutAndPassesTheRestOn) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  // Lines arrive in pieces, from a serial port, with CRs.
  filter.feed(
      "WARNING: Number of errors: 0, skipped probes: 2\r\nWARNING: Child process exited wi");
  filter.feed(
      "th status 3\nWARNING: Kernel function symbol table missing [man warning::symbols]\nlast");
  filter.flush();
  EXPECT_EQ(forwarded, "WARNING: Number of errors: 0, skipped probes: 2\nlast\n");
  ASSERT_TRUE(filter.target_exit_status().has_value());
  EXPECT_EQ(*filter.target_exit_status(), 3);
}

TEST(StapStderr, NoReportMeansNoStatus) {
  StapStderr filter([](std::string_view) {});
  filter.feed("WARNING: Number of errors: 0, skipped probes: 0\n");
  EXPECT_FALSE(filter.target_exit_status().has_value());
}

TEST(StapStderr, KilledTargetReportsLikeAShell) {
  StapStderr filter([](std::string_view) {});
  filter.feed("WARNING: Child process exited with signal 9 (Killed)\n");
  EXPECT_EQ(filter.target_exit_status(), 128 + 9);
}

}  // namespace
}  // namespace iotap::stap

namespace iotap::stap {
namespace {

// iotap callgraph probes libgcc_s and libstdc++ by their symbol tables (C++ exceptions); stap's
// warning that they have no DWARF, and its "suppressed" tail, are noise. Other modules' are not.
TEST(StapStderr, TheCxxRuntimesMissingDwarfIsNoise) {
  EXPECT_TRUE(is_known_noise(
      "WARNING: cannot find module /usr/lib/x86_64-linux-gnu/libgcc_s.so.1 debuginfo: No DWARF "
      "information found [man warning::debuginfo]"));
  EXPECT_TRUE(is_known_noise(
      "WARNING: cannot find module /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30 debuginfo: No "
      "DWARF information found [man warning::debuginfo]"));
  EXPECT_TRUE(is_known_noise("Number of similar warning messages suppressed: 2."));
  EXPECT_FALSE(is_known_noise(
      "WARNING: cannot find module /home/me/prog debuginfo: No DWARF information found"));
}

// Recorded from a module compiled for 6.12.117+deb12-cloud-amd64 (IBT): one such line a function
// of the module; objtool's other warnings still reach the user.
TEST(StapStderr, ObjtoolsEhFrameEndbrLinesAreNoise) {
  EXPECT_TRUE(is_known_noise(
      "/tmp/iotap-run.1459.Xjrsj6/staprPSauZ/iotap.o: warning: objtool: .eh_frame+0xde8: data "
      "relocation to !ENDBR: _stp_softerror+0x0"));
  EXPECT_FALSE(is_known_noise(
      "/tmp/iotap-run.1459.Xjrsj6/staprPSauZ/iotap.o: warning: objtool: probe_1234+0x12: "
      "unreachable instruction"));
}

TEST(StapStderr, ColourEscapesAreDropped) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  filter.feed(
      "\x1b[00;33m\x1b[KWARNING:\x1b[m\x1b[K Child process exited with status "
      "1\n\x1b[01;31m\x1b[KERROR:\x1b[m\x1b[K oops\n");
  EXPECT_EQ(filter.target_exit_status(), 1);
  EXPECT_EQ(forwarded, "ERROR: oops\n");
}

}  // namespace
}  // namespace iotap::stap

namespace iotap::stap {
namespace {

// The program's stderr shares the stream with staprun's: its lines go their own way, and the
// last one is kept, to say why a run that did no I/O ended.
TEST(StapStderr, TheProgramsLinesAreSeparatedAndTheLastIsKept) {
  std::string forwarded;
  std::vector<std::string> program;
  StapStderr filter([&](std::string_view line) { forwarded += line; },
                    [&](std::string_view line) { program.emplace_back(line); });
  filter.feed("block_hasher: starting\nWARNING: Number of errors: 0, skipped probes: 0\n");
  filter.feed("block_hasher: cannot open /x: No such file or directory (check the device path)\n");
  filter.feed("  \nWARNING: Child process exited with status 2\nERROR: something of stap's\n");
  filter.flush();
  EXPECT_EQ(forwarded,
            "WARNING: Number of errors: 0, skipped probes: 0\nERROR: something of stap's\n");
  EXPECT_EQ(program,
            (std::vector<std::string>{"block_hasher: starting",
                                      "block_hasher: cannot open /x: No such file or directory "
                                      "(check the device path)",
                                      "  "}));
  EXPECT_EQ(filter.last_program_line(),
            "block_hasher: cannot open /x: No such file or directory (check the device path)");
  EXPECT_EQ(filter.target_exit_status(), 2);
}

TEST(StapStderr, NoProgramLineMeansAnEmptyLastLine) {
  StapStderr filter([](std::string_view) {});
  filter.feed("WARNING: Number of errors: 0, skipped probes: 0\nstaprun: module busy\n");
  filter.flush();
  EXPECT_EQ(filter.last_program_line(), "");
}

}  // namespace
}  // namespace iotap::stap
