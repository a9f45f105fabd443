// A whole run: one worker thread per -t, each with its own buffer and digest, between the
// run_start and run_end probes.
#pragma once

#include <cstdint>
#include <vector>

#include "device.h"
#include "options.h"
#include "reader.h"

namespace block_hasher {

struct RunResult {
  std::uint64_t planned_blocks = 0;  // blocks asked for over all threads
  std::uint64_t blocks = 0;          // full, successful reads over all threads
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;
  double seconds = 0;  // wall time from starting the first worker to joining the last
  std::vector<ThreadResult> threads;
};

// Reads blocks blocks of options.block_size from device with options.threads threads.
// Throws UsageError if the buffers or threads cannot be had, std::runtime_error if the hash
// library fails.
RunResult run(const Options& options, const Device& device, std::uint64_t blocks);

}  // namespace block_hasher
