#include "probe_arguments.h"

#include <gtest/gtest.h>

#include <utility>

namespace iotap::usdt {
namespace {

Argument arg(int size, bool is_signed, std::string operand, bool is_float = false) {
  return {.size_bytes = size,
          .is_signed = is_signed,
          .is_float = is_float,
          .operand = std::move(operand)};
}

TEST(ProbeArguments, ReadsSizesSignsAndOperandsAsSdtWritesThem) {
  auto args = parse_arguments("-4@%edx 8@%rax 8@-16(%rbp) -1@%dil 2@%si -4@$-7");
  ASSERT_TRUE(args) << args.error();
  EXPECT_EQ(*args,
            (std::vector{arg(4, true, "%edx"), arg(8, false, "%rax"), arg(8, false, "-16(%rbp)"),
                         arg(1, true, "%dil"), arg(2, false, "%si"), arg(4, true, "$-7")}));
}

TEST(ProbeArguments, FloatingPointArgumentsCarryAnF) {
  auto args = parse_arguments("8f@%xmm0 4f@-8(%rsp)");
  ASSERT_TRUE(args) << args.error();
  EXPECT_EQ(*args, (std::vector{arg(8, false, "%xmm0", true), arg(4, false, "-8(%rsp)", true)}));
}

TEST(ProbeArguments, EmptyStringMeansNoArguments) {
  auto args = parse_arguments("");
  ASSERT_TRUE(args);
  EXPECT_TRUE(args->empty());
  ASSERT_TRUE(parse_arguments("   "));
}

TEST(ProbeArguments, OldNotesWithoutSizesHaveUnknownSize) {
  auto args = parse_arguments("%eax -4(%rbp) $5");
  ASSERT_TRUE(args) << args.error();
  EXPECT_EQ(*args,
            (std::vector{arg(0, false, "%eax"), arg(0, false, "-4(%rbp)"), arg(0, false, "$5")}));
}

TEST(ProbeArguments, BracketsKeepAarch64OperandsWhole) {
  auto args = parse_arguments("-4@[sp, 44] 8@x0 8@[x1, x2, lsl 3]");
  ASSERT_TRUE(args) << args.error();
  EXPECT_EQ(*args, (std::vector{arg(4, true, "[sp, 44]"), arg(8, false, "x0"),
                                arg(8, false, "[x1, x2, lsl 3]")}));
}

TEST(ProbeArguments, ExtraSpacesBetweenArgumentsAreFine) {
  auto args = parse_arguments(" 8@%rax   -4@%edx ");
  ASSERT_TRUE(args) << args.error();
  EXPECT_EQ(args->size(), 2U);
}

TEST(ProbeArguments, RejectsSizesThatAreNotPowersOfTwoUpToEight) {
  for (const char* text : {"3@%eax", "16@%rax", "0@%eax", "-12@%eax", "999999999999@%eax"}) {
    auto args = parse_arguments(text);
    ASSERT_FALSE(args) << text;
    EXPECT_NE(args.error().find("sizes are 1, 2, 4 or 8"), std::string::npos) << args.error();
  }
  EXPECT_TRUE(parse_arguments("16f@-32(%rbp)")) << "a long double is 16 bytes";
}

TEST(ProbeArguments, RejectsAMissingOperand) {
  auto args = parse_arguments("8@%rax 4@");
  ASSERT_FALSE(args);
  EXPECT_EQ(args.error(), "argument 2: '4@' has no operand after '@'");
}

TEST(ProbeArguments, RejectsUnbalancedBrackets) {
  EXPECT_FALSE(parse_arguments("8@-16(%rbp"));
  EXPECT_FALSE(parse_arguments("8@%rax) 4@%eax"));
  EXPECT_FALSE(parse_arguments("-4@[sp, 44"));
}

}  // namespace
}  // namespace iotap::usdt
