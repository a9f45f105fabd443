#include "stap/stap_stderr.h"

#include <gtest/gtest.h>

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
