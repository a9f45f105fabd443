#include "stap/stap_stderr.h"

#include <gtest/gtest.h>

namespace iotap::stap {
namespace {

TEST(StapStderr, TakesTheExitStatusOutAndPassesTheRestOn) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  // Lines arrive in pieces, from a serial port, with CRs.
  filter.feed("WARNING: Number of errors: 0, skipped probes: 2\r\nWARNING: iotap-tar");
  filter.feed("get-exit 768\nWARNING: Kernel function symbol table missing [man warning::symbols]\nlast");
  filter.flush();
  EXPECT_EQ(forwarded, "WARNING: Number of errors: 0, skipped probes: 2\nlast\n");
  ASSERT_TRUE(filter.target_exit_status().has_value());
  EXPECT_EQ(*filter.target_exit_status(), 3);  // exit(3): the kernel keeps 3 << 8
}

TEST(StapStderr, KilledTargetReportsLikeAShell) {
  StapStderr filter([](std::string_view) {});
  filter.feed("WARNING: iotap-target-exit 9\n");
  EXPECT_EQ(filter.target_exit_status(), 128 + 9);
}

}  // namespace
}  // namespace iotap::stap

namespace iotap::stap {
namespace {

TEST(StapStderr, ColourEscapesAreDropped) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  filter.feed("\x1b[00;33m\x1b[KWARNING:\x1b[m\x1b[K iotap-target-exit 0\n\x1b[01;31m\x1b[KERROR:\x1b[m\x1b[K oops\n");
  EXPECT_EQ(filter.target_exit_status(), 0);
  EXPECT_EQ(forwarded, "ERROR: oops\n");
}

}  // namespace
}  // namespace iotap::stap
