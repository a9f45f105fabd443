// The guest kernel's module files stap's -d gets in a --target vm run (guest/guest_modules.h):
// a name is the guest kernel's module, its -dbg copy when there is one; --all-modules is what the
// guest has loaded, not this host's /proc/modules.
#include "iotap/guest/guest_modules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "iotap/config.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

const std::string kRelease = config::kGuestKernel;

std::vector<std::string> file_names(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const auto& path : paths) names.push_back(fs::path(path).filename().string());
  return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::ranges::find(names, name) != names.end();
}

TEST(GuestModules, ANameIsTheGuestKernelsModule) {
  TempDir no_debuginfo{"iotap-guest-modules-test"};
  const std::string ko = guest_module_file(kRelease, "md_mod", no_debuginfo.path());
  EXPECT_EQ(ko, "/lib/modules/" + kRelease + "/kernel/drivers/md/md-mod.ko");
  EXPECT_TRUE(fs::is_regular_file(ko)) << ko;
  EXPECT_EQ(guest_module_file(kRelease, "md-mod", no_debuginfo.path()), ko);
}

// The -dbg package's copy has the unwind data (.debug_frame) the stripped .ko lacks.
TEST(GuestModules, TheDebugCopyWhenThereIsOne) {
  TempDir debug{"iotap-guest-modules-test"};
  const std::string copy = debug / ("lib/modules/" + kRelease + "/kernel/drivers/md/raid0.ko");
  fs::create_directories(fs::path(copy).parent_path());
  write_file(copy, "debuginfo");
  EXPECT_EQ(guest_module_file(kRelease, "raid0", debug.path()), copy);
  // A module the copy lacks: its .ko.
  EXPECT_EQ(guest_module_file(kRelease, "raid1", debug.path()),
            "/lib/modules/" + kRelease + "/kernel/drivers/md/raid1.ko");
}

TEST(GuestModules, AModuleTheKernelLacksIsAUserError) {
  EXPECT_THROW((void)guest_module_file(kRelease, "nosuchmodule"), UserError);
}

// What the guest has loaded when the module runs: its virtio-serial channels always, and the
// stack's md and dm modules (with what they depend on), never this host's modules.
TEST(GuestModules, LoadedModulesAreTheChannelsAndTheStacks) {
  TempDir no_debuginfo{"iotap-guest-modules-test"};
  const auto bare =
      file_names(guest_loaded_module_files(kRelease, std::nullopt, no_debuginfo.path()));
  EXPECT_TRUE(contains(bare, "virtio_console.ko")) << ::testing::PrintToString(bare);
  EXPECT_FALSE(contains(bare, "raid0.ko"));

  const stack_spec::StackPlan plan =
      stack_spec::plan_stack(stack_spec::parse_stack_spec("raid0(ram*2, delay(ram, 5ms))"));
  const auto stacked = file_names(guest_loaded_module_files(kRelease, plan, no_debuginfo.path()));
  for (const char* module :
       {"virtio_console.ko", "brd.ko", "md-mod.ko", "raid0.ko", "dm-mod.ko", "dm-delay.ko"})
    EXPECT_TRUE(contains(stacked, module)) << module << " in " << ::testing::PrintToString(stacked);
  EXPECT_FALSE(contains(stacked, "raid1.ko"));
  // Dependencies first, each once.
  const auto at = [&](const char* name) {
    return std::ranges::find(stacked, name) - stacked.begin();
  };
  EXPECT_LT(at("md-mod.ko"), at("raid0.ko"));
  EXPECT_LT(at("dm-mod.ko"), at("dm-delay.ko"));
  EXPECT_EQ(std::ranges::count(stacked, "md-mod.ko"), 1);
}

}  // namespace
}  // namespace iotap::guest
