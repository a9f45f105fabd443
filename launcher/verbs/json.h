#pragma once
// JSON output, through nlohmann::json (Debian's nlohmann-json3-dev); keys keep their order so a
// person reading the output sees it as documented.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "target/vm/vm_runner.h"

namespace iotap {

using Json = nlohmann::ordered_json;

// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

// The kernel name of a device's parent in the stack the guest reported, or null for the top.
Json parent_name(const std::vector<vm::GuestDevice>& devices, const vm::GuestDevice& device);

// Pretty-printed, with any byte that is not UTF-8 (a program may print anything) replaced.
std::string to_text(const Json& json);

// The stack as the guest built it: [{"name", "spec", "parent"}], top first.
Json stack_json(const std::vector<vm::GuestDevice>& devices);

}  // namespace iotap
