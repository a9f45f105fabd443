#pragma once
// The little JSON iotap writes: string escaping, done once.
#include <string>
#include <string_view>

namespace iotap {

// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

}  // namespace iotap
