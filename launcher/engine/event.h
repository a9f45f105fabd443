#pragma once
// One event of docs/event-format.md as a plain struct: what the tokenizer makes of a line and
// what every later stage reads.
#include <array>
#include <cstdint>
#include <string_view>

namespace iotap::engine {

enum class Kind : uint8_t {
  read_start,
  read_done,
  queue,
  split,
  remap,
  complete,
  rq_issue,     // I: a request-based disk takes a request to the device
  rq_complete,  // D: the device finished (part of) a request
  sys_start,    // SS: the program entered an I/O system call
  sys_done,     // SD: the same thread's system call returned
  run_start,    // RB: block_hasher's run starts (whether it reads with O_DIRECT)
  level_begin,  // PB: a request of the provider begins, at one of its levels
  level_text,   // PT: its text (a query's SQL)
  level_end,    // PE: it ends
};

// Laid out without padding in 128 bytes, two cache lines: the sorter copies each event in and
// out of its window.
struct Event {
  uint64_t ts = 0;   // ns
  uint64_t seq = 0;  // per CPU, from 1
  uint32_t cpu = 0;
  int32_t tid = 0;
  // RS only: `thread` (the program's thread index) and `block`.
  int32_t thread = 0;
  // PB, PT, PE: the request's level (its index in the provider's declaration). KEY is `id`,
  // OP `rw` (R, W, F or -), FILE `inode`, RESULT `value`. PT: `parent` is the text's number in
  // the engine's side table (an Event is copied through the sorter; the text is not).
  uint32_t level = 0;
  Kind kind = Kind::queue;
  char rw = '-';  // Q, X: R, W or -; SS: R, W or F (fsync, fdatasync)
  // SS only: which call (syscall_name()), O_DIRECT (RB too), the file's inode (below). DEV is
  // the file's device.
  uint8_t syscall = 0;
  bool direct = false;
  uint32_t dev = 0;          // Q, M, I, D
  uint32_t from_dev = 0;     // M
  uint64_t id = 0;           // RS, RD: the request; Q, X, M, C: the bio's address; I, D: RQ
  uint64_t parent = 0;       // X: the bio it was cut from; I: the request's first bio
  uint64_t sector = 0;       // Q, X, M, I, D
  uint64_t bytes = 0;        // Q, X, M, I, D
  uint64_t from_sector = 0;  // M
  int64_t value = 0;         // RD, SD: the call's result; C, D: the block status
  uint64_t block = 0;
  uint64_t offset = 0, size = 0;  // RS, SS
  uint64_t inode = 0;
};
static_assert(sizeof(Event) == 128);

// The I/O system calls SS names, in the order of their index; F marks fsync and fdatasync.
struct Syscall {
  std::string_view name;
  char op;  // R, W or F
};
inline constexpr std::array<Syscall, 12> kSyscalls = {{
    {"read", 'R'},
    {"pread64", 'R'},
    {"readv", 'R'},
    {"preadv", 'R'},
    {"preadv2", 'R'},
    {"write", 'W'},
    {"pwrite64", 'W'},
    {"writev", 'W'},
    {"pwritev", 'W'},
    {"pwritev2", 'W'},
    {"fsync", 'F'},
    {"fdatasync", 'F'},
}};

}  // namespace iotap::engine
