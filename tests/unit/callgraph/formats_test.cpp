#include "iotap/callgraph/formats.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "recorded.h"

namespace iotap::callgraph {
namespace {

using nlohmann::json;

size_t count_calls(const std::vector<Call>& calls) {
  size_t count = calls.size();
  for (const Call& call : calls) count += count_calls(call.calls);
  return count;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class RecordedFormats : public ::testing::TestWithParam<const char*> {
 protected:
  CallGraph graph_ = test::recorded_graph(GetParam());
};

TEST_P(RecordedFormats, TextShowsEveryEntryAndReturnInTimeOrderPerThread) {
  const auto lines = lines_of(text_format(graph_, "block_hasher"));
  size_t entries = 0;
  size_t returns = 0;
  double last_time = -1;
  for (const auto& line : lines) {
    if (line.starts_with("thread ")) {
      last_time = -1;
      continue;
    }
    const double time = std::stod(line);
    EXPECT_GE(time, last_time) << line;
    last_time = time;
    if (line.find(":->") != std::string::npos || line.find(" ->") != std::string::npos) ++entries;
    if (line.find(":<-") != std::string::npos || line.find(" <-") != std::string::npos) ++returns;
  }
  EXPECT_EQ(entries, graph_.entries);
  EXPECT_EQ(returns, graph_.entries) << "one return line per call, seen or not";
}

TEST_P(RecordedFormats, FoldedStacksWeighEachThreadsTime) {
  std::map<std::string, uint64_t> by_root;
  for (const auto& line : lines_of(folded_format(graph_, "block_hasher"))) {
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    const std::string path = line.substr(0, space);
    // flamegraph.pl takes the weight after the last space: C++ frames may hold spaces
    // ("operator+<char, std::char_traits<char>, ...>"), never the ';' between frames.
    EXPECT_NE(path.find(';'), std::string::npos) << "a thread and at least one call: " << line;
    by_root[path.substr(0, path.find(';'))] += std::stoull(line.substr(space + 1));
  }
  ASSERT_EQ(by_root.size(), graph_.threads.size());
  for (const auto& thread : graph_.threads) {
    uint64_t total_ns = 0;
    for (const Call& call : thread.calls) total_ns += end_ns(call, thread) - call.entry_ns;
    const std::string root = "block_hasher-" + std::to_string(thread.tid);
    // Each path's weight is rounded to a microsecond: the sum is within half a microsecond
    // per path of the thread's traced time.
    EXPECT_NEAR(static_cast<double>(by_root[root]), static_cast<double>(total_ns) / 1000.0,
                static_cast<double>(count_calls(thread.calls)) / 2 + 1)
        << root;
  }
}

TEST_P(RecordedFormats, PerfettoHasATrackPerThreadAndNestedSlices) {
  const json trace = json::parse(perfetto_format(graph_, "block_hasher"));
  std::map<int, std::vector<json>> slices;
  std::map<int, std::string> thread_names;
  for (const auto& event : trace.at("traceEvents")) {
    if (event["ph"] == "X") slices[event["tid"]].push_back(event);
    if (event["ph"] == "M" && event["name"] == "thread_name")
      thread_names[event["tid"]] = event["args"]["name"];
  }
  size_t total = 0;
  for (const auto& thread : graph_.threads) {
    EXPECT_EQ(thread_names[thread.tid], "block_hasher " + std::to_string(thread.tid));
    auto& track = slices[thread.tid];
    EXPECT_EQ(track.size(), count_calls(thread.calls)) << "tid " << thread.tid;
    total += track.size();
    // Slices come depth-first, so each one lies within every open slice before it.
    std::vector<double> open_ends;
    for (const auto& slice : track) {
      const double start = slice["ts"];
      const double end = start + slice["dur"].get<double>();
      while (!open_ends.empty() && start >= open_ends.back()) open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(end, open_ends.back() + 1e-3) << slice.dump();
      }
      open_ends.push_back(end);
    }
  }
  EXPECT_EQ(total, graph_.entries);
}

TEST_P(RecordedFormats, JsonTreeCountsAgree) {
  const auto tree = json_tree(graph_, "block_hasher");
  EXPECT_EQ(tree["schema"], "iotap.callgraph/1");
  EXPECT_EQ(tree["entries"], graph_.entries);
  EXPECT_EQ(tree["threads"].size(), graph_.threads.size());
  EXPECT_EQ(tree["threads"][0]["first_ns"], 0U);
}

INSTANTIATE_TEST_SUITE_P(Recorded, RecordedFormats,
                         ::testing::Values("callgraph_block_hasher.txt",
                                           "callgraph_trigger_kernel.txt"));

// block_hasher -t 2 -n 4 with --trigger read_blocks --kernel 'raid0:raid0_*', recorded.
TEST(TriggerAndKernel, OnlyCallsInsideTheTriggerWithTheKernelsUnderThem) {
  const CallGraph graph = test::recorded_graph("callgraph_trigger_kernel.txt");
  ASSERT_EQ(graph.threads.size(), 2U) << "the two workers only: main never enters read_blocks";
  size_t kernel_calls = 0;
  for (const auto& thread : graph.threads) {
    ASSERT_EQ(thread.calls.size(), 1U);
    EXPECT_EQ(thread.calls[0].function, "read_blocks");
    for (const auto* call : test::find_calls(thread.calls[0].calls, "raid0_map_submit_bio")) {
      EXPECT_EQ(call->side, Side::kKernel);
      ++kernel_calls;
    }
  }
  EXPECT_GE(kernel_calls, 4U) << "at least one raid0 submit per 1 MiB block read";
  const std::string text = text_format(graph, "block_hasher");
  EXPECT_NE(text.find("->raid0_map_submit_bio [k]"), std::string::npos) << text;
  EXPECT_NE(folded_format(graph, "block_hasher").find(";raid0_map_submit_bio_[k]"),
            std::string::npos);
}

}  // namespace
}  // namespace iotap::callgraph
