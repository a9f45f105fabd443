// What stap compiles against for the guest, and where those trees live: one place per machine
// (stap's directory), since stap keys its cache by the tree's path.
#include "iotap/runner/kernel_tree.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "iotap/config.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/util/temp_dir.h"

namespace iotap::runner {
namespace {

namespace fs = std::filesystem;

// A kallsyms text as the guest gives it: vmlinux's symbols, one module's.
constexpr const char* kKallsyms =
    "ffffffffa9e00000 T _stext\n"
    "ffffffffa9e10fe8 T __schedule\n"
    "ffffffffc0a01000 t raid0_make_request\t[raid0]\n";

TEST(GuestCompileKernel, TracepointsAndUsdtNeedNoTreeWithoutDebuginfo) {
  TempDir trees("iotap-kernel-tree-test");
  bool read = false;
  const std::string kernel = guest_compile_kernel(
      "0.0.0-none", false,
      [&read] {
        read = true;
        return std::string(kKallsyms);
      },
      trees.path());
  EXPECT_EQ(kernel, "0.0.0-none");
  EXPECT_FALSE(read) << "no guest boot for a script that needs no symbol table";
}

TEST(GuestCompileKernel, ASymbolTableMakesATreeUnderTheTreesDirectoryOnce) {
  TempDir trees("iotap-kernel-tree-test");
  int reads = 0;
  const auto kallsyms = [&reads] {
    ++reads;
    return std::string(kKallsyms);
  };
  const std::string kernel =
      guest_compile_kernel(config::kGuestKernel, true, kallsyms, trees.path());
  EXPECT_EQ(fs::path(kernel).parent_path(), fs::path(trees.path()));
  EXPECT_TRUE(fs::exists(fs::path(kernel) / "System.map"));
  EXPECT_TRUE(fs::exists(fs::path(kernel) / "Makefile")) << "the headers' entries are linked in";
  EXPECT_EQ(guest_compile_kernel(config::kGuestKernel, true, kallsyms, trees.path()), kernel);
  // Made once: from the guest's kallsyms (one read), or from the -dbg package (none).
  EXPECT_EQ(reads, find_kernel_debuginfo(config::kGuestKernel) ? 0 : 1);
}

TEST(GuestKernelTreesDir, BesideStapsCache) {
  const char* old = std::getenv("SYSTEMTAP_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("SYSTEMTAP_DIR", "/somewhere/stap", 1);
  EXPECT_EQ(guest_kernel_trees_dir(), "/somewhere/stap/iotap-kernel");
  if (old != nullptr) {
    ::setenv("SYSTEMTAP_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("SYSTEMTAP_DIR");
  }
}

TEST(KernelTree, SystemMapKeepsVmlinuxLinesOnly) {
  const std::string map = system_map_from_kallsyms(
      "ffffffffa9000000 T _stext\nffffffffa9e10fe8 T __schedule\n"
      "ffffffffc038c3d0 t raid0_map_submit_bio\t[raid0]\n"
      "raid0 24576 1 - Live 0xffffffffc038c000\n");
  EXPECT_EQ(map, "ffffffffa9000000 T _stext\nffffffffa9e10fe8 T __schedule\n");
}

}  // namespace
}  // namespace iotap::runner
