// One worker thread's loop: read its interleaved share of blocks with pread, hash them, and
// fire the USDT probes around each read and hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "digest.h"

namespace block_hasher {

struct ThreadPlan {
  int fd = -1;
  int index = 0;    // this thread: reads blocks index, index+threads, index+2*threads, ...
  int threads = 1;  // the stride
  std::uint64_t total_blocks = 0;
  std::uint64_t block_size = 0;
};

struct ThreadResult {
  int index = 0;
  int tid = 0;
  std::uint64_t blocks = 0;  // full, successful reads (the ones hashed)
  std::uint64_t bytes = 0;   // bytes hashed: blocks * block_size
  std::uint64_t errors = 0;  // pread returned -1 or fewer than block_size bytes
  double seconds = 0;        // this thread's time from its first read to its last hash
  std::string digest;        // hex of the running digest over the hashed blocks, in order
};

// The request id the probes carry for a block; see probes.d for why block_index + 1.
constexpr std::uint64_t request_id(std::uint64_t block_index) {
  return block_index + 1;
}

// Runs in the worker thread. buffer holds at least block_size bytes (aligned for O_DIRECT);
// digest starts empty and accumulates the blocks. A failed or short read counts as an error
// and the loop goes on with the next block. Throws only if the hash library fails.
ThreadResult read_blocks(const ThreadPlan& plan, std::span<std::byte> buffer, Digest& digest);

}  // namespace block_hasher
