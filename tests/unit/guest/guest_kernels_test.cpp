// Which kernel --guest-kernel names (guest/guest_kernels.h): a release, or a prefix that ends
// where a version component does, among the kernels installed; and what each installed kernel
// has, on a made-up /boot and /lib/modules.
#include "iotap/guest/guest_kernels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kInstalled{"6.12.117+deb12-cloud-amd64", "6.12.9+deb12-cloud-amd64",
                                          "6.1.0-56-cloud-amd64"};

std::string refusal(const std::string& wanted, const std::vector<std::string>& releases) {
  try {
    return "named " + match_guest_kernel(wanted, releases);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

TEST(GuestKernelName, AReleaseOrAPrefixEndingAtAComponentNamesOne) {
  EXPECT_EQ(match_guest_kernel("6.1", kInstalled), "6.1.0-56-cloud-amd64") << "6.1 is not 6.12";
  EXPECT_EQ(match_guest_kernel("6.12.117", kInstalled), "6.12.117+deb12-cloud-amd64");
  EXPECT_EQ(match_guest_kernel("6.12.9+deb12-cloud-amd64", kInstalled), "6.12.9+deb12-cloud-amd64");
  EXPECT_EQ(match_guest_kernel("6.12", {"6.12.117+deb12-cloud-amd64", "6.1.0-56-cloud-amd64"}),
            "6.12.117+deb12-cloud-amd64");
}

TEST(GuestKernelName, NoneOrSeveralIsRefusedListingThem) {
  EXPECT_EQ(refusal("6.12", kInstalled),
            "--guest-kernel 6.12 names 2 kernels (6.12.117+deb12-cloud-amd64, "
            "6.12.9+deb12-cloud-amd64): give more of the release");
  const std::string none = refusal("6.6", kInstalled);
  EXPECT_NE(none.find("--guest-kernel 6.6: no installed kernel is 6.6 (installed: "
                      "6.12.117+deb12-cloud-amd64, 6.12.9+deb12-cloud-amd64, "
                      "6.1.0-56-cloud-amd64)"),
            std::string::npos)
      << none;
  EXPECT_NE(refusal("6.12.11", kInstalled).find("no installed kernel"), std::string::npos)
      << "6.12.11 is not 6.12.117";
}

// A kernel named by the environment is refused in the environment's words: the user typed no
// --guest-kernel.
TEST(GuestKernelName, OneFromTheEnvironmentIsRefusedInItsWords) {
  try {
    match_guest_kernel("5.10", kInstalled, true);
    ADD_FAILURE() << "5.10 named a kernel";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("IOTAP_GUEST_KERNEL=5.10: no installed kernel"))
        << e.what();
  }
}

TEST(InstalledKernels, EachSaysWhatItHasNewestFirst) {
  const TempDir root("iotap-guest-kernels-test");
  const std::string boot = root.path() + "/boot";
  const std::string modules = root.path() + "/modules";
  fs::create_directories(boot);
  // Releases no machine has, so that no real debuginfo is found for them.
  const std::vector<std::string> installed{"6.12.917+test-cloud-amd64", "6.12.9+test-cloud-amd64",
                                           "6.1.0-956-test"};
  for (const std::string& release : installed) {
    write_file(boot + "/vmlinuz-" + release, "image");
    fs::create_directories(modules + "/" + release);
    write_file(modules + "/" + release + "/modules.dep", "");
  }
  fs::create_directories(modules + "/6.12.9+test-cloud-amd64/build/include");
  fs::create_directories(modules + "/6.1.0-956-test/build/include");
  fs::remove(modules + "/6.1.0-956-test/modules.dep");
  write_file(boot + "/config-6.1.0-956-test", "not an image");

  const std::vector<InstalledKernel> kernels = installed_kernels(boot, modules);
  ASSERT_EQ(kernels.size(), 3U);
  EXPECT_EQ(kernels[0].release, "6.12.917+test-cloud-amd64") << "917 > 9, as numbers";
  EXPECT_EQ(kernels[1].release, "6.12.9+test-cloud-amd64");
  EXPECT_EQ(kernels[2].release, "6.1.0-956-test");
  EXPECT_FALSE(kernels[0].ready());
  EXPECT_EQ(kernels[0].missing_packages(),
            (std::vector<std::string>{"linux-headers-6.12.917+test-cloud-amd64",
                                      "linux-image-6.12.917+test-cloud-amd64-dbg"}));
  EXPECT_TRUE(kernels[1].ready());
  EXPECT_FALSE(kernels[2].ready()) << "its modules are missing";
  EXPECT_EQ(kernels[2].missing_packages().front(), "linux-image-6.1.0-956-test");
}

}  // namespace
}  // namespace iotap::guest
