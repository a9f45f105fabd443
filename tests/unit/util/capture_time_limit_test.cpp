// capture()'s time limit (SpawnOptions::time_limit): the tests' guard against a run that hangs.
// Past it the child is asked to stop with SIGTERM, as Ctrl-C would ask iotap, and what it said
// comes back with a line saying why it ended.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

#include "iotap/util/process.h"

namespace iotap {
namespace {

TEST(CaptureTimeLimit, AChildPastItGetsSigtermAndWhatItSaidComesBack) {
  SpawnOptions options;
  options.time_limit = std::chrono::seconds(1);
  const auto start = std::chrono::steady_clock::now();
  const Captured run =
      capture({"/bin/sh", "-c", "echo before; echo said >&2; exec sleep 60"}, options);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(run.status.signaled);
  EXPECT_EQ(run.status.code, 128 + SIGTERM);
  EXPECT_EQ(run.out, "before\n");
  EXPECT_EQ(run.err, "said\n\n[capture: ran past its 1 s time limit: sent SIGTERM]\n");
  EXPECT_LT(took, std::chrono::seconds(30)) << "it waited for sleep 60";
}

TEST(CaptureTimeLimit, AChildWithinItEndsAsItWouldWithoutOne) {
  SpawnOptions options;
  options.time_limit = std::chrono::seconds(60);
  const Captured run = capture({"/bin/sh", "-c", "echo out; exit 3"}, options);
  EXPECT_EQ(run.status.code, 3);
  EXPECT_FALSE(run.status.signaled);
  EXPECT_EQ(run.out, "out\n");
  EXPECT_EQ(run.err, "");
}

}  // namespace
}  // namespace iotap
