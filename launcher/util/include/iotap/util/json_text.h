#pragma once
// JSON output, through nlohmann::json (Debian's nlohmann-json3-dev); keys keep their order so a
// person reading the output sees it as documented.
#include <nlohmann/json.hpp>
#include <string>

namespace iotap {

using Json = nlohmann::ordered_json;

// Pretty-printed, with any byte that is not UTF-8 (a program may print anything) replaced.
std::string to_text(const Json& json);

}  // namespace iotap
