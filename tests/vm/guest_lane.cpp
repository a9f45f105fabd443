// The shared guest this test binary runs on. The vm tier runs on several shared guests at once,
// one test per guest (tests/vm/CMakeLists.txt): ctest's resource allocation, with test.sh's
// --resource-spec-file, hands each test one guest as CTEST_RESOURCE_GROUP_0_GUESTS=
// "id:g1,slots:1", and the guest with that id runs at TEST_GUESTS_DIR/g1, or, for a test whose
// runs boot the second kernel (IOTAP_GUEST_KERNEL=SECOND_GUEST_KERNEL, the `_on_6.12` cases), at
// SECOND_TEST_GUESTS_DIR/g1: each slot has one guest per kernel, and the test holding the slot
// uses its kernel's. Set here, before any test, IOTAP_GUEST names it to the test and to every
// iotap the test starts. Without an allocation (ctest without the spec file, or the binary run
// by hand) IOTAP_GUEST stays as the environment has it: the first guest under ctest, none (a
// guest per run) by hand.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void use_allocated_guest() {
  const char* allocation = std::getenv("CTEST_RESOURCE_GROUP_0_GUESTS");
  if (allocation == nullptr) return;
  constexpr std::string_view kIdPrefix = "id:";
  std::string_view id(allocation);
  if (!id.starts_with(kIdPrefix)) {
    // Never a silent fall back to another guest: two tests on one guest would make one of them
    // boot its own, and the tier would run slowly for a reason nobody sees.
    std::fprintf(stderr,
                 "CTEST_RESOURCE_GROUP_0_GUESTS='%s' names no guest (expected id:NAME,...)\n",
                 allocation);
    std::exit(2);
  }
  id.remove_prefix(kIdPrefix.size());
  id = id.substr(0, id.find(','));
  const char* kernel = std::getenv("IOTAP_GUEST_KERNEL");
  const bool second_kernel = kernel != nullptr && std::string_view(SECOND_GUEST_KERNEL) == kernel &&
                             !std::string_view(SECOND_GUEST_KERNEL).empty();
  const std::string dir =
      std::string(second_kernel ? SECOND_TEST_GUESTS_DIR : TEST_GUESTS_DIR) + "/" + std::string(id);
  ::setenv("IOTAP_GUEST", dir.c_str(), 1);
}

// Runs while the binary loads, ahead of gtest's main and every test.
const bool kGuestChosen = (use_allocated_guest(), true);

}  // namespace
