// The per-thread loop, run in-process: which blocks a thread reads, how read errors count,
// and that the traced path (hash_done's semaphore set) hashes the same data.
#include "reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <span>
#include <vector>

#include "test_files.h"

// Defined by dtrace -G's probes.o in block_hasher_core; a tracer such as stap increments it
// when it attaches to hash_done. Setting it here takes the path a traced run takes.
extern unsigned short block_hasher_hash_done_semaphore;

namespace block_hasher {
namespace {

using block_hasher_test::TempDir;

constexpr std::uint64_t kBlock = 4096;

class BlockHasherReader : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = block_hasher_test::pattern(8 * kBlock);
    block_hasher_test::write_file(dir_.file("data"), data_);
    fd_ = ::open(dir_.file("data").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    block_hasher_hash_done_semaphore = 0;
  }

  ThreadPlan plan(int index, int threads, std::uint64_t total) const {
    ThreadPlan plan;
    plan.fd = fd_;
    plan.index = index;
    plan.threads = threads;
    plan.total_blocks = total;
    plan.block_size = kBlock;
    return plan;
  }

  // The digest of the given blocks of the file, in order, computed without read_blocks.
  std::string expected(HashKind kind, std::initializer_list<std::uint64_t> blocks) const {
    Digest digest(kind);
    const std::span<const std::byte> all(data_);
    for (const std::uint64_t block : blocks) digest.update(all.subspan(block * kBlock, kBlock));
    return digest.hex();
  }

  TempDir dir_;
  std::vector<std::byte> data_;
  int fd_ = -1;
};

TEST_F(BlockHasherReader, ThreadReadsEveryThreadsthBlock) {
  std::vector<std::byte> buffer(kBlock);
  Digest digest(HashKind::kSha1);
  const ThreadResult result = read_blocks(plan(1, 3, 8), buffer, digest);
  EXPECT_EQ(result.index, 1);
  EXPECT_GT(result.tid, 0);
  EXPECT_EQ(result.blocks, 3u);  // blocks 1, 4, 7
  EXPECT_EQ(result.bytes, 3 * kBlock);
  EXPECT_EQ(result.errors, 0u);
  EXPECT_EQ(result.digest, expected(HashKind::kSha1, {1, 4, 7}));
}

TEST_F(BlockHasherReader, ReadsPastTheEndAreShortReadsAndCountAsErrors) {
  std::vector<std::byte> buffer(kBlock);
  Digest digest(HashKind::kXxh3);
  // Blocks 0, 2, 4, 6 exist; 8 and 10 are past the end of the 8-block file.
  const ThreadResult result = read_blocks(plan(0, 2, 12), buffer, digest);
  EXPECT_EQ(result.blocks, 4u);
  EXPECT_EQ(result.errors, 2u);
  EXPECT_EQ(result.digest, expected(HashKind::kXxh3, {0, 2, 4, 6}));
}

TEST_F(BlockHasherReader, FailedPreadCountsAsErrorAndTheLoopGoesOn) {
  std::vector<std::byte> buffer(kBlock);
  Digest digest(HashKind::kSha1);
  ThreadPlan bad = plan(0, 1, 5);
  bad.fd = -1;  // pread returns -1, EBADF
  const ThreadResult result = read_blocks(bad, buffer, digest);
  EXPECT_EQ(result.blocks, 0u);
  EXPECT_EQ(result.errors, 5u);
  EXPECT_EQ(result.digest, Digest(HashKind::kSha1).hex());
}

TEST_F(BlockHasherReader, TracedPathGivesTheSameDigest) {
  block_hasher_hash_done_semaphore = 1;
  std::vector<std::byte> buffer(kBlock);
  Digest digest(HashKind::kSha1);
  const ThreadResult result = read_blocks(plan(2, 4, 8), buffer, digest);
  EXPECT_EQ(result.blocks, 2u);
  EXPECT_EQ(result.digest, expected(HashKind::kSha1, {2, 6}));
}

TEST(BlockHasherRequestId, IsBlockIndexPlusOne) {
  EXPECT_EQ(request_id(0), 1u);
  EXPECT_EQ(request_id(41), 42u);
}

}  // namespace
}  // namespace block_hasher
