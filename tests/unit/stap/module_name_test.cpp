// Each run's module under a name of its own (stap/module_name.h): the copy differs from the
// compiled module in the name field of its this_module section and nowhere else, so that the
// kernel registers it, and SystemTap's runtime names its channels, by the new name.
#include "iotap/stap/module_name.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "iotap/stap/module_info.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

const std::string kCompiledName = "iotap_0123456789abcdef_01234567";

// The offsets where `a` and `b` (of one size) differ.
std::vector<size_t> differences(const std::string& a, const std::string& b) {
  std::vector<size_t> at;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) at.push_back(i);
  return at;
}

TEST(ModuleName, EachRunsNameIsIotapsAndItsOwn) {
  std::set<std::string> names;
  for (int i = 0; i < 100; ++i) {
    const std::string name = run_module_name();
    EXPECT_EQ(name.size(), 18U) << name;
    EXPECT_TRUE(name.starts_with("iotap_")) << name;
    EXPECT_EQ(name.find_first_not_of("0123456789abcdef", 6), std::string::npos) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 100U);
}

TEST(ModuleName, ARunsModuleIsKnownByItsNameInProcModules) {
  EXPECT_TRUE(is_run_module_name(run_module_name()));
  EXPECT_TRUE(is_run_module_name("iotap_0123456789ab"));
  EXPECT_FALSE(is_run_module_name("iotap_0123456789a"));
  EXPECT_FALSE(is_run_module_name("iotap_0123456789abc"));
  EXPECT_FALSE(is_run_module_name("iotap_0123456789AB"));
  EXPECT_FALSE(is_run_module_name(kCompiledName));  // the cache's file, not a run's copy
  EXPECT_FALSE(is_run_module_name("iotap_floor"));  // bench/overhead's floor
  EXPECT_FALSE(is_run_module_name("stap_0123456789"));

  // /proc/modules as a 6.1 kernel writes it (addresses hidden from non-root).
  const auto modules = loaded_run_modules(
      "iotap_0123456789ab 487424 1 - Live 0x0000000000000000\n"
      "dm_delay 20480 1 - Live 0x0000000000000000\n"
      "iotap_floor 106496 0 - Live 0x0000000000000000\n"
      "brd 16384 0 - Live 0x0000000000000000\n"
      "iotap_ba9876543210 487424 0 - Loading 0x0000000000000000 (OE)\n"
      "iotap_ffffffffffff\n");
  ASSERT_EQ(modules.size(), 2U);
  EXPECT_EQ(modules[0].name, "iotap_0123456789ab");
  EXPECT_EQ(modules[0].users, 1U);
  EXPECT_EQ(modules[1].name, "iotap_ba9876543210");
  EXPECT_EQ(modules[1].users, 0U);
  EXPECT_TRUE(loaded_run_modules("").empty());
}

TEST(ModuleName, TheCopyDiffersInTheNameFieldAlone) {
  const TempDir dir("iotap-module-name-test");
  const std::string original = read_file(FAKE_MODULE);
  // Shorter and longer than the compiled name: the field is the kernel's 56 bytes either way.
  for (const std::string name : {"iotap_3f9a0c12d4e5", "iotap_a_name_of_forty_characters_and_mo"}) {
    const std::string copy_path = copy_module_named(FAKE_MODULE, name, dir.path());
    EXPECT_EQ(copy_path, dir / (name + ".ko"));
    const std::string copy = read_file(copy_path);
    ASSERT_EQ(copy.size(), original.size());
    const std::vector<size_t> changed = differences(original, copy);
    ASSERT_FALSE(changed.empty());
    // Within one 56-byte field, which now holds the name and NULs to its end.
    EXPECT_LT(changed.back() - changed.front(), 56U);
    const size_t field = original.find(kCompiledName + '\0' + std::string(24, '\0'));
    ASSERT_NE(field, std::string::npos);
    EXPECT_GE(changed.front(), field);
    EXPECT_EQ(copy.substr(field, 56), name + std::string(56 - name.size(), '\0'));
    // .modinfo keeps the compiled name: the kernel registers the module by this_module's.
    EXPECT_EQ(read_module_info(copy_path).name, kCompiledName);
  }
}

TEST(ModuleName, ANameTheKernelWouldRefuseOrAFileWithoutTheFieldIsSaid) {
  const TempDir dir("iotap-module-name-test");
  const auto refusal = [&](const std::string& module, const std::string& name) -> std::string {
    try {
      copy_module_named(module, name, dir.path());
    } catch (const UserError& error) {
      return error.what();
    }
    return "(copied)";
  };
  EXPECT_NE(
      refusal(FAKE_MODULE, "iotap_" + std::string(50, 'a')).find("cannot name a kernel module"),
      std::string::npos);
  EXPECT_NE(refusal(FAKE_MODULE, "iotap-1").find("cannot name a kernel module"), std::string::npos);
  EXPECT_NE(refusal(TEST_PROGRAM, "iotap_1").find("is not a kernel module"), std::string::npos);
  EXPECT_TRUE(files_under(dir.path()).empty()) << "a refused copy leaves no file";
}

}  // namespace
}  // namespace iotap::stap
