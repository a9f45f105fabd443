/*
 * USDT probes of block_hasher, provider "block_hasher".
 *
 * Tapsets and the launcher rely on these names, argument orders and sizes; change them
 * only together with tapsets/ and the README.md next to this file.
 *
 * Build: `dtrace -h -s probes.d -o probes.h` gives BLOCK_HASHER_<NAME>() and
 * BLOCK_HASHER_<NAME>_ENABLED(); `dtrace -G -s probes.d -o probes.o` gives the semaphores
 * (section .probes) that a tracer increments when it attaches to a probe.
 *
 * run_start(char* device, uint64_t block_size, int threads, uint64_t blocks, int direct)
 *   Once, in the main thread, after the options were checked and the device opened, before
 *   any worker starts. blocks: total blocks to read over all threads. direct: 1 if O_DIRECT.
 * run_end(uint64_t blocks_read, uint64_t bytes, uint64_t errors, uint64_t elapsed_ns)
 *   Once, in the main thread, after all workers joined (also when the run then fails).
 *   blocks_read/bytes count only full, successful reads; errors counts failed and short
 *   reads; elapsed_ns is monotonic wall time from starting the first worker to joining the
 *   last.
 * thread_start(int thread_index, int tid)
 *   In each worker, first thing. thread_index is 0..threads-1; tid is gettid().
 * thread_end(int thread_index, uint64_t blocks, uint64_t bytes, uint64_t errors)
 *   In each worker, after its last block; same counters as run_end, for this thread.
 * read_start(uint64_t request_id, int thread_index, uint64_t block_index, uint64_t offset,
 *            uint64_t size)
 *   Just before pread(fd, buf, size, offset). offset = block_index * size.
 * read_done(uint64_t request_id, int thread_index, uint64_t block_index, uint64_t offset,
 *           uint64_t size, int64_t result)
 *   Just after pread. result is pread's return value, or -errno if it returned -1.
 *   result != size is an error (a short read included) and the block is not hashed, so no
 *   hash_start/hash_done follow for this request_id.
 * hash_start(uint64_t request_id, int thread_index, uint64_t size)
 *   Just before the block is fed to the thread's running digest.
 * hash_done(uint64_t request_id, int thread_index, char* block_digest_hex)
 *   Just after. block_digest_hex is the hex digest of this one block alone (same algorithm
 *   as the run), NUL-terminated. It costs a second hash, so it is computed only while a
 *   tracer holds this probe's semaphore (stap does; a tracer that ignores semaphores sees
 *   ""), and it is computed before hash_start so hash_start..hash_done times only the
 *   running-digest update.
 *
 * request_id = block_index + 1: unique within a run because every block is read exactly
 * once, never 0 (0 can mean "no request" in a tapset), and needs no per-thread state. It
 * joins read_start, read_done, hash_start and hash_done of one block.
 */
provider block_hasher {
  probe run_start(char* device, uint64_t block_size, int threads, uint64_t blocks, int direct);
  probe run_end(uint64_t blocks_read, uint64_t bytes, uint64_t errors, uint64_t elapsed_ns);
  probe thread_start(int thread_index, int tid);
  probe thread_end(int thread_index, uint64_t blocks, uint64_t bytes, uint64_t errors);
  probe read_start(uint64_t request_id, int thread_index, uint64_t block_index, uint64_t offset,
                   uint64_t size);
  probe read_done(uint64_t request_id, int thread_index, uint64_t block_index, uint64_t offset,
                  uint64_t size, int64_t result);
  probe hash_start(uint64_t request_id, int thread_index, uint64_t size);
  probe hash_done(uint64_t request_id, int thread_index, char* block_digest_hex);
};
