// iotap record in the guest: every request of a real program, per thread, in a recording that
// reads back (docs/recording-format.md), checked against what the program is known to do; and
// the fio form, replayed by fio itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/recording/recording.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

class RecordTest : public VmFixture {
 protected:
  // iotap record ... -o OUT: the recording, read back (a FormatError fails the test).
  recording::Recording record(const std::vector<std::string>& args, const std::string& out) {
    std::vector<std::string> argv{"record", "-o", out};
    argv.insert(argv.end(), args.begin(), args.end());
    run_ = iotap(argv);
    EXPECT_EQ(run_.status.code, 0) << run_.err;
    return recording::read(out);
  }
  TempDir files_{"iotap-record-test-files"};
  Captured run_;
};

// block_hasher's schedule is known: thread i reads blocks i, i+T, i+2T, ... one after another.
// So the recording must hold 64 reads, 16 per thread, each thread's in exactly that order, at
// those offsets, all whole, O_DIRECT, on md0.
TEST_F(RecordTest, BlockHashersReadsAreRecordedPerThreadInItsOwnOrder) {
  const std::string out = files_.path() + "/hasher.rec";
  const recording::Recording rec =
      record({"--json", "--target", "vm", "--stack", "raid0(ram*4)", "-c",
              "block_hasher -d __DEV__ -b 1048576 -t 4 -n 64 --direct"},
             out);
  EXPECT_EQ(rec.header()["source"], "usdt");
  EXPECT_EQ(rec.header()["stack"], "raid0(ram*4)");
  ASSERT_TRUE(rec.header()["devices"].is_array());
  EXPECT_EQ(rec.header()["devices"][0]["name"], "md0");
  EXPECT_EQ(rec.end()["threads"], 4);
  EXPECT_EQ(rec.end()["unfinished"], 0);
  EXPECT_EQ(rec.end()["loss"]["events_lost"], 0);
  ASSERT_EQ(rec.requests.size(), 64U);
  std::map<uint32_t, std::vector<recording::Request>> by_thread;
  for (const auto& r : rec.requests) by_thread[r.thread].push_back(r);
  ASSERT_EQ(by_thread.size(), 4U);
  uint64_t last_end = 0;
  for (auto& [thread, requests] : by_thread) {
    ASSERT_LT(thread, 4U);
    ASSERT_EQ(requests.size(), 16U) << "thread " << thread;
    // The file holds them in the order they ended; a thread's requests end in its order.
    for (size_t k = 0; k < requests.size(); ++k) {
      const auto& r = requests[k];
      EXPECT_EQ(r.offset, (thread + 4 * k) * 1048576) << "thread " << thread << ", read " << k;
      EXPECT_EQ(r.size, 1048576U);
      EXPECT_EQ(r.result, 1048576);
      EXPECT_EQ(r.op, 'R');
      EXPECT_EQ(r.call, "read");
      EXPECT_TRUE(r.direct);
      EXPECT_EQ(r.dev, "9:0");
      EXPECT_GT(r.latency_ns, 0U);
      if (k > 0) {
        EXPECT_GE(r.start_ns, requests[k - 1].start_ns + requests[k - 1].latency_ns);
      }
      last_end = std::max(last_end, r.start_ns + r.latency_ns);
    }
  }
  EXPECT_EQ(rec.end()["duration_ns"], last_end);
  const json summary = json::parse(run_.out);
  EXPECT_EQ(summary["requests"], 64);
  EXPECT_EQ(summary["reads"], 64);
  EXPECT_NE(run_.err.find("iotap: recorded 64 requests of 4 threads (64 reads, 0 writes, 0 "
                          "flushes; 0 failed)"),
            std::string::npos)
      << run_.err;
}

// A run stopped by --timeout still leaves a whole recording: the requests that ended, and an end
// line that says it was cut by the timeout.
TEST_F(RecordTest, ARunStoppedByTheTimeoutLeavesAWholeRecordingThatSaysSo) {
  const std::string out = files_.path() + "/cut.rec";
  run_ = iotap({"record", "-o", out, "--timeout", "10", "--target", "vm", "--stack",
                "raid0(ram*3, delay(ram, 50ms))", "-c",
                "block_hasher -d __DEV__ -b 65536 -t 1 --direct"});
  const recording::Recording rec = recording::read(out);  // a FormatError fails the test
  EXPECT_EQ(rec.end()["timed_out"], true) << run_.err;
  EXPECT_GT(rec.requests.size(), 0U);
  // The whole device is 3 x 64 MiB + 64 MiB in 64 KiB reads, a quarter of them 50 ms late: far
  // more than 10 s of guest time holds.
  EXPECT_LT(rec.requests.size(), 4096U);
  EXPECT_EQ(rec.end()["requests"], rec.requests.size());
}

// A writing program without probes: dd's 32 writes of 64 KiB, in order, then its fsync
// (conv=fsync), all on one thread, from its system calls.
TEST_F(RecordTest, DdsWritesAndItsFsyncAreRecordedFromItsSystemCalls) {
  const std::string out = files_.path() + "/dd.rec";
  const recording::Recording rec =
      record({"--target", "vm", "--stack", "raid1(ram*2)", "-c",
              "dd if=/dev/zero of=__DEV__ bs=64k count=32 oflag=direct conv=fsync"},
             out);
  EXPECT_EQ(rec.header()["source"], "syscall");
  EXPECT_EQ(rec.end()["threads"], 1);
  EXPECT_EQ(rec.end()["writes"], 32);
  EXPECT_EQ(rec.end()["flushes"], 1);
  ASSERT_EQ(rec.requests.size(), 33U);
  for (size_t k = 0; k < 32; ++k) {
    const auto& r = rec.requests[k];
    EXPECT_EQ(r.op, 'W') << k;
    EXPECT_EQ(r.call, "write");
    EXPECT_EQ(r.offset, k * 65536) << k;
    EXPECT_EQ(r.size, 65536U);
    EXPECT_EQ(r.result, 65536);
    EXPECT_TRUE(r.direct);
    EXPECT_EQ(r.dev, "9:0");
    EXPECT_EQ(r.thread, 0U);
  }
  EXPECT_EQ(rec.requests[32].op, 'F');
  EXPECT_EQ(rec.requests[32].call, "fsync");
  EXPECT_GE(rec.requests[32].start_ns, rec.requests[31].start_ns + rec.requests[31].latency_ns);
}

// --format fio: fio itself replays the log against a file of ours, and its own report counts
// the recording's reads and bytes.
TEST_F(RecordTest, FioReplaysTheFioFormAgainstAFile) {
  const std::string fio = find_in_path("fio");
  ASSERT_FALSE(fio.empty()) << "fio is missing: run ./setup.sh";
  const std::string log = files_.path() + "/hasher.iolog";
  const Captured run =
      iotap({"record", "--format", "fio", "-o", log, "--target", "vm", "--stack", "raid0(ram*4)",
             "-c", "block_hasher -d __DEV__ -b 65536 -t 2 -n 64 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  std::ifstream in(log);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "fio version 3 iolog");
  const std::string target = files_.path() + "/target";
  std::ofstream(target).close();
  std::filesystem::resize_file(target, 4 << 20);  // the 64 reads of 64 KiB span 4 MiB
  const Captured replay =
      capture({fio, "--name=replay", "--read_iolog=" + log, "--replay_redirect=" + target,
               "--ioengine=psync", "--output-format=json"});
  ASSERT_EQ(replay.status.code, 0) << replay.err;
  const json report = json::parse(replay.out.substr(replay.out.find('{')));
  const json& reads = report["jobs"][0]["read"];
  EXPECT_EQ(reads["total_ios"], 64) << replay.out;
  EXPECT_EQ(reads["io_bytes"], 64 * 65536);
}

// The round trip: block_hasher recorded on a raid0 with a 20 ms member, replayed on the same
// stack (every request, each thread's order, the same bytes, and the same requests slow: those
// md sends to the delayed member), then on a mirror with a delayed leg, which the replay's
// attribution names.
//
// Latencies are compared through the delay, not mean against mean: under TCG a busy host adds
// milliseconds to whichever run it lands on (a CI run once recorded a 17.8 ms mean and replayed
// 12.7 ms on the same stack), while dm-delay holds every request it serves for about its 20 ms
// in both runs.
TEST_F(RecordTest, ARecordingReplaysFaithfullyAndTheDelayedLegOfAnotherStackIsNamed) {
  const std::string stack = "raid0(ram*3, delay(ram, 20ms))";
  const std::string out = files_.path() + "/hasher.rec";
  const recording::Recording rec =
      record({"--target", "vm", "--stack", stack, "-c",
              "block_hasher -d __DEV__ -b 1048576 -t 4 -n 64 --direct"},
             out);
  ASSERT_EQ(rec.requests.size(), 64U);
  // Which reads md sends to the delayed member, from raid0's geometry alone: chunk c of the array
  // lives on member c mod 4, and the delayed one is the last.
  const json& md = rec.header()["devices"][0]["md"];
  const uint64_t chunk = md["chunk_bytes"];
  const uint64_t members = md["members"].size();
  ASSERT_EQ(members, 4U);
  // Half the 20 ms delay: dm-delay's jiffy timer alone would hold a read 16 ms at least, but a
  // TCG guest's clocks have put one at 14.8 ms (a CI run), and, with the whole suite running
  // beside it, one at 6.1 ms (of 32; its 31 siblings above 10 ms). So: all but one delayed read
  // at the floor, each one below it printed; a ram read is far below the floor.
  constexpr uint64_t kDelayFloorNs = 10'000'000;
  size_t delayed = 0;
  size_t delayed_at_floor = 0;
  uint64_t recorded_ns = 0;
  for (const auto& r : rec.requests) {
    recorded_ns += r.latency_ns;
    bool touches_delayed = false;
    for (uint64_t c = r.offset / chunk; c <= (r.offset + r.size - 1) / chunk; ++c)
      touches_delayed = touches_delayed || c % members == members - 1;
    if (!touches_delayed) continue;
    ++delayed;
    if (r.latency_ns >= kDelayFloorNs) {
      ++delayed_at_floor;
    } else {
      std::printf("a delayed read below the floor: %" PRIu64 " ns at offset %" PRIu64 "\n",
                  r.latency_ns, r.offset);
    }
  }
  EXPECT_EQ(delayed, 32U);  // 1 MiB reads over 512 KiB chunks: every other one
  EXPECT_GE(delayed_at_floor + 1, delayed);
  const double recorded_mean_us = static_cast<double>(recorded_ns) / 64 / 1000;

  const Captured same = iotap({"replay", out, "--json", "--target", "vm", "--stack", stack});
  ASSERT_EQ(same.status.code, 0) << same.err;
  const json a = json::parse(same.out);
  const json& replay = a["replay"];
  EXPECT_EQ(replay["requests_recorded"], 64);
  EXPECT_EQ(replay["requests_replayed"], 64);
  EXPECT_EQ(replay["order_preserved"], true) << replay.dump();
  EXPECT_EQ(replay["bytes_replayed"], replay["bytes_recorded"]);
  EXPECT_EQ(replay["pacing_error_us"]["gaps"], 60);
  EXPECT_EQ(a["requests"]["count"], 64);
  EXPECT_EQ(a["requests"]["source"], "usdt");
  const double replayed_mean_us = a["requests"]["latency_us"]["mean"];
  std::printf("round trip: recorded mean %.1f us, replayed %.1f us (%+.1f%%)\n", recorded_mean_us,
              replayed_mean_us, 100 * (replayed_mean_us - recorded_mean_us) / recorded_mean_us);
  // Every read md sent to the delayed member is slow again in the replay: the histogram's log2
  // buckets from 8192 us up, the first of which, [8192, 16384), holds the floor above.
  // Each run's mean carries the delayed half's floor.
  size_t replayed_slow = 0;
  for (const json& bucket : a["requests"]["latency_us"]["histogram"])
    if (bucket["from_us"].get<uint64_t>() >= 8192) replayed_slow += bucket["count"].get<size_t>();
  EXPECT_GE(replayed_slow, delayed) << a["requests"].dump();
  const double floor_us = static_cast<double>(delayed * kDelayFloorNs) / 64 / 1000;
  EXPECT_GE(recorded_mean_us, floor_us);
  EXPECT_GE(replayed_mean_us, floor_us);
  ASSERT_EQ(a["verdict"]["slow_members"].size(), 1U) << a["verdict"].dump();
  EXPECT_EQ(a["verdict"]["slow_members"][0]["spec"], "delay(ram,20ms)");

  const Captured slow =
      iotap({"replay", out, "--json", "--target", "vm", "--stack", "raid1(ram, delay(ram, 10ms))"});
  ASSERT_EQ(slow.status.code, 0) << slow.err;
  const json b = json::parse(slow.out);
  EXPECT_EQ(b["replay"]["requests_replayed"], 64);
  ASSERT_EQ(b["verdict"]["slow_members"].size(), 1U) << b["verdict"].dump();
  EXPECT_EQ(b["verdict"]["slow_members"][0]["spec"], "delay(ram,10ms)");

  // iotap compare: the first replay against the second, and the recording against the second.
  const std::string same_json = files_.path() + "/same.json";
  const std::string slow_json = files_.path() + "/slow.json";
  std::ofstream(same_json) << same.out;
  std::ofstream(slow_json) << slow.out;
  const Captured compared = iotap({"compare", same_json, slow_json, "--json"});
  ASSERT_EQ(compared.status.code, 0) << compared.err;
  const json c = json::parse(compared.out);
  EXPECT_EQ(c["a"]["stack"], "raid0(ram*3,delay(ram,20ms))");
  EXPECT_EQ(c["b"]["stack"], "raid1(ram,delay(ram,10ms))");
  EXPECT_EQ(c["requests"]["count"]["a"], 64);
  EXPECT_EQ(c["requests"]["count"]["b"], 64);
  EXPECT_EQ(c["verdicts"]["a"][0]["spec"], "delay(ram,20ms)");
  EXPECT_EQ(c["verdicts"]["b"][0]["spec"], "delay(ram,10ms)");
  const Captured against_recording = iotap({"compare", out, slow_json});
  ASSERT_EQ(against_recording.status.code, 0) << against_recording.err;
  EXPECT_NE(against_recording.out.find("  A: none (a recording holds no block I/O)\n"),
            std::string::npos)
      << against_recording.out;
  EXPECT_NE(against_recording.out.find("  B: slow member dm-0 = delay(ram,10ms) in md0"),
            std::string::npos)
      << against_recording.out;
}

// -c may hold any byte: a file name that is not UTF-8 is recorded (the header's command with
// U+FFFD in its place), not an internal error after the guest ran (issue 27: exit 70).
TEST_F(RecordTest, ACommandThatIsNotUtf8IsRecorded) {
  const std::string out = files_.path() + "/bytes.rec";
  const recording::Recording rec =
      record({"--target", "vm", "--stack", "raid0(ram*2)", "-c",
              "dd if=__DEV__ of=/copy\xff bs=64k count=8 iflag=direct"},
             out);
  EXPECT_EQ(rec.header()["command"],
            "dd if=__DEV__ of=/copy\xEF\xBF\xBD bs=64k count=8 iflag=direct");
  EXPECT_EQ(rec.end()["reads"], 8) << rec.end_line;
}

// A writing program's recording replays its writes and its fsync on a stack iotap built.
TEST_F(RecordTest, ARecordingOfWritesReplaysTheWritesAndTheFsync) {
  const std::string out = files_.path() + "/dd.rec";
  const recording::Recording rec =
      record({"--target", "vm", "--stack", "raid1(ram*2)", "-c",
              "dd if=/dev/zero of=__DEV__ bs=64k count=32 oflag=direct conv=fsync"},
             out);
  ASSERT_EQ(rec.requests.size(), 33U);
  const Captured run =
      iotap({"replay", out, "--json", "--target", "vm", "--stack", "raid1(ram*2)"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json r = json::parse(run.out);
  EXPECT_EQ(r["replay"]["requests_replayed"], 33);
  EXPECT_EQ(r["replay"]["order_preserved"], true);
  EXPECT_EQ(r["replay"]["bytes_replayed"], 32 * 65536);
  std::map<std::string, uint64_t> kinds;
  for (const auto& k : r["requests"]["kinds"]) kinds[k["op"]] = k["count"];
  EXPECT_EQ(kinds["write"], 32U) << r["requests"].dump();
  EXPECT_EQ(kinds["flush"], 1U) << r["requests"].dump();
  EXPECT_EQ(r["requests"]["provider"], "io_replayer");
  // Both legs of the mirror took every write.
  for (const auto& device : r["devices"]) {
    if (device["parent"] == "md0") {
      EXPECT_GE(device["bytes"].get<uint64_t>(), 32U * 65536) << device.dump();
    }
  }
  // The text says what was replayed: writes and a flush, not "33 reads (block_hasher's ...)".
  const Captured text = iotap({"replay", out, "--target", "vm", "--stack", "raid1(ram*2)"});
  ASSERT_EQ(text.status.code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("requests: 33 requests (io_replayer's USDT probes), 0 errors"))
      << text.out;
  EXPECT_EQ(text.out.find("reads:"), std::string::npos) << text.out;
  EXPECT_EQ(lines_starting_with(text.out, "write").size(), 1U) << text.out;
  EXPECT_EQ(lines_starting_with(text.out, "flush").size(), 1U) << text.out;
}

// issue 27: a run that records nothing (exit 3) leaves an older recording as it was, with no
// temporary file beside it (before: the old one was replaced by a recording of no request).
TEST_F(RecordTest, ARunThatRecordsNothingLeavesTheOldRecordingAsItWas) {
  const std::string out = files_.path() + "/old.rec";
  std::ofstream(out) << "a good recording\n";
  run_ = iotap({"record", "-o", out, "--target", "vm", "--stack", "raid0(ram*2)", "-c", "true"});
  EXPECT_EQ(run_.status.code, 3) << run_.err;
  EXPECT_NE(run_.err.find("old.rec not written (exit status 3)"), std::string::npos) << run_.err;
  std::ifstream in(out);
  const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "a good recording\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(files_.path()), {}), 1)
      << "a temporary recording was left beside it";
}

}  // namespace
}  // namespace iotap::test
