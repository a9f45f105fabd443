#include "iotap/recording/pace.h"

#include <charconv>
#include <system_error>

namespace iotap::recording {

std::optional<Pace> parse_pace(const std::string& text) {
  if (text == "recorded") return Pace{};
  if (text == "fast") return Pace{.fast = true};
  if (text.size() > 1 && text[0] == 'x') {
    double speed = 0;
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data() + 1, end, speed);
    if (ec == std::errc() && stop == end && speed >= kSlowestPace && speed <= kFastestPace)
      return Pace{.speed = speed};
  }
  return std::nullopt;
}

std::string pace_name(const Pace& pace) {
  if (pace.fast) return "fast";
  if (pace.speed == 1) return "recorded";
  std::string speed = std::to_string(pace.speed);
  while (speed.back() == '0') speed.pop_back();
  if (speed.back() == '.') speed.pop_back();
  return "x" + speed;
}

}  // namespace iotap::recording
