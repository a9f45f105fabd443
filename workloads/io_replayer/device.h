// The device (or file) replayed on: opened once or twice (O_DIRECT and buffered, as the
// recording needs), read-write only when the recording writes.
#pragma once

#include <cstdint>
#include <string>

namespace io_replayer {

// A file descriptor closed with its owner (also when a constructor throws half-way).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& other) noexcept;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_ = -1;
};

class Device {
 public:
  // Throws Error naming the path and why.
  Device(const std::string& path, bool direct, bool buffered, bool writes);
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // The descriptor for a request with (or without) O_DIRECT; a flush takes either.
  [[nodiscard]] int fd(bool direct) const;
  [[nodiscard]] uint64_t size_bytes() const { return size_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  Fd direct_fd_;
  Fd buffered_fd_;
  uint64_t size_ = 0;
};

}  // namespace io_replayer
