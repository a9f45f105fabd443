#include "iotap/guest/elf_dependencies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

bool has_library(const std::vector<std::string>& paths, const std::string& soname) {
  return std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
    return std::filesystem::path(p).filename() == soname;
  });
}

TEST(ElfDependencies, BlockHasherNeedsLibcryptoAndTheLoader) {
  const auto deps = runtime_dependencies(BLOCK_HASHER_PATH);
  EXPECT_TRUE(has_library(deps, "libcrypto.so.3"));
  EXPECT_TRUE(has_library(deps, "libc.so.6"));
  EXPECT_TRUE(has_library(deps, "ld-linux-x86-64.so.2"));
  // Transitive: libcrypto itself needs libz? Not on Debian 12; libstdc++ needs libm.
  EXPECT_TRUE(has_library(deps, "libm.so.6"));
  for (const auto& path : deps) EXPECT_TRUE(std::filesystem::exists(path)) << path;
}

TEST(ElfDependencies, ScriptsBringTheirInterpreter) {
  TempDir dir;
  write_file(dir / "script", "#!/bin/sh -e\necho hi\n", 0755);
  const auto deps = runtime_dependencies(dir / "script");
  ASSERT_FALSE(deps.empty());
  EXPECT_EQ(deps[0], "/bin/sh");
}

TEST(ElfDependencies, MissingFileIsAUserError) {
  EXPECT_THROW(runtime_dependencies("/nonexistent/program"), UserError);
}

}  // namespace
}  // namespace iotap::guest
