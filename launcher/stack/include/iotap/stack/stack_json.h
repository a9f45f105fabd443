#pragma once
// The stack as JSON, the same in every verb's --json output.
#include <vector>

#include "iotap/stack.h"
#include "iotap/util/json_text.h"

namespace iotap {

// A device's parent's kernel name, or null for the top device.
Json parent_json(const StackDevice& device);

// The stack as the guest built it (top first): [{"name", "dev", "spec", "parent"}, md, dm].
Json stack_json(const std::vector<StackDevice>& devices);

}  // namespace iotap
