// The device being hashed: a block device (the real use, e.g. /dev/md0) or a regular file
// (what the unit tests use). Anything else is refused before a thread starts, with a message
// that says what the path is instead.
#pragma once

#include <cstdint>
#include <string>

namespace block_hasher {

class Device {
 public:
  // Opens path read-only (O_DIRECT if direct) and finds its size. Throws UsageError if the
  // path is missing, unreadable, of the wrong type, or refuses O_DIRECT.
  static Device open(const std::string& path, bool direct);

  ~Device();
  Device(Device&& other) noexcept;
  Device& operator=(Device&& other) noexcept;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] std::uint64_t size_bytes() const { return size_bytes_; }
  [[nodiscard]] bool is_block_device() const { return is_block_device_; }

 private:
  Device(int fd, std::uint64_t size_bytes, bool is_block_device)
      : fd_(fd), size_bytes_(size_bytes), is_block_device_(is_block_device) {}

  int fd_ = -1;
  std::uint64_t size_bytes_ = 0;
  bool is_block_device_ = false;
};

// How many blocks the run reads: requested (0 means "all whole blocks the device holds"),
// checked against the device size. Throws UsageError if the device cannot supply them.
std::uint64_t plan_blocks(std::uint64_t requested, std::uint64_t block_size,
                          std::uint64_t device_bytes, const std::string& device);

}  // namespace block_hasher
