#pragma once
// Words both reports (text.cpp, html.cpp) put numbers in.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace iotap::report {

// "1 read", "2 reads".
inline std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// Microseconds, whole: "1540".
inline std::string us(double value) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.0f", std::round(value));
  return buffer.data();
}

// A share 0..1 as a percentage with one decimal, as the text report prints it: "71.6%".
inline std::string percent(double share) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.1f%%", share * 100);
  return buffer.data();
}

// The same, whole, as the HTML page's bars label it: "72%".
inline std::string whole_percent(double share) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.0f%%", share * 100);
  return buffer.data();
}

}  // namespace iotap::report
