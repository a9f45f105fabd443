#include "reader.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "usdt.h"

namespace block_hasher {

ThreadResult read_blocks(const ThreadPlan& plan, std::span<std::byte> buffer, Digest& digest) {
  ThreadResult result;
  result.index = plan.index;
  result.tid = static_cast<int>(gettid());
  BLOCK_HASHER_THREAD_START(plan.index, result.tid);

  const auto start = std::chrono::steady_clock::now();
  const std::span<std::byte> block = buffer.first(plan.block_size);
  for (std::uint64_t index = static_cast<std::uint64_t>(plan.index); index < plan.total_blocks;
       index += static_cast<std::uint64_t>(plan.threads)) {
    const std::uint64_t id = request_id(index);
    const std::uint64_t offset = index * plan.block_size;
    BLOCK_HASHER_READ_START(id, plan.index, index, offset, plan.block_size);
    const ssize_t got = pread(plan.fd, block.data(), block.size(), static_cast<off_t>(offset));
    const std::int64_t read_result = got < 0 ? -std::int64_t{errno} : std::int64_t{got};
    BLOCK_HASHER_READ_DONE(id, plan.index, index, offset, plan.block_size, read_result);
    if (read_result != static_cast<std::int64_t>(plan.block_size)) {
      // A short read is as wrong as a failed one here: the run only asks for blocks the
      // device holds. Hashing part of a block would make the digest meaningless.
      ++result.errors;
      continue;
    }

    // The per-block digest costs a second hash, so it exists only while a tracer holds the
    // hash_done semaphore; otherwise hash_done carries "". It is taken before hash_start so
    // hash_start..hash_done times the running-digest update alone, traced or not.
    std::string block_hex;
    if (BLOCK_HASHER_HASH_DONE_ENABLED()) block_hex = Digest::hex_of(digest.kind(), block);
    BLOCK_HASHER_HASH_START(id, plan.index, plan.block_size);
    digest.update(block);
    BLOCK_HASHER_HASH_DONE(id, plan.index, block_hex.c_str());

    ++result.blocks;
    result.bytes += plan.block_size;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.digest = digest.hex();
  BLOCK_HASHER_THREAD_END(plan.index, result.blocks, result.bytes, result.errors);
  return result;
}

}  // namespace block_hasher
