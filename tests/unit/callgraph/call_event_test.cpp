#include "iotap/callgraph/call_event.h"

#include <gtest/gtest.h>

#include "recorded.h"

namespace iotap::callgraph {
namespace {

TEST(CallEvent, ReadsAnEntryWithItsArguments) {
  const auto event = parse_call_event(
      "cg\t>\t1795387517745594390\t195\t195\tu\tmain\targc=0xa argv=0x7ffe0d005718");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->direction, Direction::kEntry);
  EXPECT_EQ(event->ns, 1795387517745594390U);
  EXPECT_EQ(event->pid, 195);
  EXPECT_EQ(event->tid, 195);
  EXPECT_EQ(event->side, Side::kUser);
  EXPECT_EQ(event->function, "main");
  EXPECT_EQ(event->detail, "argc=0xa argv=0x7ffe0d005718");
}

TEST(CallEvent, ReadsAKernelReturnWithAnEmptyOrTabbedDetail) {
  const auto event = parse_call_event("cg\t<\t10\t1\t2\tk\traid0_map_submit_bio\t");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->direction, Direction::kReturn);
  EXPECT_EQ(event->side, Side::kKernel);
  EXPECT_EQ(event->detail, "");
  const auto tabbed = parse_call_event("cg\t<\t10\t1\t2\tu\tf\treturn=\"a\tb\"");
  ASSERT_TRUE(tabbed);
  EXPECT_EQ(tabbed->detail, "return=\"a\tb\"");
}

TEST(CallEvent, ReadsACallAnExceptionUnwound) {
  const auto event = parse_call_event("cg\t!\t10\t1\t2\tu\tunwound\tframes=2");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->direction, Direction::kUnwound);
  EXPECT_EQ(event->detail, "frames=2");
}

TEST(CallEvent, LeavesTheProgramsOwnOutputAlone) {
  EXPECT_FALSE(parse_call_event("thread 0: 8 blocks, 8.0 MiB in 0.809 s"));
  EXPECT_FALSE(parse_call_event(""));
  EXPECT_FALSE(parse_call_event("cg\t>\t10\t1\t2\tu\tmain"));    // a field short
  EXPECT_FALSE(parse_call_event("cg\t=\t10\t1\t2\tu\tmain\t"));  // no direction
  EXPECT_FALSE(parse_call_event("cg\t>\t10\t1\t2\tx\tmain\t"));  // no side
  EXPECT_FALSE(parse_call_event("cg\t>\t1x\t1\t2\tu\tmain\t"));  // not a number
  EXPECT_FALSE(parse_call_event("cg\t>\t10\t1\t2\tu\t\targ"));   // no function
  EXPECT_FALSE(parse_call_event("xx\t>\t10\t1\t2\tu\tmain\t"));
}

TEST(CallEvent, EveryRecordedLineIsAnEvent) {
  for (const auto* name : {"callgraph_block_hasher.txt", "callgraph_trigger_kernel.txt"}) {
    for (const auto& line : test::recorded_lines(name))
      EXPECT_TRUE(parse_call_event(line)) << name << ": " << line;
  }
}

}  // namespace
}  // namespace iotap::callgraph
