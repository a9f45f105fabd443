#pragma once
// SHA-256 through OpenSSL, for cache keys.
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
  // Adds a file's bytes.
  Sha256& update_file(const std::string& path);
  [[nodiscard]] std::string hex();

 private:
  void* context_;  // EVP_MD_CTX, kept opaque so this header needs no OpenSSL include
};

}  // namespace iotap
