// iotap's per-device latency against the kernel's own disk statistics (devices[].kernel_stats):
// for every dm device of the stack, the same number of reads and the same mean, in the guest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

// One jiffy of the guest kernel (HZ=250). dm counts each io's time as a whole number of jiffies
// (bdev_end_io_acct: jiffies at the end minus jiffies at dm_io's start).
constexpr double kTickUs = 4000;

// How close the kernel's mean must be to iotap's.
enum class Bar {
  // Within 5% of the kernel's mean.
  kFivePercent,
  // Within one tick: dm-delay releases bios on a jiffy timer, so each io ends just after a tick
  // while it started anywhere in one, and the kernel's whole-jiffy count exceeds the io's time
  // by the part of a tick it started into: half a tick on average (2 ms), less the time from
  // the tick to the completion (more on a busy host). Against a short delay that is more than
  // 5%; what the kernel's granularity does guarantee is that each io, and so the mean, is off
  // by less than a tick (docs/engine.md, "Accuracy against the kernel's statistics").
  kWithinATick,
  // dm striped cuts each bio at its chunks and the kernel counts one io per part (a dm_io
  // each), timed from the part's start to its own end; iotap counts the bio, which ends with
  // its last part. So the counts are checked (the kernel's reads are iotap's bytes in 64 KiB
  // parts, its sectors iotap's bytes) and the means, which measure different things, are not.
  kChunkParts,
};

struct Case {
  const char* stack;
  Bar bar;
  const char* name;
  // block_hasher's 1 MiB reads: enough that the kernel's whole-jiffy rounding, up to a tick
  // either way on each io, averages out to well under 5% of the device's mean (its spread is
  // at most half a tick over the square root of the reads: 0.25 ms at 64, 0.125 ms at 256).
  int reads = 64;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.stack;
}

class KernelStatsTest : public VmFixture, public ::testing::WithParamInterface<Case> {};

// Reads of 1 MiB from as many threads as the guest has CPUs (2). iotap times a dm io from the
// bio's queueing (block_bio_queue), the kernel from dm's alloc_io, after it has allocated its
// clone: an allocation that may sleep, and so reschedule the thread when another one waits for
// the CPU. With 4 threads on 2 CPUs that happened on several ios of every run (one waited 16.8
// ms), and iotap's mean was 1.6% to 6.3% above the kernel's at 5 ms; the time is the user's, but
// the kernel does not count it (docs/engine.md, "Accuracy against the kernel's statistics").
std::string workload(int reads) {
  return "block_hasher -d __DEV__ -b 1048576 -t 2 -n " + std::to_string(reads) + " --direct";
}

TEST_P(KernelStatsTest, EveryDmDeviceAgreesWithTheKernel) {
  const Case c = GetParam();
  const auto run =
      iotap({"attribute", "--json", "--target", "vm", "--stack", c.stack, "-c", workload(c.reads)});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  int dm_devices = 0;
  for (const auto& device : result["devices"]) {
    const std::string name = device["name"];
    if (device["spec"] == "ram") {
      EXPECT_FALSE(device.contains("kernel_stats")) << "brd counts nothing: " << device.dump();
    }
    if (!name.starts_with("dm-")) continue;
    ++dm_devices;
    ASSERT_TRUE(device.contains("kernel_stats")) << device.dump();
    const json& kernel = device["kernel_stats"];
    const int ios = device["ios"];
    const int reads = kernel["reads"];
    const double mean = device["latency_us"]["mean"];
    const double kernel_mean = kernel["read_ms"].get<double>() * 1000 / reads;
    const double error = (mean - kernel_mean) / kernel_mean;
    // The numbers of docs/engine.md's table, from every run.
    std::printf("kernel-stats: %s | %s | iotap %.1f us | kernel %.1f us | %+.1f%% | %d ios\n",
                c.stack, name.c_str(), mean, kernel_mean, 100 * error, ios);
    // SystemTap may skip a probe hit, rarely (one run in a CI suite of ~90 guest runs lost one
    // dm io of 512 so), and says so: iotap reports it as loss.skipped_probes. iotap may then be
    // short of the kernel by what it reports lost, and never over it; without it, exact.
    const int skipped = result["loss"]["skipped_probes"];
    const auto short_by_at_most = [&](int64_t iotap, int64_t truth, int64_t per_skip) {
      EXPECT_LE(iotap, truth) << name << "\nloss: " << result["loss"].dump();
      EXPECT_GE(iotap + skipped * per_skip, truth)
          << name << "\nstream: " << result["stream"].dump() << "\nloss: " << result["loss"].dump();
    };
    if (skipped > 0) std::printf("kernel-stats: stap skipped %d probe hits (reported)\n", skipped);
    // At least block_hasher's reads: md below a dm device splits them into more.
    EXPECT_GE(ios + skipped, c.reads) << name;
    EXPECT_EQ(kernel["writes"], 0) << name;
    const int64_t bytes = device["bytes"];
    short_by_at_most(bytes, kernel["sectors_read"].get<int64_t>() * 512, 1 << 20);
    if (c.bar == Bar::kChunkParts) {
      EXPECT_LE(ios, c.reads) << name << ": block_hasher's reads, one bio each";
      EXPECT_EQ(reads, static_cast<int>(kernel["sectors_read"].get<int64_t>() * 512 / 65536))
          << name;
      continue;
    }
    // dm counts an io per dm_io: a bio that dm does not split (no target boundary, no
    // max_io_len in these stacks) is one io for both.
    short_by_at_most(ios, reads, 1);
    if (c.bar == Bar::kFivePercent) {
      EXPECT_LE(std::abs(error), 0.05)
          << name << ": iotap " << mean << " us, kernel " << kernel_mean << " us";
    } else {
      EXPECT_LT(std::abs(kernel_mean - mean), kTickUs)
          << name << ": iotap " << mean << " us, kernel " << kernel_mean << " us";
    }
  }
  EXPECT_GT(dm_devices, 0) << result["devices"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Stacks, KernelStatsTest,
    ::testing::Values(
        // A throttled virtio disk completes in its interrupt: before stap's INTERRUPTIBLE=0,
        // one run in three lost a completion there (docs/engine.md). At 40 iops (~20 ms a
        // read) its 64 reads were 6.8% off the kernel's mean on a busy host (two guests on two
        // host CPUs, the kernel's whole jiffies no longer averaging out); at 10 iops a read
        // takes ~100 ms, and a tick, the most the kernel's rounding can move a mean, is 4% of it.
        Case{"linear(virtio(iops=10))", Bar::kFivePercent, "linear_virtio", 32},
        // dm over null_blk: the disk's hrtimer is not tied to the guest's ticks, so the kernel's
        // whole-jiffy rounding is as often down as up. At 5 ms (a mean of ~8 ms) its spread over
        // 64 reads reached 6.9%, so these read 512 (a null disk of 512 MiB costs no memory until
        // written).
        Case{"linear(null(lat=20ms, size=512M))", Bar::kFivePercent, "linear_null20ms", 512},
        // But on a busy host (the vm tier's two guests on two host CPUs) a vCPU waits for the
        // host as well, and the time before dm starts its clock (workload(), above) grows: at 5
        // ms (8 to 11 ms per read) iotap was 5.8% off the kernel's mean in one run of four,
        // where 20 ms stayed within 1.7%. So 5 ms holds to what the kernel's granularity
        // guarantees: within a tick.
        Case{"linear(null(lat=5ms, size=512M))", Bar::kWithinATick, "linear_null5ms", 512},
        // Before dm's split was read right (X with BIO = PARENT), dm-0 had no ios here.
        Case{"striped(null(lat=5ms)*2)", Bar::kChunkParts, "striped_null5ms"},
        // dm-delay's kernel count is high by up to a tick (kWithinATick): at 50 ms that was -2%
        // to -3.8%, too close to the bar, so the 5% cases delay 100 ms.
        Case{"raid0(ram*3, delay(ram, 100ms))", Bar::kFivePercent, "raid0_delay100ms"},
        Case{"linear(delay(ram, 100ms))", Bar::kFivePercent, "linear_delay100ms"},
        Case{"raid0(ram*3, delay(ram, 20ms))", Bar::kWithinATick, "raid0_delay20ms"},
        Case{"linear(delay(ram, 5ms))", Bar::kWithinATick, "linear_delay5ms"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace iotap::test
