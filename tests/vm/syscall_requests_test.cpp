// Requests from any program's system calls, for real in the guest: dd (coreutils, dynamic) and
// busybox's dd (static) reading and writing through md/dm, checked against what dd itself says
// it did (its "N+0 records in/out" and elapsed time), not against iotap's own arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

struct DdRun {
  json result;
  Captured run;
  int records_in = -1, records_out = -1;  // full records, as dd counts them
  double seconds = 0;                     // dd's own elapsed time
};

class SyscallRequestsTest : public VmFixture {
 protected:
  DdRun run_dd(const std::vector<std::string>& verb, const std::string& stack,
               const std::string& command) {
    std::vector<std::string> args = verb;
    for (const char* a : {"--json", "--target", "vm", "--stack"}) args.emplace_back(a);
    args.push_back(stack);
    args.emplace_back("-c");
    args.push_back(command);
    DdRun out;
    out.run = iotap(args);
    EXPECT_EQ(out.run.status.code, 0) << out.run.err;
    try {
      out.result = json::parse(out.run.out);
    } catch (const json::exception& e) {
      ADD_FAILURE() << e.what() << "\n" << out.run.out << out.run.err;
    }
    std::smatch m;
    // coreutils: "64+0 records in", "... copied, 0.0579937 s, ..."; busybox: "64+0 records in",
    // "... copied, 0.005 seconds, ..." (the program's lines come back on stderr as "[dd] ...").
    if (std::regex_search(out.run.err, m, std::regex(R"((\d+)\+\d+ records in)")))
      out.records_in = std::stoi(m[1]);
    if (std::regex_search(out.run.err, m, std::regex(R"((\d+)\+\d+ records out)")))
      out.records_out = std::stoi(m[1]);
    if (std::regex_search(out.run.err, m, std::regex(R"(copied, ([0-9.]+) s)")))
      out.seconds = std::stod(m[1]);
    return out;
  }

  static const json* kind(const json& result, const std::string& op) {
    for (const auto& k : result["requests"]["kinds"])
      if (k["op"] == op) return &k;
    ADD_FAILURE() << "no " << op << " requests in " << result["requests"].dump();
    return nullptr;
  }
};

// The issue's own command: dd names the slow member, its reads are attributed, and the share
// is stable (it rests on the slowest tenth, printed beside it).
TEST_F(SyscallRequestsTest, DdReadingTheIncidentIsAttributedReadByRead) {
  const DdRun dd = run_dd({"diagnose"}, "raid0(ram*7, delay(ram, 50ms))",
                          "dd if=__DEV__ of=/dev/null bs=1M count=64 iflag=direct");
  const json& r = dd.result;
  EXPECT_EQ(r["requests"]["source"], "syscall");
  ASSERT_EQ(dd.records_in, 64) << dd.run.err;
  EXPECT_EQ(r["requests"]["count"], dd.records_in);  // every read dd made, and nothing else
  const json* reads = kind(r, "read");
  ASSERT_NE(reads, nullptr);
  EXPECT_EQ((*reads)["without_block_io"], 0);  // O_DIRECT: each read reached the devices
  // The reads' time is most of dd's elapsed time: the sum of what iotap timed lies within it.
  const double read_seconds = r["requests"]["latency_us"]["mean"].get<double>() * 64 / 1e6;
  EXPECT_LE(read_seconds, dd.seconds * 1.02) << dd.run.err;
  EXPECT_GE(read_seconds, dd.seconds * 0.7) << dd.run.err;
  ASSERT_EQ(r["verdict"]["slow_members"].size(), 1U) << r["verdict"].dump();
  const auto& slow = r["verdict"]["slow_members"][0];
  EXPECT_EQ(slow["spec"], "delay(ram,50ms)");
  EXPECT_GE(slow["evidence"]["slowest_requests"].get<int>(), 7);  // a tenth of 64, at least
  EXPECT_GT(slow["evidence"]["share_of_slowest"].get<double>(), 0.5);
  EXPECT_NE(dd.run.err.find("following dd's I/O system calls (it has no USDT probes iotap knows)"),
            std::string::npos)
      << dd.run.err;
}

// Disks with a volatile write cache (null_blk's cache=) take the flushes and FUA writes the
// kernel sends them, each on its hrtimer: an fsync's flush goes from md0 to every member (md
// sends it from its workqueue, with no remap) and through dm-0 to nullb1 (dm clones it), and is
// on the fsync's path there; O_DSYNC direct writes go down as FUA writes, no flush.
constexpr const char* kCachedLegs =
    "raid1(null(lat=1ms, cache=16M), linear(null(lat=20ms, cache=16M)))";

TEST_F(SyscallRequestsTest, AnFsyncsFlushReachesEveryLegAndWaitsOnTheSlowOne) {
  const DdRun dd = run_dd({"attribute", "--slowest", "1"}, kCachedLegs,
                          "dd if=/dev/zero of=__DEV__ bs=4k count=64 conv=fsync");
  const json& r = dd.result;
  ASSERT_EQ(dd.records_out, 64) << dd.run.err;
  const json* flushes = kind(r, "flush");
  ASSERT_NE(flushes, nullptr);
  EXPECT_EQ((*flushes)["count"], 1);
  ASSERT_EQ(r["slowest"].size(), 1U);
  const auto& fsync = r["slowest"][0];
  EXPECT_EQ(fsync["call"], "fsync");
  // The write-backs took the slow leg's 20 ms, then the flush did again.
  EXPECT_GE(fsync["latency_us"].get<double>(), 40'000) << fsync.dump();
  // Every write-back it waited on and the flush, on every level down to a disk (the kernel's
  // flusher may have written a few pages back before the fsync). The stages follow each md0
  // bio down the leg that finished last: the slow one, as a rule, but on a busy host (two
  // guests on two host CPUs) the fast leg's 64 writes once started 43 ms into the fsync and
  // ended 87 ms later, after the slow leg's, and the stages went down nullb0. Either way each
  // md0 bio has one leg's bio below it, and a bio through dm-0 has nullb1's below that.
  std::map<std::string, uint64_t> bios;
  for (const auto& stage : fsync["stages"])
    if (!stage["device"].get<std::string>().empty())
      bios[stage["device"]] += stage["bios"].get<uint64_t>();
  EXPECT_GE(bios["md0"], 2U) << fsync.dump();
  EXPECT_EQ(bios["dm-0"] + bios["nullb0"], bios["md0"]) << fsync.dump();
  EXPECT_EQ(bios["nullb1"], bios["dm-0"]) << fsync.dump();
  EXPECT_GE(bios["dm-0"], 1U) << "the flush, at least, waits on the slow leg:\n" << fsync.dump();
  // The last stretch on the slow disk is the flush: it took the disk's 20 ms itself.
  double last_start = -1;
  double last_dwell = 0;
  for (const auto& stage : fsync["stages"])
    if (stage["device"] == "nullb1" && stage["start_us"].get<double>() > last_start) {
      last_start = stage["start_us"];
      last_dwell = stage["dwell_us"];
    }
  EXPECT_GE(last_dwell, 20'000) << fsync.dump();
  // Both legs' disks took the 64 write-backs (whoever wrote them back) and the flush.
  for (const auto& d : r["devices"])
    if (d["name"] == "nullb0" || d["name"] == "nullb1") {
      EXPECT_GE(d["ios"].get<uint64_t>(), 65U) << d.dump();
    }
}

// fio, as storage engineers run it: two job processes (fio forks them) reading 64 KiB at random
// with pread (psync), O_DIRECT. fio's own JSON report is the ground truth: iotap's count of
// reads is fio's, and iotap's mean read latency (the system call's start to its end) agrees
// with fio's (the job's clock around each I/O) within 5%.
TEST_F(SyscallRequestsTest, FiosOwnReportAgreesWithIotap) {
  ASSERT_FALSE(find_in_path("fio").empty()) << "fio is missing: run ./setup.sh";
  const DdRun run = run_dd({"diagnose"}, "raid0(ram*3, delay(ram, 20ms))",
                           "fio --name=randread --filename=__DEV__ --rw=randread --bs=64k "
                           "--size=16M --direct=1 --ioengine=psync --numjobs=2 "
                           "--group_reporting --output-format=json");
  // fio's JSON comes back on stderr, a "[fio] " line at a time, from its first "{".
  std::string report;
  std::istringstream lines(run.run.err);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("[fio] ")) continue;
    if (report.empty() && line != "[fio] {") continue;
    report += line.substr(6) + "\n";
  }
  json fio;
  try {
    fio = json::parse(report);
  } catch (const json::exception& e) {
    FAIL() << e.what() << "\nfio's output:\n" << run.run.err;
  }
  const json& reads = fio["jobs"][0]["read"];
  const uint64_t fio_reads = reads["total_ios"];
  const double fio_mean_us = reads["lat_ns"]["mean"].get<double>() / 1000;
  EXPECT_EQ(fio_reads, 512U);  // 2 jobs x 16 MiB / 64 KiB
  const json& r = run.result;
  EXPECT_EQ(r["requests"]["source"], "syscall");
  EXPECT_EQ(r["requests"]["count"].get<uint64_t>(), fio_reads) << r["requests"].dump();
  const double mean_us = r["requests"]["latency_us"]["mean"];
  std::printf("fio: %lu reads, mean %.1f us; iotap: %lu, mean %.1f us (%+.2f%%)\n",
              static_cast<unsigned long>(fio_reads), fio_mean_us,
              static_cast<unsigned long>(r["requests"]["count"].get<uint64_t>()), mean_us,
              100 * (mean_us - fio_mean_us) / fio_mean_us);
  EXPECT_NEAR(mean_us, fio_mean_us, 0.05 * fio_mean_us);
  ASSERT_EQ(r["verdict"]["slow_members"].size(), 1U) << r["verdict"].dump();
  EXPECT_EQ(r["verdict"]["slow_members"][0]["spec"], "delay(ram,20ms)");
}

}  // namespace
}  // namespace iotap::test
