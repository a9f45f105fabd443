#include "vm/guest_channels.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "iotap/util/error.h"

namespace iotap::vm {

ListeningSocket::ListeningSocket(const std::string& path) : path_(path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) {
    throw UserError("socket path '" + path + "' is too long (set TMPDIR to a shorter directory)");
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 1) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    throw std::system_error(err, std::generic_category(), "bind/listen " + path);
  }
}

ListeningSocket::~ListeningSocket() {
  close_connection();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::unlink(path_.c_str());
}

void ListeningSocket::accept_connection() {
  connection_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (connection_fd_ < 0)
    throw std::system_error(errno, std::generic_category(), "accept " + path_);
  ::close(listen_fd_);
  listen_fd_ = -1;
}

void ListeningSocket::close_connection() {
  if (connection_fd_ >= 0) ::close(connection_fd_);
  connection_fd_ = -1;
}

}  // namespace iotap::vm
