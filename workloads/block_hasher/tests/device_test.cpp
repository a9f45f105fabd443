// Opening the device and planning the block count: the checks that must fail before any
// thread starts.
#include "device.h"

#include <gtest/gtest.h>

#include <string>

#include "error.h"
#include "test_files.h"

namespace block_hasher {
namespace {

using block_hasher_test::TempDir;

std::string open_error(const std::string& path, bool direct = false) {
  try {
    Device::open(path, direct);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(BlockHasherDevice, RegularFileSizeComesFromFstat) {
  TempDir dir;
  block_hasher_test::write_file(dir.file("data"), block_hasher_test::pattern(10000));
  const Device device = Device::open(dir.file("data"), false);
  EXPECT_GE(device.fd(), 0);
  EXPECT_EQ(device.size_bytes(), 10000u);
  EXPECT_FALSE(device.is_block_device());
}

TEST(BlockHasherDevice, MissingPathSaysSo) {
  TempDir dir;
  EXPECT_NE(open_error(dir.file("absent")).find("No such file or directory"), std::string::npos);
}

TEST(BlockHasherDevice, DirectoryIsRefused) {
  TempDir dir;
  EXPECT_NE(open_error(dir.path()).find("is a directory, not a block device or regular file"),
            std::string::npos);
}

TEST(BlockHasherDevice, CharacterDeviceIsRefused) {
  EXPECT_NE(open_error("/dev/null").find("is a character device"), std::string::npos);
}

TEST(BlockHasherDevice, MovedDeviceOwnsTheDescriptor) {
  TempDir dir;
  block_hasher_test::write_file(dir.file("data"), block_hasher_test::pattern(512));
  Device first = Device::open(dir.file("data"), false);
  const int fd = first.fd();
  const Device second(std::move(first));
  EXPECT_EQ(second.fd(), fd);
  // The moved-from Device must not close the descriptor the new one owns.
  // NOLINTNEXTLINE(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  EXPECT_EQ(first.fd(), -1);
}

TEST(BlockHasherPlan, DefaultIsAllWholeBlocks) {
  EXPECT_EQ(plan_blocks(0, 65536, 1048576, "d"), 16u);
  EXPECT_EQ(plan_blocks(0, 65536, 1048576 + 100, "d"), 16u);
  EXPECT_EQ(plan_blocks(0, 1000, 999999, "d"), 999u);
}

TEST(BlockHasherPlan, RequestedBlocksWithinTheDevice) {
  EXPECT_EQ(plan_blocks(16, 65536, 1048576, "d"), 16u);
  EXPECT_EQ(plan_blocks(1, 65536, 1048576, "d"), 1u);
}

TEST(BlockHasherPlan, TooManyBlocksIsAnError) {
  try {
    plan_blocks(17, 65536, 1048576, "/dev/x");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("-n 17"), std::string::npos) << error.what();
    EXPECT_NE(error.hint().find("-n 16"), std::string::npos) << error.hint();
  }
}

TEST(BlockHasherPlan, DeviceSmallerThanABlockIsAnError) {
  EXPECT_THROW(plan_blocks(0, 65536, 65535, "d"), UsageError);
  EXPECT_THROW(plan_blocks(0, 512, 0, "d"), UsageError);
}

}  // namespace
}  // namespace block_hasher
