#pragma once
// The host ends of the guest's serial ports. A guest booted for one run connects each port's
// chardev to a unix socket that iotap listens on in its private temp directory (listen); a
// guest kept for many runs (`iotap guest start`) has qemu listen, and each run connects
// (connect).
#include <sys/types.h>

#include <string>
#include <string_view>

namespace iotap::guest {

class GuestPort {
 public:
  // Listens at `path` (removed again with the port); the connection comes from qemu.
  static GuestPort listen(const std::string& path);
  // Connects to qemu's socket at `path`; throws std::system_error when nothing listens there.
  static GuestPort connect(const std::string& path);
  ~GuestPort();
  GuestPort(const GuestPort&) = delete;
  GuestPort& operator=(const GuestPort&) = delete;
  GuestPort(GuestPort&& other) noexcept;
  GuestPort& operator=(GuestPort&&) = delete;

  // -1 once connected, or for a port that connected.
  [[nodiscard]] int listen_fd() const { return listen_fd_; }
  [[nodiscard]] int connection_fd() const { return connection_fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Accepts qemu's connection once the listening socket is readable.
  void accept_connection();
  // Writes what the connection takes now, as write(2) does; a guest gone (qemu closed its end)
  // is -1 with EPIPE, never a SIGPIPE that would end iotap without a word.
  [[nodiscard]] ssize_t send(std::string_view bytes) const;
  void close_connection();

 private:
  explicit GuestPort(std::string path) : path_(std::move(path)) {}

  std::string path_;
  int listen_fd_ = -1;
  int connection_fd_ = -1;
  bool owns_path_ = false;  // a listening port's socket file is its own to remove
};

}  // namespace iotap::guest
