#pragma once
// Owns turning the guest's "node" reports (devices numbered by the stack plan, parents by
// number) into the stack as iotap/stack.h describes it: parents by kernel name, top first.
#include <vector>

#include "iotap/stack.h"

namespace iotap::runner {

struct GuestNode {
  int id = 0;       // the stack plan's number for the device
  int parent = -1;  // its parent's number; -1 for the top device
  StackDevice device;
};

// The devices in the plan's order (top first), each parent named; a parent number that no node
// has leaves the parent empty.
std::vector<StackDevice> stack_from_nodes(std::vector<GuestNode> nodes);

}  // namespace iotap::runner
