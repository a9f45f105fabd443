#include "device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "error.h"

namespace block_hasher {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

void check_type(const std::string& path, mode_t mode) {
  if (!S_ISBLK(mode) && !S_ISREG(mode)) {
    throw UsageError(path + " is " + kind_of(mode) + ", not a block device or regular file",
                     "give a block device such as /dev/md0, or a regular file");
  }
}

[[noreturn]] void throw_open_error(const std::string& path, int error, bool direct) {
  const std::string what = "cannot open " + path + ": " + std::strerror(error);
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      throw UsageError(what, "check the device path");
    case EACCES:
    case EPERM:
      throw UsageError(what, "run as root or make the device readable by this user");
    case EINVAL:
      if (direct) {
        throw UsageError("cannot open " + path + " with O_DIRECT: " + std::strerror(error),
                         "this filesystem refuses O_DIRECT (tmpfs does); drop --direct or use "
                         "a file on another filesystem");
      }
      break;
    default:
      break;
  }
  throw UsageError(what, "check the device path and that it can be read");
}

}  // namespace

Device Device::open(const std::string& path, bool direct) {
  // stat first: opening a FIFO for reading would block until a writer appears, so the type
  // is checked before open, and again on the descriptor in case the path changed in between.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_open_error(path, errno, direct);
  check_type(path, st.st_mode);

  const int flags = O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0);
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw_open_error(path, errno, direct);
  Device device(fd, 0, false);

  if (::fstat(fd, &st) != 0) {
    throw UsageError("cannot stat " + path + ": " + std::strerror(errno), "check the device path");
  }
  check_type(path, st.st_mode);
  device.is_block_device_ = S_ISBLK(st.st_mode);
  if (device.is_block_device_) {
    // st_size of a block device node is 0; the kernel knows the real size.
    std::uint64_t bytes = 0;
    if (::ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
      throw UsageError("cannot get the size of " + path + ": " + std::strerror(errno),
                       "check that the block device is usable, e.g. with blockdev --getsize64");
    }
    device.size_bytes_ = bytes;
  } else {
    device.size_bytes_ = static_cast<std::uint64_t>(st.st_size);
  }
  return device;
}

Device::~Device() {
  if (fd_ >= 0) ::close(fd_);
}

Device::Device(Device&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_bytes_(other.size_bytes_),
      is_block_device_(other.is_block_device_) {}

Device& Device::operator=(Device&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_bytes_ = other.size_bytes_;
    is_block_device_ = other.is_block_device_;
  }
  return *this;
}

std::uint64_t plan_blocks(std::uint64_t requested, std::uint64_t block_size,
                          std::uint64_t device_bytes, const std::string& device) {
  if (device_bytes == 0) {
    throw UsageError(device + " is empty", "give a device or file with data in it");
  }
  const std::uint64_t available = device_bytes / block_size;
  if (available == 0) {
    throw UsageError(device + " holds " + std::to_string(device_bytes) +
                         " bytes, less than one block of " + std::to_string(block_size),
                     "use -b " + std::to_string(device_bytes) + " or less");
  }
  if (requested == 0) return available;
  if (requested > available) {
    throw UsageError("-n " + std::to_string(requested) + " asks for more blocks than " + device +
                         " holds (" + std::to_string(available) + " blocks of " +
                         std::to_string(block_size) + " bytes)",
                     "use -n " + std::to_string(available) + " or less, or leave -n out");
  }
  return requested;
}

}  // namespace block_hasher
