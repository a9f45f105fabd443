#include "iotap/util/file_lock.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "iotap/util/error.h"
#include "iotap/util/stop_signal.h"

namespace iotap {

FileLock::FileLock(const std::string& path, const std::function<void()>& on_wait,
                   const std::string& while_doing)
    : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
  if (fd_ < 0) throw UserError("cannot make the lock file '" + path + "': " + std::strerror(errno));
  bool told = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      ::close(fd_);
      throw UserError("cannot lock '" + path + "': " + std::strerror(err));
    }
    if (!told && on_wait) on_wait();
    told = true;
    // flock has no timeout and a stop must not wait for the holder: look again every 100 ms,
    // or at once when a stop signal comes.
    pollfd stop{stop_fd(), POLLIN, 0};
    ::poll(&stop, 1, 100);
    if (stop_signal() != 0) {
      ::close(fd_);
      throw_if_stopped(while_doing);
    }
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // the lock goes with the descriptor
}

}  // namespace iotap
