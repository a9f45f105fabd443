// The digest wrapper against the libraries' own one-shot functions, so a wrong update,
// finalisation or hex format shows up as a mismatch.
#include "digest.h"

#include <gtest/gtest.h>
#include <openssl/sha.h>
#include <xxhash.h>

#include <cstdio>
#include <string>
#include <vector>

namespace block_hasher {
namespace {

std::vector<std::byte> pattern(std::size_t size, unsigned seed) {
  std::vector<std::byte> data(size);
  unsigned state = seed;
  for (std::byte& b : data) {
    state = state * 1103515245u + 12345u;
    b = static_cast<std::byte>(state >> 16);
  }
  return data;
}

std::string openssl_sha1_hex(const std::vector<std::byte>& data) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  std::string hex;
  char two[3];
  for (const unsigned char byte : md) {
    std::snprintf(two, sizeof(two), "%02x", byte);
    hex += two;
  }
  return hex;
}

std::string xxh3_hex(const std::vector<std::byte>& data) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(data.data(), data.size())));
  return hex;
}

TEST(BlockHasherDigest, Sha1OfKnownStringMatchesPublishedValue) {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  Digest digest(HashKind::kSha1);
  digest.update(std::as_bytes(std::span(text.data(), text.size())));
  EXPECT_EQ(digest.hex(), "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
}

TEST(BlockHasherDigest, EmptySha1) {
  EXPECT_EQ(Digest(HashKind::kSha1).hex(), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

TEST(BlockHasherDigest, Sha1InPiecesEqualsOpenSslOneShot) {
  const std::vector<std::byte> data = pattern(3 * 65536 + 17, 1);
  Digest digest(HashKind::kSha1);
  const std::span<const std::byte> all(data);
  digest.update(all.first(65536));
  digest.update(all.subspan(65536, 2 * 65536));
  digest.update(all.subspan(3 * 65536));
  EXPECT_EQ(digest.hex(), openssl_sha1_hex(data));
  EXPECT_EQ(Digest::hex_of(HashKind::kSha1, data), openssl_sha1_hex(data));
}

TEST(BlockHasherDigest, Xxh3InPiecesEqualsOneShot) {
  const std::vector<std::byte> data = pattern(300000, 2);
  Digest digest(HashKind::kXxh3);
  const std::span<const std::byte> all(data);
  digest.update(all.first(1000));
  digest.update(all.subspan(1000));
  EXPECT_EQ(digest.hex(), xxh3_hex(data));
  EXPECT_EQ(Digest::hex_of(HashKind::kXxh3, data), xxh3_hex(data));
  EXPECT_EQ(digest.hex().size(), 16u);
}

TEST(BlockHasherDigest, HexDoesNotDisturbTheRunningDigest) {
  const std::vector<std::byte> data = pattern(1024, 3);
  const std::span<const std::byte> all(data);
  for (const HashKind kind : {HashKind::kSha1, HashKind::kXxh3}) {
    Digest digest(kind);
    digest.update(all.first(512));
    const std::string half = digest.hex();
    EXPECT_EQ(half, Digest::hex_of(kind, all.first(512)));
    digest.update(all.subspan(512));
    EXPECT_EQ(digest.hex(), Digest::hex_of(kind, all)) << hash_name(kind);
  }
}

TEST(BlockHasherDigest, MovedDigestKeepsItsState) {
  const std::vector<std::byte> data = pattern(4096, 4);
  Digest first(HashKind::kSha1);
  first.update(data);
  Digest moved(std::move(first));
  EXPECT_EQ(moved.hex(), openssl_sha1_hex(data));
}

TEST(BlockHasherDigest, ToHex) {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(to_hex(bytes), "000fa5ff");
}

}  // namespace
}  // namespace block_hasher
