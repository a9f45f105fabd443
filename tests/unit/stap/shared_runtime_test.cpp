// The runtime stap is pointed at has one path per content, so that stap's cache (keyed by the
// runtime's path) is shared by every build, clone and install of the same iotap.
#include "iotap/stap/shared_runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

// A runtime of two files, one in a subdirectory, at `dir`.
void make_runtime(const std::string& dir, const std::string& flavour) {
  fs::create_directories(dir + "/transport");
  write_file(dir + "/runtime.h", "/* runtime " + flavour + " */\n");
  write_file(dir + "/transport/relay_v2.c", "/* relay */\n");
}

class SharedRuntimeTest : public ::testing::Test {
 protected:
  TempDir tmp_{"iotap-shared-runtime-test"};
  std::string build_ = tmp_ / "build/stap-runtime";
  std::string install_ = tmp_ / "prefix/share/iotap/stap-runtime";
  std::string state_ = tmp_ / "home/.systemtap";
};

TEST_F(SharedRuntimeTest, TwoCopiesOfOneRuntimeShareOnePathUnderStapsDirectory) {
  make_runtime(build_, "a");
  make_runtime(install_, "a");
  const std::string from_build = shared_runtime_dir(build_, state_);
  const std::string from_install = shared_runtime_dir(install_, state_);
  EXPECT_EQ(from_build, from_install);
  EXPECT_EQ(from_build, state_ + "/iotap-runtime/" + runtime_content_id(build_));
  EXPECT_EQ(runtime_content_id(build_).size(), 64U);
  EXPECT_EQ(read_file(from_build + "/runtime.h"), "/* runtime a */\n");
  EXPECT_EQ(read_file(from_build + "/transport/relay_v2.c"), "/* relay */\n");
  // Nothing else is left beside it: no partial copy.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(state_ + "/iotap-runtime"))
    ++entries;
  EXPECT_EQ(entries, 1);
}

// stap's cache key holds the runtime directory's size and time ("Runtime Timestamp" in its
// hash logs): a copy touched on each use would make every compile a miss.
TEST_F(SharedRuntimeTest, UsingTheCopyChangesNothingInItNotEvenItsTimes) {
  make_runtime(build_, "a");
  const std::string shared = shared_runtime_dir(build_, state_);
  const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(shared, long_ago);
  fs::last_write_time(shared + "/transport", long_ago);
  EXPECT_EQ(shared_runtime_dir(build_, state_), shared);
  EXPECT_EQ(fs::last_write_time(shared), long_ago);
  EXPECT_EQ(fs::last_write_time(shared + "/transport"), long_ago);
}

TEST_F(SharedRuntimeTest, AnotherRuntimeGetsAnotherPath) {
  make_runtime(build_, "a");
  make_runtime(install_, "b");
  EXPECT_NE(runtime_content_id(build_), runtime_content_id(install_));
  EXPECT_NE(shared_runtime_dir(build_, state_), shared_runtime_dir(install_, state_));
}

TEST_F(SharedRuntimeTest, AFileRenamedIsAnotherRuntime) {
  make_runtime(build_, "a");
  make_runtime(install_, "a");
  fs::rename(install_ + "/runtime.h", install_ + "/runtime2.h");
  EXPECT_NE(runtime_content_id(build_), runtime_content_id(install_));
}

TEST_F(SharedRuntimeTest, AWholeCopyIsUsedAsItIsAndADirectoryWithoutTheMarkIsNot) {
  make_runtime(build_, "a");
  const std::string shared = shared_runtime_dir(build_, state_);
  // A later run takes the copy as it is (it does not copy again)...
  write_file(shared + "/left-by-the-first-run", "");
  EXPECT_EQ(shared_runtime_dir(build_, state_), shared);
  EXPECT_TRUE(fs::exists(shared + "/left-by-the-first-run"));
  // ...but a directory there without the completion mark (copies are made under another name
  // and renamed with the mark inside, so not one of iotap's) is not taken: the build's own
  // runtime is used instead, and a whole copy once it is gone.
  fs::remove_all(shared);
  fs::create_directories(shared);
  write_file(shared + "/runtime.h", "/* trunc");
  const std::string again = shared_runtime_dir(build_, state_);
  EXPECT_EQ(again, build_) << "a directory in the way: the build's own runtime is used";
  fs::remove_all(shared);
  EXPECT_EQ(shared_runtime_dir(build_, state_), shared);
  EXPECT_EQ(read_file(shared + "/runtime.h"), "/* runtime a */\n");
}

TEST_F(SharedRuntimeTest, WithoutAWritableStapDirectoryTheRuntimeStaysWhereItIs) {
  make_runtime(build_, "a");
  EXPECT_EQ(shared_runtime_dir(build_, ""), build_);
  // A file where stap's directory should be: no directory can be made under it, even by root.
  fs::create_directories(fs::path(state_).parent_path());
  write_file(state_, "");
  EXPECT_EQ(shared_runtime_dir(build_, state_), build_);
}

TEST_F(SharedRuntimeTest, OnlyTheFourRuntimesMadeLastAreKept) {
  std::string first;
  for (int version = 0; version < 6; ++version) {
    const std::string runtime = tmp_ / ("runtime" + std::to_string(version));
    make_runtime(runtime, std::to_string(version));
    const std::string shared = shared_runtime_dir(runtime, state_);
    if (version == 0) first = shared;
    // Distinct times, oldest first, whatever the file system's clock granularity.
    fs::last_write_time(shared,
                        fs::file_time_type::clock::now() + std::chrono::seconds(version - 10));
  }
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(state_ + "/iotap-runtime"))
    ++entries;
  EXPECT_EQ(entries, 4);
  EXPECT_FALSE(fs::exists(first));
}

TEST(StapsOwnRuntime, TheSystemsRuntimeHasAnId) {
  EXPECT_EQ(runtime_content_id(SYSTEM_STAP_RUNTIME_DIR).size(), 64U);
  EXPECT_EQ(runtime_content_id("/nonexistent/runtime"), "");
}

}  // namespace
}  // namespace iotap::stap
