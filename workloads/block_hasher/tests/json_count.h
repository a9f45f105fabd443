// block_hasher's --json read back with nlohmann::json, and its counts checked as counts: a
// non-negative integer written without fraction or exponent (nlohmann would convert 16.0 to 16).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace block_hasher_test {

inline std::uint64_t count(const nlohmann::json& value) {
  if (!value.is_number_unsigned()) throw std::runtime_error("not a count: " + value.dump());
  return value.get<std::uint64_t>();
}

}  // namespace block_hasher_test
