#pragma once
// Words both reports (text.cpp, html.cpp) put numbers in.
#include <cstdint>
#include <string>
#include <string_view>

namespace iotap::report {

// "1 read", "2 reads".
inline std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace iotap::report
