#include "digest.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <stdexcept>

namespace block_hasher {
namespace {

struct EvpCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpCtxFree>;

struct Xxh3Free {
  void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};
using Xxh3State = std::unique_ptr<XXH3_state_t, Xxh3Free>;

// XXH3-64 as 16 hex digits in canonical (big-endian) order, as xxhsum -H3 prints it.
std::string xxh3_hex(XXH64_hash_t hash) {
  XXH64_canonical_t canonical;
  XXH64_canonicalFromHash(&canonical, hash);
  return to_hex(std::span<const unsigned char>(canonical.digest, sizeof(canonical.digest)));
}

}  // namespace

// Only the member for the chosen kind is set.
struct Digest::State {
  EvpCtx evp;
  Xxh3State xxh3;
};

Digest::Digest(HashKind kind) : kind_(kind), state_(std::make_unique<State>()) {
  if (kind == HashKind::kSha1) {
    state_->evp.reset(EVP_MD_CTX_new());
    if (!state_->evp || EVP_DigestInit_ex(state_->evp.get(), EVP_sha1(), nullptr) != 1) {
      throw std::runtime_error("OpenSSL could not set up a SHA-1 digest");
    }
  } else {
    state_->xxh3.reset(XXH3_createState());
    if (!state_->xxh3 || XXH3_64bits_reset(state_->xxh3.get()) != XXH_OK) {
      throw std::runtime_error("libxxhash could not set up an XXH3 state");
    }
  }
}

Digest::~Digest() = default;
Digest::Digest(Digest&&) noexcept = default;
Digest& Digest::operator=(Digest&&) noexcept = default;

void Digest::update(std::span<const std::byte> data) {
  if (kind_ == HashKind::kSha1) {
    if (EVP_DigestUpdate(state_->evp.get(), data.data(), data.size()) != 1) {
      throw std::runtime_error("OpenSSL SHA-1 update failed");
    }
  } else if (XXH3_64bits_update(state_->xxh3.get(), data.data(), data.size()) != XXH_OK) {
    throw std::runtime_error("libxxhash XXH3 update failed");
  }
}

std::string Digest::hex() const {
  if (kind_ == HashKind::kXxh3) return xxh3_hex(XXH3_64bits_digest(state_->xxh3.get()));
  // EVP_DigestFinal_ex ends a context, so finish a copy and keep the original running.
  EvpCtx copy(EVP_MD_CTX_new());
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!copy || EVP_MD_CTX_copy_ex(copy.get(), state_->evp.get()) != 1 ||
      EVP_DigestFinal_ex(copy.get(), md, &length) != 1) {
    throw std::runtime_error("OpenSSL SHA-1 final failed");
  }
  return to_hex(std::span<const unsigned char>(md, length));
}

std::string Digest::hex_of(HashKind kind, std::span<const std::byte> data) {
  if (kind == HashKind::kXxh3) return xxh3_hex(XXH3_64bits(data.data(), data.size()));
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), md, &length, EVP_sha1(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL SHA-1 failed");
  }
  return to_hex(std::span<const unsigned char>(md, length));
}

std::string to_hex(std::span<const unsigned char> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const unsigned char byte : bytes) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0x0f]);
  }
  return out;
}

}  // namespace block_hasher
