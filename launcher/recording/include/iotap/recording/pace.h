#pragma once
// How a replay is paced (io_replayer --pace, iotap replay --pace): each request at its recorded
// time from the start, scaled by a speed, or as fast as its thread's previous request allows.
#include <optional>
#include <string>

namespace iotap::recording {

struct Pace {
  bool fast = false;
  double speed = 1;  // x2: twice as fast as recorded
};

// "recorded", "fast" or "xN" with N from kSlowest to kFastest; none for anything else (say
// kPaceExpected). Beyond them a replay is not paced any more: x1e-300 would wait longer than the
// universe has existed between two requests, and above x1000 a recorded gap of a second is a
// millisecond, less than a request takes, so the replay is --pace fast under another name.
std::optional<Pace> parse_pace(const std::string& text);
inline constexpr double kSlowestPace = 0.001;
inline constexpr double kFastestPace = 1000;
inline constexpr const char* kPaceExpected =
    "recorded, fast or xN (N from 0.001 to 1000: x2 twice as fast, x0.5 half as fast)";

// "recorded", "fast", "x2".
std::string pace_name(const Pace& pace);

}  // namespace iotap::recording
