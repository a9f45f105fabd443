#include "target/vm/kernel.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/config.h"
#include "util/error.h"

namespace iotap::vm {
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

}  // namespace
}  // namespace iotap::vm
