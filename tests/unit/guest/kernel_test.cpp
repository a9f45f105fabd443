#include "kernel.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/config.h"
#include "iotap/util/error.h"

namespace iotap::guest {
namespace {

TEST(GuestKernel, ModuleLoadOrderPutsDependenciesFirst) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  const auto order = kernel.module_load_order({"raid0", "dm_delay"});
  std::vector<std::string> names;
  for (const auto& path : order) {
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    names.push_back(std::filesystem::path(path).filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"md-mod.ko", "raid0.ko", "dm-mod.ko", "dm-delay.ko"}));
}

TEST(GuestKernel, UnknownModuleAndReleaseAreUserErrors) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  EXPECT_THROW((void)kernel.module_load_order({"no_such_module"}), UserError);
  EXPECT_THROW(GuestKernel::find("0.0.0-none"), UserError);
}

// A build configured without a guest kernel (IOTAP_GUEST_KERNEL=none) has an empty release:
// --target vm refuses at once, saying what to install.
TEST(GuestKernel, NoneConfiguredIsAUserErrorSayingWhatToInstall) {
  try {
    (void)GuestKernel::find("");
    FAIL() << "an empty release was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("configured without a guest kernel"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("install linux-image-cloud-amd64"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace iotap::guest
