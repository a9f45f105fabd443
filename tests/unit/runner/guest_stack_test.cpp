// The stack type's lookups, and the guest's node reports turned into it.
#include "iotap/runner/guest_stack.h"

#include <gtest/gtest.h>

namespace iotap::runner {
namespace {

GuestNode node(int id, int parent, const std::string& name, uint32_t dev) {
  GuestNode out;
  out.id = id;
  out.parent = parent;
  out.device.name = name;
  out.device.dev = dev;
  return out;
}

// raid0(ram, delay(ram, 50ms)) as the guest builds it: members before the array, numbered by
// the plan top-down.
std::vector<StackDevice> incident() {
  return stack_from_nodes({node(1, 0, "ram0", make_dev(1, 0)), node(3, 2, "ram1", make_dev(1, 1)),
                           node(2, 0, "dm-0", make_dev(253, 0)),
                           node(0, -1, "md0", make_dev(9, 0))});
}

TEST(GuestStack, TopFirstWithParentsByName) {
  const auto stack = incident();
  ASSERT_EQ(stack.size(), 4U);
  EXPECT_EQ(stack[0].name, "md0");
  EXPECT_EQ(stack[0].parent, "");
  EXPECT_EQ(stack[1].name, "ram0");
  EXPECT_EQ(stack[1].parent, "md0");
  EXPECT_EQ(stack[2].name, "dm-0");
  EXPECT_EQ(stack[2].parent, "md0");
  EXPECT_EQ(stack[3].name, "ram1");
  EXPECT_EQ(stack[3].parent, "dm-0");
}

TEST(GuestStack, AnUnknownParentNumberLeavesNoParent) {
  const auto stack = stack_from_nodes({node(1, 7, "ram0", make_dev(1, 0))});
  ASSERT_EQ(stack.size(), 1U);
  EXPECT_EQ(stack[0].parent, "");
}

TEST(StackLookups, ParentChildrenAndDevices) {
  const auto stack = incident();
  ASSERT_NE(find_device(stack, "dm-0"), nullptr);
  EXPECT_EQ(find_device(stack, "dm-0")->dev, make_dev(253, 0));
  EXPECT_EQ(find_device(stack, "sda"), nullptr);
  ASSERT_NE(find_device(stack, make_dev(1, 1)), nullptr);
  EXPECT_EQ(find_device(stack, make_dev(1, 1))->name, "ram1");
  EXPECT_EQ(find_device(stack, make_dev(8, 0)), nullptr);
  EXPECT_EQ(parent_of(stack, stack[0]), nullptr);
  ASSERT_NE(parent_of(stack, stack[3]), nullptr);
  EXPECT_EQ(parent_of(stack, stack[3])->name, "dm-0");
  const auto members = children_of(stack, stack[0]);
  ASSERT_EQ(members.size(), 2U);
  EXPECT_EQ(members[0]->name, "ram0");
  EXPECT_EQ(members[1]->name, "dm-0");
  EXPECT_TRUE(children_of(stack, stack[3]).empty());
  EXPECT_EQ(dev_name(make_dev(253, 7)), "253:7");
}

}  // namespace
}  // namespace iotap::runner
