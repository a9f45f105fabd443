#pragma once
// SHA-256 through OpenSSL, for cache keys.
#include <cstdint>
#include <string>
#include <string_view>

namespace iotap {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256(Sha256&&) = delete;
  Sha256& operator=(Sha256&&) = delete;

  Sha256& update(std::string_view bytes);
  // Adds one field of a list, its length first ("5:hello"), so that no two different field
  // lists hash alike.
  Sha256& update_field(std::string_view field);
  // Adds a file's bytes.
  Sha256& update_file(const std::string& path);
  // Adds a file by path, size and modification time (seconds; symlinks followed): how a cache
  // key names an input that changes only with its package. Returns the file's size. Throws
  // UserError when the file cannot be read.
  uint64_t update_file_identity(const std::string& path);
  [[nodiscard]] std::string hex();

 private:
  void* context_;  // EVP_MD_CTX, kept opaque so this header needs no OpenSSL include
};

}  // namespace iotap
