// issue 27: the files a user names as inputs (an attribution, a recording) are read only when
// they are regular files no larger than iotap holds in memory: /dev/zero was read until memory ran
// out, a FIFO blocked the open for ever. Neither is opened now.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "iotap/recording/recording.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20U;

std::string refusal(const std::string& path, uint64_t max_bytes = 256 * kMiB) {
  try {
    (void)read_input_file(path, "an attribution", max_bytes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, ARegularFileIsReadWhole) {
  const TempDir dir("iotap-input-test");
  std::ofstream(dir / "a.json") << "{\"schema\": 1}\n";
  EXPECT_EQ(read_input_file(dir / "a.json", "an attribution", 64), "{\"schema\": 1}\n");
}

TEST(InputFile, ALargerFileThanTheLimitIsRefusedBeforeItIsRead) {
  const TempDir dir("iotap-input-test");
  const std::string path = dir / "huge.json";
  // Sparse: 300 MiB that take no disk.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(300 * kMiB)), 0);
  ::close(fd);
  EXPECT_EQ(refusal(path),
            path + " is 300 MiB: more than iotap reads as an attribution (at most 256 MiB)");
  EXPECT_EQ(refusal(path, 300 * kMiB + 1), "");
}

TEST(InputFile, SpecialFilesAreRefusedWithoutBeingOpened) {
  const TempDir dir("iotap-input-test");
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(refusal(fifo),
            fifo + " is a FIFO (named pipe), not an attribution (name a file on disk)");
  EXPECT_EQ(refusal("/dev/zero"),
            "/dev/zero is a character device, not an attribution (name a file on disk)");
  EXPECT_EQ(refusal(dir.path()),
            dir.path() + " is a directory, not an attribution (name a file on disk)");
  EXPECT_EQ(refusal(dir / "none"),
            "cannot read '" + (dir / "none") + "': No such file or directory");
}

// The recording library's own reader (io_replayer's too) makes the same checks.
TEST(InputFile, TheRecordingReaderRefusesSpecialFilesToo) {
  const TempDir dir("iotap-input-test");
  const std::string fifo = dir / "fifo.rec";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto refused = [](const std::string& path) -> std::string {
    try {
      (void)recording::read(path);
    } catch (const recording::FormatError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refused(fifo), fifo + " is a FIFO (named pipe), not a recording");
  EXPECT_EQ(refused("/dev/zero"), "/dev/zero is a character device, not a recording");
}

}  // namespace
}  // namespace iotap
