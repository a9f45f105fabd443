#pragma once
// JSON output, through nlohmann::json (Debian's nlohmann-json3-dev); keys keep their order so a
// person reading the output sees it as documented.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/stack.h"

namespace iotap {

using Json = nlohmann::ordered_json;

// Pretty-printed, with any byte that is not UTF-8 (a program may print anything) replaced.
std::string to_text(const Json& json);

// A device's parent's kernel name, or null for the top device.
Json parent_json(const StackDevice& device);

// The stack as the guest built it (top first): [{"name", "dev", "spec", "parent"}].
Json stack_json(const std::vector<StackDevice>& devices);

}  // namespace iotap
