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

// "recorded", "fast" or "xN" with N > 0; none for anything else (say kPaceExpected).
std::optional<Pace> parse_pace(const std::string& text);
inline constexpr const char* kPaceExpected =
    "recorded, fast or xN (N > 0: x2 twice as fast, x0.5 half as fast)";

// "recorded", "fast", "x2".
std::string pace_name(const Pace& pace);

}  // namespace iotap::recording
