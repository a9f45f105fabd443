// A provider's arithmetic (provider/expression.h): what it accepts, how it is written for stap,
// and the one-line reason for what it refuses.
#include "iotap/provider/expression.h"

#include <gtest/gtest.h>

namespace iotap::provider {
namespace {

Expression parsed(std::string_view text) {
  auto result = parse_expression(text);
  EXPECT_TRUE(result.expression.has_value()) << text << ": " << result.error;
  return result.expression.value_or(Expression::zero());
}

std::string refused(std::string_view text) {
  auto result = parse_expression(text);
  EXPECT_FALSE(result.expression.has_value()) << text;
  return result.error;
}

TEST(ProviderExpression, SumsOfProductsOfArgumentsAndIntegers) {
  EXPECT_EQ(parsed("$arg2 * 8192").to_stap(), "($arg2 * 8192)");
  EXPECT_EQ(parsed("$arg2*8192").to_text(), "$arg2 * 8192");
  EXPECT_EQ(parsed("  $arg3 + $arg4 * 512 ").to_stap(), "($arg3 + $arg4 * 512)");
  EXPECT_EQ(parsed("8192").to_stap(), "(8192)");
  EXPECT_EQ(parsed("$arg12").highest_argument(), 12);
  EXPECT_EQ(parsed("$arg3 + $arg7 * $arg1").highest_argument(), 7);
  EXPECT_EQ(parsed("4096").highest_argument(), 0);
  EXPECT_EQ(Expression::zero().to_stap(), "(0)");
}

TEST(ProviderExpression, AnythingElseIsRefusedSayingWhatWasFound) {
  EXPECT_EQ(refused("$arg0"), "expected $arg1 to $arg12, found '$arg0'");
  EXPECT_EQ(refused("$arg13"), "expected $arg1 to $arg12, found '$arg13'");
  EXPECT_EQ(refused("$args"), "expected $arg1 to $arg12, found '$args'");
  EXPECT_EQ(refused("$arg2 / 2"), "expected + or * or the end, found '/'");
  EXPECT_EQ(refused("$arg2 - 1"), "expected + or * or the end, found '-'");
  EXPECT_EQ(refused("$arg2 *"), "expected $argN or an integer, found the end");
  EXPECT_EQ(refused(""), "expected $argN or an integer, found the end");
  EXPECT_EQ(refused("0x10"), "expected + or * or the end, found 'x10'");
  EXPECT_EQ(refused("user_string($arg1)"),
            "expected $argN or an integer, found 'user_string($arg1)'");
  EXPECT_EQ(refused("99999999999999999999"),
            "the integer '99999999999999999999' is too large (at most 9223372036854775807)");
  // Nothing of stap's own reaches the script: no calls, no casts, no strings.
  EXPECT_FALSE(parse_expression("$arg1); system(\"x\"").expression.has_value());
}

}  // namespace
}  // namespace iotap::provider
