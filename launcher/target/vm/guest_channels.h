#pragma once
// The host ends of the guest's serial ports: qemu connects each port's chardev to a unix
// socket that iotap listens on in its private temp directory.
#include <string>

namespace iotap::vm {

class ListeningSocket {
 public:
  explicit ListeningSocket(const std::string& path);
  ~ListeningSocket();
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;
  ListeningSocket(ListeningSocket&&) = delete;
  ListeningSocket& operator=(ListeningSocket&&) = delete;

  [[nodiscard]] int listen_fd() const { return listen_fd_; }
  [[nodiscard]] int connection_fd() const { return connection_fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Accepts qemu's connection once the listening socket is readable.
  void accept_connection();
  void close_connection();

 private:
  std::string path_;
  int listen_fd_ = -1;
  int connection_fd_ = -1;
};

}  // namespace iotap::vm
