// Real runs in the qemu guest: real module, real md/dm over brd, real block_hasher.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

using VmTest = VmFixture;

// The scripts, by path: a macro joined to a literal inside an argument list reads as a comma
// forgotten (bugprone-suspicious-missing-comma).
const std::string kUsdtArgs = VM_SCRIPTS_DIR "/usdt_args.stp";
const std::string kRemaps = VM_SCRIPTS_DIR "/remaps.stp";
const std::string kUntilStopped = VM_SCRIPTS_DIR "/until_stopped.stp";
const std::string kEvents = EXAMPLES_DIR "/events.stp";

TEST_F(VmTest, UsdtProbesFireWithTheRightArguments) {
  const auto run = iotap({"run", kUsdtArgs, "--target", "vm", "--stack", "raid0(ram*2)", "-c",
                          "block_hasher -d __DEV__ -b 65536 -t 4 -n 32 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto& out = run.out;

  const auto run_start = lines_starting_with(out, "run_start");
  ASSERT_EQ(run_start.size(), 1U) << out;
  EXPECT_EQ(run_start[0],
            (std::vector<std::string>{"run_start", "/dev/md0", "65536", "4", "32", "1"}));

  std::map<int, std::string> tid_of_thread;
  for (const auto& f : lines_starting_with(out, "thread_start")) {
    EXPECT_EQ(f[2], f[3]) << "thread_start's tid argument is the probing thread's tid";
    tid_of_thread[std::stoi(f[1])] = f[2];
  }
  ASSERT_EQ(tid_of_thread.size(), 4U) << out;

  std::set<uint64_t> started;
  for (const auto& f : lines_starting_with(out, "read_start")) started.insert(std::stoull(f[1]));
  const auto done = lines_starting_with(out, "read_done");
  ASSERT_EQ(done.size(), 32U) << out;
  std::set<uint64_t> blocks;
  for (const auto& f : done) {
    const uint64_t request = std::stoull(f[1]);
    const int thread = std::stoi(f[2]);
    const uint64_t block = std::stoull(f[3]);
    EXPECT_TRUE(started.contains(request)) << "read_done without read_start: " << request;
    EXPECT_EQ(request, block + 1);
    EXPECT_EQ(static_cast<uint64_t>(thread), block % 4) << "threads read interleaved blocks";
    EXPECT_EQ(std::stoull(f[4]), block * 65536) << "offset";
    EXPECT_EQ(f[5], "65536") << "size";
    EXPECT_EQ(f[6], "65536") << "pread's result";
    EXPECT_EQ(f[7], tid_of_thread[thread]) << "read_done fires in the reading thread";
    blocks.insert(block);
  }
  EXPECT_EQ(blocks.size(), 32U);
  EXPECT_EQ(*blocks.rbegin(), 31U);

  const auto hashes = lines_starting_with(out, "hash_done");
  ASSERT_EQ(hashes.size(), 32U);
  for (const auto& f : hashes)
    EXPECT_EQ(f[3].size(), 40U) << "a SHA-1 hex digest while hash_done is probed";
  const auto run_end = lines_starting_with(out, "run_end");
  ASSERT_EQ(run_end.size(), 1U);
  EXPECT_EQ(run_end[0], (std::vector<std::string>{"run_end", "32", "2097152", "0"}));

  // The overhead line counts the probes' hits as the module counted them (stap -t's report,
  // taken out of the output): one printed line each, which block_hasher's arguments fix at
  // 1 run + 4 threads x 2 + 32 reads x 3.
  size_t printed = 0;
  for (const char* name : {"run_start", "thread_start", "read_start", "read_done", "hash_done",
                           "thread_end", "run_end"})
    printed += lines_starting_with(out, name).size();
  EXPECT_EQ(printed, 1U + 4 * 2 + 32 * 3 + 1);
  EXPECT_NE(run.err.find("iotap: overhead: " + std::to_string(printed) + " probe hits, 0 skipped"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(out.find("probe hit report"), std::string::npos) << out;
}

// --json carries the same overhead, and its share is of the traced run: from the module's load
// to staprun's exit, which holds block_hasher's own run (it times itself) and is held by
// iotap's, as the test timed it.
TEST_F(VmTest, RunJsonCarriesTheOverheadAndItsShareOfTheTracedRun) {
  const auto begin = std::chrono::steady_clock::now();
  const auto run = iotap({"run", kUsdtArgs, "--json", "--target", "vm", "--stack", "raid0(ram*2)",
                          "-c", "block_hasher -d __DEV__ -b 65536 -t 4 -n 32 --direct"});
  const double iotap_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  const json& overhead = result.at("overhead");
  ASSERT_TRUE(overhead.is_object()) << run.out;
  EXPECT_EQ(overhead["probe_hits"], 1 + 4 * 2 + 32 * 3 + 1) << overhead;  // as the test above
  EXPECT_EQ(overhead["skipped_probes"], 0);
  ASSERT_FALSE(overhead["ns_per_hit"].is_null()) << "the cost of a hit is measured for TCG guests";
  const double seconds = overhead["seconds"];
  EXPECT_DOUBLE_EQ(
      seconds, overhead["probe_hits"].get<double>() * overhead["ns_per_hit"].get<double>() / 1e9);
  ASSERT_FALSE(overhead["share"].is_null()) << overhead;
  const double traced_seconds = seconds / overhead["share"].get<double>();

  // block_hasher's report, on its stdout: in the script's stream (run keeps it there).
  const std::string output = result["output"];
  const std::regex total(R"(total: .* in ([0-9.]+) s)");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(output, match, total)) << output;
  EXPECT_GE(traced_seconds, std::stod(match[1])) << output;
  EXPECT_LT(traced_seconds, iotap_seconds) << run.err;
  EXPECT_NE(run.err.find("% of the run at "), std::string::npos) << run.err;
}

// events.stp's output holds every one of block_hasher's `reads` reads, started and done, and
// every event: per CPU the sequence numbers count 1, 2, 3... with no gap.
void expect_whole_event_stream(const Captured& run, size_t reads) {
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.err.find("transport failures"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("skipped probes: "), std::string::npos) << run.err;
  std::set<std::string> started;
  std::set<std::string> done;
  std::map<std::string, std::set<uint64_t>> seq_by_cpu;
  std::istringstream lines(run.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string kind;
    std::string ts;
    std::string cpu;
    std::string seq;
    std::string tid;
    std::string request;
    if (!(words >> kind >> ts >> cpu >> seq >> tid)) continue;
    if (kind != "RB" && kind != "RS" && kind != "RD" && kind != "Q" && kind != "X" && kind != "M" &&
        kind != "C")
      continue;
    EXPECT_TRUE(seq_by_cpu[cpu].insert(std::stoull(seq)).second)
        << "sequence number twice: " << line;
    if (kind == "RS" && (words >> request)) started.insert(request);
    if (kind == "RD" && (words >> request)) done.insert(request);
  }
  EXPECT_EQ(started.size(), reads);
  EXPECT_EQ(done, started);
  for (const auto& [cpu, seqs] : seq_by_cpu) {
    EXPECT_EQ(*seqs.begin(), 1U) << "cpu " << cpu;
    EXPECT_EQ(*seqs.rbegin(), seqs.size()) << "a gap in cpu " << cpu << "'s sequence";
  }
}

TEST_F(VmTest, TheEventStreamLosesNothing) {
  expect_whole_event_stream(
      iotap({"run", kEvents, "--target", "vm", "--stack", "raid0(ram*7, delay(ram, 50ms))", "-c",
             "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct"}),
      64);
}

// stapio 4.8 stops its relay readers at the end of a run without reading what they have not
// read yet; stapio_drain.so reads it. With staprun at nice 19 below 8 hashing threads at -19,
// the readers fall far behind (without the drain, 2 runs in 3 kept 263 and 529 of 3279 lines),
// and the stream must still be whole.
TEST_F(VmTest, TheEventStreamLosesNothingWhenStapiosReadersAreStarved) {
  expect_whole_event_stream(iotap({"run", kEvents, "--target", "vm", "--stack", "raid0(ram*8)",
                                   "-c", "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct"},
                                  {"IOTAP_STAPRUN_NICE=19"}),
                            64);
}

TEST_F(VmTest, BiosOnTheArrayAreRemappedToEveryMember) {
  const auto run =
      iotap({"run", kRemaps, "--json", "--target", "vm", "--stack", "raid0(ram*3, delay(ram, 5ms))",
             "-c", "block_hasher -d __DEV__ -b 1048576 -t 4 -n 32 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  std::map<std::string, std::string> parent_of;
  std::string top;
  for (const auto& device : result["devices"]) {
    if (device["parent"].is_null()) {
      top = device["name"];
    } else {
      parent_of[device["name"]] = device["parent"];
    }
  }
  ASSERT_EQ(top, "md0");
  ASSERT_EQ(parent_of.size(), 5U) << result.dump();
  std::map<std::string, std::set<std::string>> remapped_to;
  for (const auto& f : lines_starting_with(result["output"], "remap")) {
    EXPECT_GT(std::stoi(f[3]), 0);
    remapped_to[f[1]].insert(f[2]);
  }
  // Every member of every md/dm device in the stack received remapped bios from its parent.
  for (const auto& [member, parent] : parent_of) {
    EXPECT_TRUE(remapped_to[parent].contains(member))
        << parent << " -> " << member << " missing in\n"
        << result["output"];
  }
}

TEST_F(VmTest, DemoNamesTheDelayedMember) {
  const auto run = iotap({"demo", "--json"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  const auto& slow = result["verdict"]["slow_members"];
  ASSERT_EQ(slow.size(), 1U) << result.dump(2);
  EXPECT_EQ(slow[0]["spec"], "delay(ram,50ms)");
  EXPECT_EQ(slow[0]["parent"], "md0");
  // The delayed member has the highest average read latency of md0's members, and it is at
  // least the delay itself.
  std::string highest;
  uint64_t highest_avg = 0;
  for (const auto& device : result["devices"]) {
    if (device["parent"] == "md0" && device["rw"] == "R" &&
        device["avg_us"].get<uint64_t>() > highest_avg) {
      highest_avg = device["avg_us"];
      highest = device["name"];
    }
  }
  EXPECT_EQ(highest, slow[0]["name"]);
  EXPECT_GE(highest_avg, 50000U);
}

TEST_F(VmTest, CtrlCStopsTheRunAndEndProbesStillReport) {
  std::array<int, 2> out{};
  ASSERT_EQ(::pipe2(out.data(), O_CLOEXEC), 0);
  SpawnOptions options;
  options.stdout_fd = out[1];
  options.extra_env = {"TMPDIR=" + tmp_.path()};
  const pid_t pid = spawn({IOTAP_BINARY, "run", kUntilStopped, "--target", "vm"}, options);
  ::close(out[1]);
  // The script's begin probe is the sign that the module runs; Ctrl-C then.
  std::string text;
  std::array<char, 4096> buffer{};
  while (text.find("started\n") == std::string::npos) {
    const ssize_t n = ::read(out[0], buffer.data(), buffer.size());
    ASSERT_GT(n, 0) << "iotap ended before the script started: " << text;
    text.append(buffer.data(), static_cast<size_t>(n));
  }
  ::kill(pid, SIGINT);
  for (ssize_t n = 0; (n = ::read(out[0], buffer.data(), buffer.size())) > 0;)
    text.append(buffer.data(), static_cast<size_t>(n));
  ::close(out[0]);
  const ExitStatus status = wait_for(pid);
  EXPECT_EQ(status.code, 130);
  EXPECT_NE(text.find("end probe ran\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace iotap::test
