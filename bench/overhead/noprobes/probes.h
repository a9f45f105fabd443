// block_hasher's probes compiled out, for bench/overhead's "bare" build: the same code with
// no USDT note, no nop, no semaphore. The probes' cost when nothing is attached is the
// difference between this build and the real one. The arguments are still taken (and
// optimized away), so that nothing used only by a probe becomes unused.
#pragma once

template <class... Args>
inline void block_hasher_no_probe(const Args&... /*unused*/) {}

#define BLOCK_HASHER_RUN_START_ENABLED() 0
#define BLOCK_HASHER_RUN_START(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_RUN_END_ENABLED() 0
#define BLOCK_HASHER_RUN_END(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_THREAD_START_ENABLED() 0
#define BLOCK_HASHER_THREAD_START(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_THREAD_END_ENABLED() 0
#define BLOCK_HASHER_THREAD_END(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_READ_START_ENABLED() 0
#define BLOCK_HASHER_READ_START(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_READ_DONE_ENABLED() 0
#define BLOCK_HASHER_READ_DONE(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_HASH_START_ENABLED() 0
#define BLOCK_HASHER_HASH_START(...) block_hasher_no_probe(__VA_ARGS__)
#define BLOCK_HASHER_HASH_DONE_ENABLED() 0
#define BLOCK_HASHER_HASH_DONE(...) block_hasher_no_probe(__VA_ARGS__)
