#include "run.h"

#include <chrono>
#include <exception>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "buffer.h"
#include "error.h"
#include "usdt.h"

namespace block_hasher {

RunResult run(const Options& options, const Device& device, std::uint64_t blocks) {
  const auto thread_count = static_cast<std::size_t>(options.threads);

  // Everything that can fail for lack of memory is set up here, before any thread starts,
  // so a failure is a clean error instead of an exception inside a worker.
  std::vector<AlignedBuffer> buffers;
  std::vector<Digest> digests;
  try {
    buffers.reserve(thread_count);
    digests.reserve(thread_count);
    for (std::size_t i = 0; i < thread_count; ++i) {
      buffers.emplace_back(options.block_size);
      digests.emplace_back(options.hash);
    }
  } catch (const std::bad_alloc&) {
    throw UsageError("cannot allocate " + std::to_string(options.threads) + " buffers of " +
                         std::to_string(options.block_size) + " bytes",
                     "lower -t or -b");
  }

  RunResult result;
  result.planned_blocks = blocks;
  result.threads.resize(thread_count);
  std::vector<std::exception_ptr> failures(thread_count);

  BLOCK_HASHER_RUN_START(options.device.c_str(), options.block_size, options.threads, blocks,
                         options.direct ? 1 : 0);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  workers.reserve(thread_count);
  std::string spawn_error;
  for (std::size_t i = 0; i < thread_count && spawn_error.empty(); ++i) {
    ThreadPlan plan;
    plan.fd = device.fd();
    plan.index = static_cast<int>(i);
    plan.threads = options.threads;
    plan.total_blocks = blocks;
    plan.block_size = options.block_size;
    try {
      workers.emplace_back([&result, &buffers, &digests, &failures, plan, i] {
        // An exception escaping a std::thread calls std::terminate; carry it to main.
        try {
          result.threads[i] = read_blocks(plan, buffers[i].bytes(), digests[i]);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
    } catch (const std::system_error& error) {
      spawn_error = error.what();
    }
  }
  // Join whatever started, even after a failure, so no thread outlives the buffers.
  for (std::thread& worker : workers) worker.join();
  const auto elapsed = std::chrono::steady_clock::now() - start;

  for (const ThreadResult& thread : result.threads) {
    result.blocks += thread.blocks;
    result.bytes += thread.bytes;
    result.errors += thread.errors;
  }
  result.seconds = std::chrono::duration<double>(elapsed).count();
  const auto elapsed_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  // Fired even when the run is about to fail below, so a tracer always sees the run close.
  BLOCK_HASHER_RUN_END(result.blocks, result.bytes, result.errors, elapsed_ns);

  if (!spawn_error.empty()) {
    throw UsageError("cannot start thread " + std::to_string(workers.size()) + " of " +
                         std::to_string(options.threads) + ": " + spawn_error,
                     "lower -t");
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  return result;
}

}  // namespace block_hasher
