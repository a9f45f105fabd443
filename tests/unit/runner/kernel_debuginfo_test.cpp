// Finding a kernel's -dbg package files (runner/kernel_debuginfo.h) under a debug root.
#include "iotap/runner/kernel_debuginfo.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::runner {
namespace {

namespace fs = std::filesystem;

TEST(KernelDebuginfoTest, FoundWhenVmlinuxAndSystemMapAreThere) {
  const TempDir root("iotap-debuginfo-test");
  fs::create_directories(root.path() + "/boot");
  fs::create_directories(root.path() + "/lib/modules/6.1.0-9-cloud-amd64/kernel/drivers/md");
  write_file(root.path() + "/boot/vmlinux-6.1.0-9-cloud-amd64", "ELF");
  write_file(root.path() + "/boot/System.map-6.1.0-9-cloud-amd64", "ffffffff81000000 T _stext\n");

  const auto found = find_kernel_debuginfo("6.1.0-9-cloud-amd64", root.path());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->vmlinux, root.path() + "/boot/vmlinux-6.1.0-9-cloud-amd64");
  EXPECT_EQ(found->system_map, root.path() + "/boot/System.map-6.1.0-9-cloud-amd64");
  EXPECT_EQ(found->modules, root.path() + "/lib/modules/6.1.0-9-cloud-amd64/kernel");

  EXPECT_FALSE(find_kernel_debuginfo("6.1.0-8-cloud-amd64", root.path()).has_value())
      << "another release's package";
}

TEST(KernelDebuginfoTest, NotFoundWithoutVmlinuxOrSystemMap) {
  const TempDir root("iotap-debuginfo-test");
  fs::create_directories(root.path() + "/boot");
  write_file(root.path() + "/boot/System.map-6.1.0-9-cloud-amd64", "ffffffff81000000 T _stext\n");
  EXPECT_FALSE(find_kernel_debuginfo("6.1.0-9-cloud-amd64", root.path()).has_value());
  write_file(root.path() + "/boot/vmlinux-6.1.0-9-cloud-amd64", "ELF");
  const auto found = find_kernel_debuginfo("6.1.0-9-cloud-amd64", root.path());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->modules, "") << "no module debuginfo directory";
}

TEST(KernelDebuginfoTest, InstallHintNamesDebiansPackage) {
  EXPECT_EQ(debuginfo_package("6.1.0-9-cloud-amd64"), "linux-image-6.1.0-9-cloud-amd64-dbg");
  EXPECT_TRUE(debuginfo_install_hint("6.1.0-9-cloud-amd64")
                  .starts_with("apt-get install linux-image-6.1.0-9-cloud-amd64-dbg"));
}

}  // namespace
}  // namespace iotap::runner
