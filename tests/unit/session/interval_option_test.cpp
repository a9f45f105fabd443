#include "iotap/session/interval_option.h"

#include <gtest/gtest.h>

#include "iotap/util/error.h"

namespace iotap::session {
namespace {

using std::chrono::milliseconds;

TEST(IntervalOption, TakesMillisecondsSecondsAndBareSeconds) {
  EXPECT_EQ(parse_interval("250ms"), milliseconds(250));
  EXPECT_EQ(parse_interval("2s"), milliseconds(2000));
  EXPECT_EQ(parse_interval("5"), milliseconds(5000));
  EXPECT_EQ(parse_interval("10ms"), milliseconds(10));
  EXPECT_EQ(parse_interval("3600s"), milliseconds(3600000));
}

TEST(IntervalOption, RefusesWhatIsNotAPositiveDuration) {
  for (const char* bad : {"0", "0ms", "9ms", "abc", "", "-1", "1.5s", "5m", "1 s", "3601",
                          "99999999999999999999999"}) {
    EXPECT_THROW(parse_interval(bad), UserError) << bad;
  }
}

TEST(IntervalOption, SaysWhatIsWrongAndGivesExamples) {
  try {
    parse_interval("abc");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--interval 'abc': not a duration (examples: 250ms, 1s, 5)");
  }
}

TEST(IntervalOption, DescribesAnIntervalAsItWouldBeWritten) {
  EXPECT_EQ(describe_interval(milliseconds(250)), "250ms");
  EXPECT_EQ(describe_interval(milliseconds(1000)), "1s");
  EXPECT_EQ(describe_interval(milliseconds(1500)), "1500ms");
}

}  // namespace
}  // namespace iotap::session
