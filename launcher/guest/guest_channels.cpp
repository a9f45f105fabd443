#include "guest_channels.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "iotap/util/error.h"

namespace iotap::guest {
namespace {

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) {
    throw UserError("socket path '" + path + "' is too long (set TMPDIR to a shorter directory)");
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

}  // namespace

GuestPort GuestPort::listen(const std::string& path) {
  GuestPort port(path);
  const sockaddr_un address = socket_address(path);
  port.listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (port.listen_fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  if (::bind(port.listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(port.listen_fd_, 1) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind/listen " + path);
  }
  port.owns_path_ = true;
  return port;
}

GuestPort GuestPort::connect(const std::string& path) {
  GuestPort port(path);
  const sockaddr_un address = socket_address(path);
  port.connection_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (port.connection_fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  if (::connect(port.connection_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) !=
      0) {
    throw std::system_error(errno, std::generic_category(), "connect " + path);
  }
  return port;
}

GuestPort::GuestPort(GuestPort&& other) noexcept
    : path_(std::move(other.path_)),
      listen_fd_(std::exchange(other.listen_fd_, -1)),
      connection_fd_(std::exchange(other.connection_fd_, -1)),
      owns_path_(std::exchange(other.owns_path_, false)) {}

GuestPort::~GuestPort() {
  close_connection();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (owns_path_) ::unlink(path_.c_str());
}

void GuestPort::accept_connection() {
  connection_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (connection_fd_ < 0)
    throw std::system_error(errno, std::generic_category(), "accept " + path_);
  ::close(listen_fd_);
  listen_fd_ = -1;
}

ssize_t GuestPort::send(std::string_view bytes) const {
  return ::send(connection_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
}

void GuestPort::close_connection() {
  if (connection_fd_ >= 0) ::close(connection_fd_);
  connection_fd_ = -1;
}

}  // namespace iotap::guest
