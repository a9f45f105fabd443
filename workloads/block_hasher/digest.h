// A running digest over a thread's blocks: SHA-1 through OpenSSL's EVP API (what the classic
// block_hasher printed) or XXH3-64 from libxxhash (fast enough that the hash stops hiding the
// I/O latency being studied). One RAII class so the reader does not care which.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "options.h"

namespace block_hasher {

class Digest {
 public:
  explicit Digest(HashKind kind);
  ~Digest();
  Digest(Digest&&) noexcept;
  Digest& operator=(Digest&&) noexcept;
  Digest(const Digest&) = delete;
  Digest& operator=(const Digest&) = delete;

  [[nodiscard]] HashKind kind() const { return kind_; }

  // Feeds data to the running digest. Throws std::runtime_error if the library fails.
  void update(std::span<const std::byte> data);

  // Lowercase hex of the digest of everything fed so far. Does not disturb the running state,
  // so it may be called at any time (the report calls it once, at the end).
  [[nodiscard]] std::string hex() const;

  // Lowercase hex of the digest of data alone: the per-block digest for the hash_done probe.
  static std::string hex_of(HashKind kind, std::span<const std::byte> data);

 private:
  struct State;
  HashKind kind_;
  std::unique_ptr<State> state_;
};

// Lowercase hex of raw bytes.
std::string to_hex(std::span<const unsigned char> bytes);

}  // namespace block_hasher
