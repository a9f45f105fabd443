// vm tests for iotap iotime and iotap top (issue 4): the incident's stack, block_hasher reading
// it, and the numbers checked against what block_hasher did.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

constexpr const char* kIncident = "raid0(ram*7, delay(ram, 50ms))";
// 64 reads of 1 MiB by 8 threads: block_hasher fires read_start 64 times.
constexpr const char* kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct";
constexpr uint64_t kReads = 64;
constexpr std::array<const char*, 7> kMembers{"ram0", "ram1", "ram2", "ram3",
                                              "ram4", "ram5", "ram6"};

class ToolboxVmTest : public VmFixture {
 protected:
  // iotap ARGS... on the incident's stack, block_hasher reading it.
  Captured incident(std::vector<std::string> args) {
    args.insert(args.end(), {"--target", "vm", "--stack", kIncident, "-c", kWorkload});
    return iotap(args);
  }
};

using IotimeTest = ToolboxVmTest;
using TopTest = ToolboxVmTest;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

// stdout of --json: every line one JSON object.
std::vector<json> json_lines(const std::string& out) {
  std::vector<json> objects;
  for (const auto& line : lines_of(out)) {
    EXPECT_TRUE(json::accept(line)) << "not a JSON line: " << line;
    if (json::accept(line)) objects.push_back(json::parse(line));
  }
  return objects;
}

// SystemTap's own count of hits it skipped, from the whole-run JSON line.
uint64_t skipped_of(const json& whole) {
  return whole.at("loss").at("skipped_probes");
}

TEST_F(IotimeTest, TheDelayedMembersAverageStandsOut) {
  const auto run = incident({"iotime"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  // The whole-run table, as a reader sees it: "device rw total count avg" rows after its label.
  std::map<std::string, std::vector<std::string>> rows;
  bool in_whole_run = false;
  for (const auto& line : lines_of(run.out)) {
    if (line.starts_with("whole run: 0.000 s to ")) in_whole_run = true;
    const auto words = words_of(line);
    if (in_whole_run && words.size() == 5 && words[1] == "R") rows[words[0]] = words;
  }
  ASSERT_EQ(rows.size(), 10U) << run.out;
  EXPECT_EQ(run.out.find("interval 1:"), std::string::npos) << "no --interval: the end only";
  const uint64_t delayed_avg = std::stoull(rows["dm-0"][4]);
  EXPECT_GE(delayed_avg, 50000U) << "dm-delay holds each bio 50 ms";
  for (const char* member : kMembers) {
    EXPECT_GT(delayed_avg, 20 * std::stoull(rows[member][4])) << member << " against dm-0:\n"
                                                              << run.out;
  }
  // Every bio dm-0 takes it sends on to ram7; md0 sees each 1 MiB read at least once, less the
  // hits SystemTap skipped and said it skipped (its "skipped probes: N" warning).
  const auto skipped = static_cast<uint64_t>(skipped_probes(run));
  if (skipped == 0) {
    EXPECT_EQ(rows["dm-0"][3], rows["ram7"][3]);
  }
  EXPECT_GE(std::stoull(rows["md0"][3]) + skipped, kReads) << run.out;
  EXPECT_NE(run.out.find("\nloss: "), std::string::npos) << run.out;
  // The program's output: on stderr, prefixed, never among the tables.
  EXPECT_NE(run.err.find("[block_hasher] thread 7: 8 blocks"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("thread 7: 8 blocks"), std::string::npos) << run.out;
  // stap prints a global that is written and never read as "name=value" at the end: none may be.
  for (const auto& line : lines_of(run.out))
    EXPECT_FALSE(std::regex_match(line, std::regex("[A-Za-z_]+=.*"))) << line;
}

TEST_F(IotimeTest, IntervalsAsJsonLinesAddUpToTheWholeRun) {
  const auto run = incident({"iotime", "--interval", "250ms", "--json"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto lines = json_lines(run.out);
  ASSERT_GE(lines.size(), 3U) << run.out;  // 64 MiB through a 50 ms member: over 0.5 s
  const json& whole = lines.back();
  ASSERT_EQ(whole["kind"], "whole_run") << run.out;
  EXPECT_EQ(whole["exit_status"], 0);
  EXPECT_NE(run.err.find("[block_hasher] thread 7: 8 blocks"), std::string::npos)
      << "program output on stderr, prefixed";

  std::map<std::string, uint64_t> interval_counts;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["schema"], "iotap.iotime/1");
    EXPECT_EQ(lines[i]["kind"], "interval");
    EXPECT_EQ(lines[i]["interval"], i + 1);
    if (i > 0) {
      EXPECT_EQ(lines[i]["from_s"], lines[i - 1]["to_s"]);
    }
    for (const auto& device : lines[i]["devices"])
      interval_counts[device["name"]] += device["count"].get<uint64_t>();
  }
  std::map<std::string, json> by_name;
  for (const auto& device : whole["devices"]) by_name[device["name"]] = device;
  // One handler records a bio in its interval and in the whole run: they agree exactly.
  for (const auto& [name, device] : by_name)
    EXPECT_EQ(interval_counts[name], device["count"].get<uint64_t>()) << name;
  ASSERT_TRUE(by_name.contains("dm-0")) << run.out;
  EXPECT_EQ(by_name["dm-0"]["spec"], "delay(ram,50ms)");
  EXPECT_EQ(by_name["dm-0"]["parent"], "md0");
  for (const char* member : kMembers) {
    EXPECT_GT(by_name["dm-0"]["avg_us"].get<uint64_t>(),
              20 * by_name[member]["avg_us"].get<uint64_t>())
        << member;
  }
}

TEST_F(TopTest, JsonCountsAddUpToWhatBlockHasherDid) {
  const auto run = incident({"top", "--interval", "250ms", "--json"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto lines = json_lines(run.out);
  ASSERT_GE(lines.size(), 3U) << run.out;
  const json& whole = lines.back();
  ASSERT_EQ(whole["kind"], "whole_run") << run.out;
  const uint64_t skipped = skipped_of(whole);

  std::map<std::string, uint64_t> whole_hits;
  for (const auto& probe : whole["probes"]) whole_hits[probe["name"]] = probe["hits"];
  // Hits SystemTap skipped are missing from the counts, and reported: the counts are exact
  // when nothing was skipped.
  const std::map<std::string, uint64_t> expected{
      {"run_start", 1},       {"thread_start", 8},   {"read_start", kReads}, {"read_done", kReads},
      {"hash_start", kReads}, {"hash_done", kReads}, {"thread_end", 8},      {"run_end", 1}};
  for (const auto& [probe, count] : expected) {
    EXPECT_LE(whole_hits[probe], count) << probe;
    EXPECT_GE(whole_hits[probe] + skipped, count) << probe << " (skipped " << skipped << ")";
  }

  std::map<std::string, uint64_t> interval_hits;
  std::map<std::string, uint64_t> interval_submits;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["schema"], "iotap.top/1");
    EXPECT_EQ(lines[i]["interval"], i + 1);
    for (const auto& probe : lines[i]["probes"])
      interval_hits[probe["name"]] += probe["hits"].get<uint64_t>();
    for (const auto& device : lines[i]["devices"])
      interval_submits[device["name"]] += device["submits"].get<uint64_t>();
  }
  uint64_t intervals_short_by = 0;
  for (const auto& [probe, hits] : whole_hits) {
    EXPECT_LE(interval_hits[probe], hits) << probe;
    intervals_short_by += hits - interval_hits[probe];
  }
  std::map<std::string, uint64_t> submits;
  for (const auto& device : whole["devices"]) {
    submits[device["name"]] = device["submits"];
    EXPECT_LE(interval_submits[device["name"]], submits[device["name"]]);
    intervals_short_by += submits[device["name"]] - interval_submits[device["name"]];
  }
  EXPECT_LE(intervals_short_by, skipped);

  // Every read is submitted to md0, and md0 cuts each 1 MiB read at its 512k chunks, so each
  // member is submitted to more often than md0; dm-0 sends each bio on to ram7.
  EXPECT_GE(submits["md0"] + skipped, kReads);
  for (const char* member : kMembers) EXPECT_GT(submits[member], submits["md0"]) << member;
  EXPECT_GT(submits["dm-0"], submits["md0"] / 8);
  EXPECT_LE(submits["dm-0"], submits["ram7"] + skipped);
  EXPECT_LE(submits["ram7"], submits["dm-0"] + skipped);
}

TEST_F(TopTest, OffATerminalTheTablesFollowOneAnother) {
  const auto run = incident({"top"});  // every 1 s, stdout a pipe
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out.find("\x1b["), std::string::npos) << "no screen control off a terminal";
  size_t intervals = 0;
  size_t whole_runs = 0;
  uint64_t read_start = 0;
  bool in_whole_run = false;
  for (const auto& line : lines_of(run.out)) {
    if (line.starts_with("interval ")) ++intervals;
    if (line.starts_with("whole run: ")) {
      ++whole_runs;
      in_whole_run = true;
    }
    const auto words = words_of(line);
    if (in_whole_run && words.size() == 3 && words[0] == "read_start")
      read_start = std::stoull(words[1]);
  }
  EXPECT_GE(intervals, 1U) << run.out;
  EXPECT_EQ(whole_runs, 1U) << run.out;
  const bool lossless = run.out.find("\nloss: none\n") != std::string::npos;
  if (lossless) {
    EXPECT_EQ(read_start, kReads) << run.out;
  } else {
    EXPECT_NE(run.out.find("\nloss: SystemTap skipped "), std::string::npos) << run.out;
    EXPECT_LE(read_start, kReads) << run.out;
    EXPECT_GT(read_start, 0U) << run.out;
  }
}

}  // namespace
}  // namespace iotap::test
