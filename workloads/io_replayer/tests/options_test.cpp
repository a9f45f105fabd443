// io_replayer's command line: what it accepts and the one line it says about what it does not.
#include "options.h"

#include <gtest/gtest.h>

#include "error.h"

namespace io_replayer {
namespace {

std::string error_of(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(ReplayerOptions, TheRecordingTheDeviceAndThePace) {
  const Options o = parse_options({"io_replayer", "-r", "a.rec", "-d", "/dev/md0", "--pace", "x2.5",
                                   "--allow-writes", "--json"});
  EXPECT_EQ(o.recording, "a.rec");
  EXPECT_EQ(o.device, "/dev/md0");
  EXPECT_FALSE(o.pace.fast);
  EXPECT_DOUBLE_EQ(o.pace.speed, 2.5);
  EXPECT_TRUE(o.allow_writes);
  EXPECT_TRUE(o.json);
  EXPECT_EQ(pace_name(o.pace), "x2.5");
  EXPECT_EQ(pace_name(parse_pace("recorded")), "recorded");
  EXPECT_EQ(pace_name(parse_pace("fast")), "fast");
  EXPECT_TRUE(parse_options({"io_replayer", "--help"}).help);
}

TEST(ReplayerOptions, BadInputIsOneLineSayingWhatToDo) {
  EXPECT_EQ(error_of({"io_replayer", "-d", "/dev/md0"}), "give the recording to replay: -r FILE");
  EXPECT_EQ(error_of({"io_replayer", "-r", "a.rec"}), "give the device to replay on: -d DEVICE");
  EXPECT_EQ(error_of({"io_replayer", "-r"}), "-r needs a value (see io_replayer --help)");
  EXPECT_EQ(error_of({"io_replayer", "--bogus"}),
            "unknown option '--bogus' (see io_replayer --help)");
  const std::string pace_error =
      "--pace must be recorded, fast or xN (N from 0.001 to 1000: x2 twice as fast, x0.5 half as "
      "fast), not ";
  EXPECT_EQ(error_of({"io_replayer", "--pace", "x0"}), pace_error + "'x0'");
  EXPECT_EQ(error_of({"io_replayer", "--pace", "x-1"}), pace_error + "'x-1'");
  EXPECT_EQ(error_of({"io_replayer", "--pace", "slow"}), pace_error + "'slow'");
  EXPECT_EQ(error_of({"io_replayer", "--pace", "xinf"}), pace_error + "'xinf'");
  // Numbers, but no pace a replay can keep: one gap stretched past any run's length, or every
  // gap shrunk below what one request takes.
  EXPECT_EQ(error_of({"io_replayer", "--pace", "x1e-300"}), pace_error + "'x1e-300'");
  EXPECT_EQ(error_of({"io_replayer", "--pace", "x0.0009"}), pace_error + "'x0.0009'");
  EXPECT_EQ(error_of({"io_replayer", "--pace", "x1001"}), pace_error + "'x1001'");
  EXPECT_EQ(pace_name(parse_pace("x0.001")), "x0.001");
  EXPECT_EQ(pace_name(parse_pace("x1000")), "x1000");
}

}  // namespace
}  // namespace io_replayer
