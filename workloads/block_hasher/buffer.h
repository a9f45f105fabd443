// A read buffer aligned for O_DIRECT. O_DIRECT needs the buffer address aligned to the
// device's logical block size; 4096 covers 512-byte and 4Kn devices and the page size.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace block_hasher {

inline constexpr std::size_t kBufferAlignment = 4096;

class AlignedBuffer {
 public:
  // Throws std::bad_alloc if the memory is not there.
  explicit AlignedBuffer(std::size_t size) : size_(size) {
    void* memory = nullptr;
    if (posix_memalign(&memory, kBufferAlignment, size) != 0) throw std::bad_alloc();
    data_.reset(static_cast<std::byte*>(memory));
  }

  std::span<std::byte> bytes() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(std::byte* memory) const { std::free(memory); }
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_;
};

}  // namespace block_hasher
