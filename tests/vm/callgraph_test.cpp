// iotap callgraph for real: block_hasher's calls and returns in the guest, as a tree per thread,
// as folded stacks and as a Perfetto trace, and a program that throws through traced calls.
// (One run with a few checks is a runtime case: tests/runtime/callgraph.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

constexpr int kWorkers = 8;
const std::string kStack = "raid0(ram*7, delay(ram, 50ms))";
const std::string kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct";

class CallgraphTest : public VmFixture {
 protected:
  std::string callgraph(std::vector<std::string> options, const std::string& command = kWorkload) {
    std::vector<std::string> args{"callgraph", "--target", "vm", "--stack", kStack, "-c", command};
    args.insert(args.end(), options.begin(), options.end());
    const auto run = iotap(args);
    EXPECT_EQ(run.status.code, 0) << run.err;
    return run.out;
  }
};

// Every call path of the tree, as "f;g;h" without the thread, with how often it occurs.
void paths_of(const json& calls, const std::string& parent, std::map<std::string, int>& out) {
  for (const auto& call : calls) {
    std::string name = call["function"];
    if (call["kernel"]) name += "_[k]";
    const std::string path = parent.empty() ? name : std::string(parent).append(";").append(name);
    ++out[path];
    paths_of(call["calls"], path, out);
  }
}

// Depth-first: every call starts after its predecessor and lies within its caller.
void expect_times_increase(const json& calls, uint64_t from, uint64_t until, uint64_t& last) {
  for (const auto& call : calls) {
    const uint64_t entry = call["entry_ns"];
    const uint64_t end = call["return_ns"].is_null() ? until : call["return_ns"].get<uint64_t>();
    EXPECT_GE(entry, last) << call["function"];
    EXPECT_GE(entry, from) << call["function"];
    EXPECT_LE(end, until) << call["function"];
    EXPECT_GE(end, entry) << call["function"];
    last = entry;
    expect_times_increase(call["calls"], entry, end, last);
    last = end;
  }
}

std::vector<const json*> find(const json& calls, const std::string& function) {
  std::vector<const json*> out;
  for (const auto& call : calls) {
    if (call["function"] == function) out.push_back(&call);
    for (const auto* inner : find(call["calls"], function)) out.push_back(inner);
  }
  return out;
}

TEST_F(CallgraphTest, BlockHasherMainOpensRunsWorkersAndCloses) {
  const json tree = json::parse(callgraph({"--json"}));
  EXPECT_EQ(tree["schema"], "iotap.callgraph/1");
  EXPECT_EQ(tree["exit_status"], 0);
  EXPECT_EQ(tree["unmatched_returns"], 0);
  const auto& threads = tree["threads"];
  ASSERT_EQ(threads.size(), static_cast<size_t>(kWorkers + 1)) << tree.dump(1);

  // main's thread: main -> the open ... the close, in that order.
  const json& main_thread = threads[0];
  const auto mains = find(main_thread["calls"], "main");
  ASSERT_EQ(mains.size(), 1U);
  std::vector<std::string> order;
  for (const auto& call : (*mains[0])["calls"]) order.push_back(call["function"]);
  const auto open = std::find(order.begin(), order.end(), "open");
  const auto run = std::find(open, order.end(), "run");
  const auto close = std::find(run, order.end(), "~Device");
  EXPECT_NE(open, order.end()) << "Device::open under main";
  EXPECT_NE(run, order.end()) << "run after the open";
  EXPECT_NE(close, order.end()) << "~Device (the close) after run";
  EXPECT_EQ((*mains[0])["return"], "return=0x0");

  // One entry of the thread function per worker, each in its own thread of the same process.
  std::set<int> tids{main_thread["tid"].get<int>()};
  for (size_t i = 1; i < threads.size(); ++i) {
    EXPECT_EQ(threads[i]["pid"], main_thread["tid"]);
    EXPECT_EQ(find(threads[i]["calls"], "read_blocks").size(), 1U) << threads[i].dump(1);
    EXPECT_TRUE(find(threads[i]["calls"], "main").empty());
    tids.insert(threads[i]["tid"].get<int>());
  }
  EXPECT_EQ(tids.size(), threads.size());

  // Entries and returns balance: each return closed a call. (_start, whose return stap will
  // not probe, is a symbol-table-only function and not traced at all.)
  EXPECT_EQ(tree["unfinished_calls"], 0);
  EXPECT_EQ(tree["unwound_calls"], 0);
  EXPECT_EQ(tree["returns"].get<size_t>() + tree["unfinished_calls"].get<size_t>(),
            tree["entries"].get<size_t>());

  for (const auto& thread : threads) {
    uint64_t last = 0;
    expect_times_increase(thread["calls"], thread["first_ns"], thread["last_ns"], last);
  }
}

TEST_F(CallgraphTest, FoldedAndPerfettoAgreeWithTheTree) {
  const json tree = json::parse(callgraph({"--json"}));
  std::map<std::string, int> tree_paths;
  for (const auto& thread : tree["threads"]) paths_of(thread["calls"], "", tree_paths);

  // Folded: "block_hasher-TID;f;g WEIGHT", the same call paths as the tree.
  std::istringstream folded(callgraph({"--format", "folded"}));
  std::set<std::string> folded_paths;
  std::set<std::string> folded_threads;
  for (std::string line; std::getline(folded, line);) {
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_NO_THROW((void)std::stoull(line.substr(space + 1))) << line;
    const size_t first = line.find(';');
    ASSERT_NE(first, std::string::npos) << line;
    EXPECT_TRUE(line.starts_with("block_hasher-")) << line;
    folded_threads.insert(line.substr(0, first));
    folded_paths.insert(line.substr(first + 1, space - first - 1));
  }
  EXPECT_EQ(folded_threads.size(), tree["threads"].size());
  std::set<std::string> tree_path_set;
  for (const auto& [path, count] : tree_paths) tree_path_set.insert(path);
  EXPECT_EQ(folded_paths, tree_path_set);

  // Perfetto: a track per thread, a slice per call, nested as the tree's calls are. A trace is
  // for loading into ui.perfetto.dev, so it goes where -o says and stdout stays empty.
  const TempDir out("iotap-callgraph-out");
  EXPECT_EQ(callgraph({"--format", "perfetto", "-o", out / "trace.json"}), "");
  std::ifstream trace_file(out / "trace.json");
  const json trace = json::parse(trace_file);
  std::map<int, std::vector<json>> tracks;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "X") tracks[event["tid"]].push_back(event);
  }
  EXPECT_EQ(tracks.size(), tree["threads"].size());
  std::map<std::string, int> slice_paths;
  for (const auto& [tid, slices] : tracks) {
    std::vector<std::pair<double, std::string>> open;  // end, path
    for (const auto& slice : slices) {
      const double start = slice["ts"];
      while (!open.empty() && start >= open.back().first) open.pop_back();
      std::string name = slice["name"];
      if (slice["cat"] == "kernel") name += "_[k]";
      const std::string path = open.empty() ? name : open.back().second + ";" + name;
      ++slice_paths[path];
      open.emplace_back(start + slice["dur"].get<double>(), path);
    }
  }
  std::set<std::string> slice_path_set;
  for (const auto& [path, count] : slice_paths) slice_path_set.insert(path);
  EXPECT_EQ(slice_path_set, tree_path_set);
  EXPECT_EQ(slice_paths["main;open"], 1);
  EXPECT_EQ(slice_paths["_M_run;read_blocks"], kWorkers);
}

// A C++ program that throws through traced functions and catches two callers up
// (tests/vm/programs/throws_and_catches.cpp). Return probes replace return addresses with the
// kernel's trampoline, which the unwinder cannot pass: before the fix it died of
// std::terminate (SIGABRT, exit 134). It must exit as it does untraced, and the tree must show
// the unwound calls as such and every other call with its return.
TEST_F(CallgraphTest, AProgramThatThrowsAndCatchesExitsAsItDoesUntraced) {
  const Captured untraced = capture({THROWS_AND_CATCHES});
  ASSERT_EQ(untraced.status.code, 0) << untraced.err;
  ASSERT_EQ(untraced.out, "caught: not a digit: x\nafter: 42\n");

  const auto run = iotap({"callgraph", "--target", "vm", "--json", "-c", THROWS_AND_CATCHES});
  EXPECT_EQ(run.status.code, untraced.status.code) << run.err;
  EXPECT_EQ(run.err.find("terminate called"), std::string::npos) << run.err;
  // The program's output, line for line, on stderr with its name before each line (every
  // verb's rule for the traced program's output).
  std::string prefixed;
  for (size_t start = 0, end; (end = untraced.out.find('\n', start)) != std::string::npos;
       start = end + 1) {
    prefixed += "[throws_and_catches] " + untraced.out.substr(start, end + 1 - start);
  }
  EXPECT_NE(run.err.find(prefixed), std::string::npos) << "the program's own output: " << run.err;
  const json tree = json::parse(run.out);
  EXPECT_EQ(tree["exit_status"], untraced.status.code);
  EXPECT_EQ(tree["unwound_calls"], 2) << "the second parse_one and parse_all";
  EXPECT_EQ(tree["unfinished_calls"], 0) << "every other call returned: " << tree.dump(1);
  EXPECT_EQ(tree["unmatched_returns"], 0);
  EXPECT_EQ(tree["returns"].get<int>() + 2, tree["entries"].get<int>());

  ASSERT_EQ(tree["threads"].size(), 1U) << tree.dump(1);
  const json& calls = tree["threads"][0]["calls"];
  ASSERT_EQ(calls.size(), 1U) << "main only: _start and GCC's .cold parts are not probed";
  const json& main = calls[0];
  EXPECT_EQ(main["function"], "main");
  EXPECT_EQ(main["return"], "return=0x0");
  ASSERT_EQ(main["calls"].size(), 1U) << main.dump(1);
  const json& run_call = main["calls"][0];
  EXPECT_EQ(run_call["function"], "run");
  EXPECT_EQ(run_call["return"], "return=0x0") << "run's return seen: its trampoline was put back";
  const auto parse_all = find(run_call["calls"], "parse_all");
  ASSERT_EQ(parse_all.size(), 1U);
  EXPECT_TRUE((*parse_all[0])["unwound"]);
  std::vector<const json*> parse_one;
  for (const auto& call : (*parse_all[0])["calls"]) {
    if (call["function"] == "parse_one") parse_one.push_back(&call);
  }
  ASSERT_EQ(parse_one.size(), 2U) << parse_all[0]->dump(1);
  EXPECT_EQ((*parse_one[0])["return"], "return=0x7");
  EXPECT_FALSE((*parse_one[0])["unwound"]);
  EXPECT_TRUE((*parse_one[1])["unwound"]);
  // After the catch: a call of run's, not of the unwound parse_all.
  const json& last = run_call["calls"].back();
  EXPECT_EQ(last["function"], "after_the_catch");
  EXPECT_EQ(last["return"], "return=0x2a");
  for (const char* cold : {".cold", "_start"}) EXPECT_EQ(run.out.find(cold), std::string::npos);
}

}  // namespace
}  // namespace iotap::test
