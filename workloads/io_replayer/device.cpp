#include "device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "error.h"

namespace io_replayer {

namespace {

Fd open_or_throw(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    std::string why = std::strerror(err);
    if (err == EINVAL && (flags & O_DIRECT) != 0)
      why += " (its file system does not take O_DIRECT; the recording's requests had it)";
    throw Error("cannot open " + path + ": " + why);
  }
  return Fd(fd);
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

int Device::fd(bool direct) const {
  if (direct && direct_fd_.get() >= 0) return direct_fd_.get();
  return buffered_fd_.get() >= 0 ? buffered_fd_.get() : direct_fd_.get();
}

Device::Device(const std::string& path, bool direct, bool buffered, bool writes) : path_(path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error("cannot open " + path + ": " + std::strerror(errno));
  if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
    throw Error(path + " is neither a block device nor a regular file");
  const int mode = writes ? O_RDWR : O_RDONLY;
  if (direct) direct_fd_ = open_or_throw(path, mode | O_DIRECT);
  if (buffered || !direct) buffered_fd_ = open_or_throw(path, mode);
  if (S_ISBLK(st.st_mode)) {
    if (::ioctl(fd(false), BLKGETSIZE64, &size_) != 0)
      throw Error("cannot read the size of " + path + ": " + std::strerror(errno));
  } else {
    size_ = static_cast<uint64_t>(st.st_size);
  }
  if (size_ == 0) throw Error(path + " is empty: nothing to replay on");
}

}  // namespace io_replayer
