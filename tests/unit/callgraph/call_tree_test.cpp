#include "iotap/callgraph/call_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "recorded.h"

namespace iotap::callgraph {
namespace {

CallEvent entry(uint64_t ns, int tid, const std::string& function, const std::string& args = "") {
  return {Direction::kEntry, ns, 1, tid, Side::kUser, function, args};
}
CallEvent exit(uint64_t ns, int tid, const std::string& function, const std::string& ret = "") {
  return {Direction::kReturn, ns, 1, tid, Side::kUser, function, ret};
}

TEST(CallTree, NestsCallsAndKeepsArgumentsAndReturnValues) {
  CallTreeBuilder builder;
  builder.add(entry(100, 1, "main", "argc=0x2"));
  builder.add(entry(110, 1, "open", "path=0x10"));
  builder.add(exit(150, 1, "open", "return=0x3"));
  builder.add(exit(200, 1, "main", "return=0x0"));
  const CallGraph graph = builder.build();
  ASSERT_EQ(graph.threads.size(), 1U);
  const auto& calls = graph.threads[0].calls;
  ASSERT_EQ(calls.size(), 1U);
  EXPECT_EQ(calls[0].function, "main");
  EXPECT_EQ(calls[0].arguments, "argc=0x2");
  EXPECT_EQ(calls[0].return_value, "return=0x0");
  EXPECT_EQ(calls[0].return_ns, 200U);
  ASSERT_EQ(calls[0].calls.size(), 1U);
  EXPECT_EQ(calls[0].calls[0].function, "open");
  EXPECT_EQ(calls[0].calls[0].return_value, "return=0x3");
  EXPECT_EQ(graph.start_ns, 100U);
  EXPECT_EQ(graph.end_ns, 200U);
  EXPECT_EQ(graph.entries, 2U);
  EXPECT_EQ(graph.returns, 2U);
  EXPECT_EQ(graph.unfinished_calls, 0U);
}

CallEvent unwound(uint64_t ns, int tid, size_t frames) {
  return {
      Direction::kUnwound, ns, 1, tid, Side::kUser, "unwound", "frames=" + std::to_string(frames)};
}

// What examples/callgraph.stp prints when parse_one throws, parse_all's destructor runs while
// unwinding and run catches: at the catch, "two frames unwound". The unwound calls end there,
// and the calls after the catch are run's, not parse_all's.
TEST(CallTree, CallsAnExceptionUnwoundEndThereAndAreNeitherReturnsNorUnfinished) {
  CallTreeBuilder builder;
  builder.add(entry(100, 1, "run"));
  builder.add(entry(110, 1, "parse_all"));
  builder.add(entry(120, 1, "parse_one"));
  builder.add(entry(131, 1, "_M_dispose"));
  builder.add(exit(132, 1, "_M_dispose"));
  builder.add(unwound(140, 1, 2));
  builder.add(entry(150, 1, "after_the_catch"));
  builder.add(exit(160, 1, "after_the_catch", "return=0x2a"));
  builder.add(exit(170, 1, "run", "return=0x0"));
  builder.add(unwound(180, 1, 3));  // more frames than open calls (a trigger): closes what is open
  builder.add(entry(190, 1, "late"));
  builder.add(unwound(200, 1, 3));
  const CallGraph graph = builder.build();
  ASSERT_EQ(graph.threads.size(), 1U);
  const auto& calls = graph.threads[0].calls;
  ASSERT_EQ(calls.size(), 2U);
  const Call& run = calls[0];
  ASSERT_EQ(run.calls.size(), 2U);
  const Call& parse_all = run.calls[0];
  EXPECT_TRUE(parse_all.unwound);
  EXPECT_EQ(parse_all.return_ns, 140U);
  ASSERT_EQ(parse_all.calls.size(), 1U);
  const Call& parse_one = parse_all.calls[0];
  EXPECT_TRUE(parse_one.unwound);
  EXPECT_EQ(parse_one.return_ns, 140U);
  ASSERT_EQ(parse_one.calls.size(), 1U) << "calls made while unwinding: under the innermost";
  EXPECT_FALSE(parse_one.calls[0].unwound);
  EXPECT_EQ(run.calls[1].function, "after_the_catch");
  EXPECT_EQ(run.return_value, "return=0x0");
  EXPECT_FALSE(run.unwound);
  EXPECT_TRUE(calls[1].unwound);
  EXPECT_EQ(graph.entries, 6U);
  EXPECT_EQ(graph.returns, 3U);
  EXPECT_EQ(graph.unwound_calls, 3U);
  EXPECT_EQ(graph.unfinished_calls, 0U);
  EXPECT_EQ(graph.unmatched_returns, 0U);
}

TEST(CallTree, SortsEachThreadsEventsByTime) {
  // A thread that moved between CPUs: its events arrive out of order.
  CallTreeBuilder builder;
  builder.add(entry(300, 2, "worker"));
  builder.add(entry(100, 1, "main"));
  builder.add(exit(400, 2, "worker"));
  builder.add(entry(310, 2, "step"));
  builder.add(exit(320, 2, "step"));
  builder.add(exit(500, 1, "main"));
  const CallGraph graph = builder.build();
  ASSERT_EQ(graph.threads.size(), 2U);
  EXPECT_EQ(graph.threads[0].tid, 1) << "threads in the order they started";
  const auto& worker = graph.threads[1].calls;
  ASSERT_EQ(worker.size(), 1U);
  ASSERT_EQ(worker[0].calls.size(), 1U);
  EXPECT_EQ(worker[0].calls[0].function, "step");
  EXPECT_EQ(graph.unmatched_returns, 0U);
}

TEST(CallTree, CountsWhatDoesNotBalance) {
  CallTreeBuilder builder;
  builder.add(exit(50, 1, "started_before_tracing"));
  builder.add(entry(100, 1, "main"));
  builder.add(entry(110, 1, "longjmps_out"));  // never returns
  builder.add(exit(200, 1, "main"));
  builder.add(entry(210, 1, "_start_of_exit"));  // still running at the end
  const CallGraph graph = builder.build();
  EXPECT_EQ(graph.unmatched_returns, 1U);
  EXPECT_EQ(graph.unfinished_calls, 2U);
  const auto& calls = graph.threads[0].calls;
  ASSERT_EQ(calls.size(), 2U);
  EXPECT_EQ(calls[0].return_ns, 200U) << "main's return closes it past the unfinished callee";
  EXPECT_FALSE(calls[0].calls[0].return_ns);
  EXPECT_EQ(end_ns(calls[1], graph.threads[0]), 210U) << "an unfinished call ends with its thread";
}

TEST(CallTree, RecursionClosesTheInnermostCallFirst) {
  CallTreeBuilder builder;
  builder.add(entry(1, 1, "f", "n=2"));
  builder.add(entry(2, 1, "f", "n=1"));
  builder.add(exit(3, 1, "f", "return=1"));
  builder.add(exit(4, 1, "f", "return=2"));
  const CallGraph graph = builder.build();
  const auto& outer = graph.threads[0].calls.at(0);
  EXPECT_EQ(outer.return_value, "return=2");
  EXPECT_EQ(outer.calls.at(0).return_value, "return=1");
}

// block_hasher -t 8 -n 64 over raid0(ram*7, delay(ram, 50ms)), recorded in the guest.
TEST(CallTree, RecordedBlockHasherHasMainOpenWorkersClose) {
  const CallGraph graph = test::recorded_graph("callgraph_block_hasher.txt");
  ASSERT_EQ(graph.threads.size(), 9U) << "main's thread and 8 workers";
  EXPECT_EQ(graph.unmatched_returns, 0U);
  const ThreadCalls& main_thread = graph.threads[0];
  const auto mains = test::find_calls(main_thread.calls, "main");
  ASSERT_EQ(mains.size(), 1U);
  const Call& main = *mains[0];
  EXPECT_EQ(main.return_value, "return=0x0");
  std::vector<std::string> order;
  for (const Call& call : main.calls) order.push_back(call.function);
  const auto at = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  ASSERT_LT(at("open"), static_cast<long>(order.size()));
  ASSERT_LT(at("~Device"), static_cast<long>(order.size()));
  EXPECT_LT(at("open"), at("run"));
  EXPECT_LT(at("run"), at("~Device"));

  std::set<int> worker_tids;
  for (size_t i = 1; i < graph.threads.size(); ++i) {
    const auto& thread = graph.threads[i];
    EXPECT_EQ(thread.pid, main_thread.tid);
    EXPECT_EQ(test::find_calls(thread.calls, "read_blocks").size(), 1U) << "tid " << thread.tid;
    worker_tids.insert(thread.tid);
  }
  EXPECT_EQ(worker_tids.size(), 8U);
  // The workers run inside main's run().
  const Call& run = main.calls.at(static_cast<size_t>(at("run")));
  for (size_t i = 1; i < graph.threads.size(); ++i) {
    const Call* read = test::find_calls(graph.threads[i].calls, "read_blocks").at(0);
    EXPECT_GT(read->entry_ns, run.entry_ns);
    EXPECT_LT(*read->return_ns, *run.return_ns);
  }
}

}  // namespace
}  // namespace iotap::callgraph
