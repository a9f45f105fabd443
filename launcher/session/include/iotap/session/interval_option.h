#pragma once
// --interval DURATION, as iotime and top take it: how often the script prints a table.
#include <chrono>
#include <string>

namespace iotap::session {

// "250ms", "2s", "2" (seconds). Throws UserError for anything else, and for intervals under
// 10 ms (the guest's timer cannot keep up) or over an hour.
std::chrono::milliseconds parse_interval(const std::string& text);

// "250ms", "1s", "1500ms": as a person would write it back.
std::string describe_interval(std::chrono::milliseconds interval);

}  // namespace iotap::session
