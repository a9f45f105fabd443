// Test helpers: a private temporary directory (mkdtemp, removed with everything in it) and
// deterministic file contents, so expected digests can be computed from the same bytes.
#pragma once

#include <cstddef>
#include <cstdlib>  // mkdtemp
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace block_hasher_test {

class TempDir {
 public:
  explicit TempDir(const std::string& parent = "/tmp") {
    std::string pattern = parent + "/block_hasher_test.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// size bytes from a fixed linear congruential sequence: every block differs from every other,
// so a thread reading the wrong blocks, or in the wrong order, gets a different digest.
inline std::vector<std::byte> pattern(std::size_t size, unsigned seed = 12345) {
  std::vector<std::byte> data(size);
  unsigned state = seed;
  for (std::byte& b : data) {
    state = state * 1103515245U + 12345U;
    b = static_cast<std::byte>(state >> 16);
  }
  return data;
}

inline void write_file(const std::string& path, const std::vector<std::byte>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace block_hasher_test
