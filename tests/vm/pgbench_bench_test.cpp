// bench/pgbench for real in the guest, one short round: pgbench -S runs untraced, under iotap's
// postgresql module and under bpftrace with the same probes; iotap writes a query begin for
// every transaction and skips no probe hit. The figures themselves are the benchmark's
// (docs/performance.md), not asserted here. One guest boot, about as long as one --postgres run.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "iotap/util/process.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using PgbenchBench = VmFixture;

TEST_F(PgbenchBench, EachTracerRunsAndIotapSeesEveryQuery) {
  ASSERT_FALSE(find_in_path("bpftrace").empty()) << "bpftrace is missing: run ./setup.sh";
  const Captured run = capture({PGBENCH_BENCH, "--rounds", "1", "--seconds", "3"});
  ASSERT_TRUE(run.status.ok()) << run.out << run.err;
  EXPECT_NE(run.out.find("pgbench -S -T 3 -c 2, scale 1; 1 rounds, medians"), std::string::npos)
      << run.out;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(run.out, match, std::regex(R"(  untraced +([0-9.]+) tps)")))
      << run.out;
  EXPECT_GT(std::stod(match[1]), 0) << run.out;
  const std::regex iotap(
      R"(  iotap +([0-9.]+) tps  [0-9.]+ of untraced .*, (\d+) events, lost (\d+) queries' )"
      R"(begins, (\d+) counted by the tracer)");
  ASSERT_TRUE(std::regex_search(run.out, match, iotap)) << run.out;
  EXPECT_GT(std::stod(match[1]), 0) << run.out;
  EXPECT_GT(std::stoull(match[2]), 0U) << run.out;
  // A query begin for every transaction, and no probe hit skipped. (While syscall_io kept its
  // followed threads in a stap global, a query's begin waited for the lock every system call
  // took to read it, and was skipped: 32 to 101 a round, and stap ends a run at 100.)
  EXPECT_EQ(std::stoull(match[4]), 0U) << run.out << run.err;
  EXPECT_EQ(std::stoull(match[3]), 0U) << run.out << run.err;
  const std::regex bpftrace(R"(  bpftrace +([0-9.]+) tps  [0-9.]+ of untraced .*, (\d+) events)");
  ASSERT_TRUE(std::regex_search(run.out, match, bpftrace)) << run.out;
  EXPECT_GT(std::stod(match[1]), 0) << run.out;
  EXPECT_GT(std::stoull(match[2]), 0U) << run.out;
}

}  // namespace
}  // namespace iotap::test
