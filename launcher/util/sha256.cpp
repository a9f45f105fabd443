#include "iotap/util/sha256.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "iotap/util/error.h"

namespace iotap {

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr ||
      EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_));
}

Sha256& Sha256::update(std::string_view bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), bytes.data(), bytes.size());
  return *this;
}

Sha256& Sha256::update_field(std::string_view field) {
  return update(std::to_string(field.size())).update(":").update(field);
}

Sha256& Sha256::update_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "'");
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  return *this;
}

uint64_t Sha256::update_file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  update(path).update(std::to_string(st.st_size)).update(std::to_string(st.st_mtim.tv_sec));
  return static_cast<uint64_t>(st.st_size);
}

std::string Sha256::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), digest.data(), &length);
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace iotap
