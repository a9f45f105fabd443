#include "iotap/session/interval_option.h"

#include <cctype>
#include <charconv>
#include <cstdint>

#include "iotap/util/error.h"

namespace iotap::session {

namespace {

constexpr std::chrono::milliseconds kShortest{10};
constexpr std::chrono::milliseconds kLongest = std::chrono::hours(1);

[[noreturn]] void bad_interval(const std::string& text, const std::string& why) {
  throw UserError("--interval '" + text + "': " + why + " (examples: 250ms, 1s, 5)");
}

}  // namespace

std::chrono::milliseconds parse_interval(const std::string& text) {
  uint64_t number = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [rest, error] = std::from_chars(first, last, number);
  if (error == std::errc::result_out_of_range) bad_interval(text, "too long");
  if (error != std::errc() || rest == first) bad_interval(text, "not a duration");
  const std::string unit(rest, last);
  uint64_t ms = 0;
  if (unit == "ms") {
    ms = number;
  } else if (unit.empty() || unit == "s") {
    if (number > static_cast<uint64_t>(kLongest.count())) bad_interval(text, "too long");
    ms = number * 1000;
  } else {
    bad_interval(text, "unknown unit '" + unit + "' (ms or s)");
  }
  if (ms < static_cast<uint64_t>(kShortest.count())) bad_interval(text, "the shortest is 10ms");
  if (ms > static_cast<uint64_t>(kLongest.count())) bad_interval(text, "the longest is 1 hour");
  return std::chrono::milliseconds(ms);
}

std::string describe_interval(std::chrono::milliseconds interval) {
  const auto ms = interval.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

}  // namespace iotap::session
