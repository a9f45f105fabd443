#include "iotap/runner/guest_stack.h"

#include <algorithm>

namespace iotap::runner {

std::vector<StackDevice> stack_from_nodes(std::vector<GuestNode> nodes) {
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const GuestNode& a, const GuestNode& b) { return a.id < b.id; });
  std::vector<StackDevice> stack;
  stack.reserve(nodes.size());
  for (const auto& node : nodes) {
    StackDevice device = node.device;
    const auto parent = std::find_if(nodes.begin(), nodes.end(), [&](const GuestNode& other) {
      return other.id == node.parent;
    });
    device.parent = parent == nodes.end() ? "" : parent->device.name;
    stack.push_back(std::move(device));
  }
  return stack;
}

}  // namespace iotap::runner
