// What block_hasher's USDT probes cost when nothing is attached to them, against block_hasher
// built with the probes compiled out (bench/overhead/noprobes): instructions per read, counted
// by valgrind's cachegrind. A count is exact and repeats run to run, where the wall clock of
// the same two builds in the guest (bench/overhead) scatters by ±10% between rounds under TCG,
// ten times the 1% this is held to (docs/performance.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "test_files.h"

#ifndef BLOCK_HASHER_BIN
#error "BLOCK_HASHER_BIN must name the block_hasher executable"
#endif
#ifndef BARE_BLOCK_HASHER_BIN
#error "BARE_BLOCK_HASHER_BIN must name block_hasher built without probes"
#endif

namespace {

constexpr std::size_t kBlock = 4096;  // bench/overhead's small reads: the most probe hits per byte
constexpr std::size_t kReads = 1024;

// The instructions one run of binary executed, reading all of file in 4 KiB blocks on one
// thread (one thread: no waiting on another, whose spinning would vary the count).
uint64_t instructions(const std::string& binary, const std::string& file) {
  const iotap::Captured run = iotap::capture({"valgrind", "--tool=cachegrind", "--cache-sim=no",
                                              "--cachegrind-out-file=/dev/null", binary, "-d", file,
                                              "-b", std::to_string(kBlock), "-t", "1"});
  EXPECT_TRUE(run.status.ok()) << binary << ":\n" << run.err;
  std::smatch count;
  if (!std::regex_search(run.err, count, std::regex(R"(I\s+refs:\s+([0-9,]+))"))) {
    ADD_FAILURE() << "no instruction count in cachegrind's report:\n" << run.err;
    return 0;
  }
  std::string digits = count[1];
  std::erase(digits, ',');
  return std::stoull(digits);
}

// A read's own instructions: the difference between reading 2N blocks and N, which leaves out
// everything a run does once (loading, OpenSSL's start, the report).
double per_read(const std::string& binary, const std::string& small, const std::string& large) {
  const uint64_t once = instructions(binary, small);
  const uint64_t twice = instructions(binary, large);
  EXPECT_GT(twice, once) << binary;
  return static_cast<double>(twice - once) / kReads;
}

TEST(UnattachedProbes, CostAReadUnderOnePercentOfItsInstructions) {
  ASSERT_FALSE(iotap::find_in_path("valgrind").empty()) << "valgrind is missing: run ./setup.sh";
  const iotap::TempDir dir("block_hasher_probe_cost");
  const std::string small = dir / "small";
  const std::string large = dir / "large";
  block_hasher_test::write_file(small, block_hasher_test::pattern(kReads * kBlock));
  block_hasher_test::write_file(large, block_hasher_test::pattern(2 * kReads * kBlock));

  const double bare = per_read(BARE_BLOCK_HASHER_BIN, small, large);
  const double probes = per_read(BLOCK_HASHER_BIN, small, large);
  // The figures docs/performance.md quotes.
  std::printf("instructions per 4 KiB read: %.1f without probes, %.1f with them (%+.3f%%)\n", bare,
              probes, (probes / bare - 1) * 100);
  EXPECT_GT(bare, 0);
  EXPECT_LE(probes, bare * 1.01);
}

}  // namespace
