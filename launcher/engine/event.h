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

// CPU numbers the engine takes: a CPU past them is a malformed event (an Event keeps 16 bits).
inline constexpr uint32_t kMaxCpus = 1U << 16U;

// One cache line: the sorter holds up to 65,536 events in its window and copies each in and
// out, and at 128 bytes that traffic and clearing an event (a `rep stos` at -O2) were a fifth
// of the engine's time. So a kind's fields share bytes with other kinds' fields it never has:
// each anonymous union below holds fields no kind carries two of (docs/event-format.md's
// table). A kind reads only its own fields; one it does not carry may hold another's value.
struct Event {
  uint64_t ts = 0;   // ns
  uint64_t seq = 0;  // per CPU, from 1
  int32_t tid = 0;
  uint16_t cpu = 0;  // below kMaxCpus
  Kind kind = Kind::queue;
  char rw = '-';  // Q, X: R, W or -; RS R; US, SS: R, W or F (fsync, fdatasync); PB: also -
  union {
    uint32_t dev = 0;  // Q, M, I, D; SS: the file's device
    int32_t thread;    // RS, US: the program's thread index
    uint32_t level;    // PB, PT, PE: the request's level (its index in the provider's list)
  };
  union {
    uint32_t bytes = 0;  // Q, X, M, I, D
    uint32_t direct;     // RS, US, SS, RB: O_DIRECT, 0 or 1
  };
  union {
    uint64_t id = 0;  // RS, RD, US, UD: the request; Q, X, M, C: the bio's address; I, D: RQ;
                      // PB, PT, PE: KEY
    uint8_t syscall;  // SS: which call (syscall_name())
  };
  union {
    uint64_t sector = 0;  // Q, X, M, I, D
    uint64_t offset;      // RS, US, SS, PB
  };
  union {
    uint64_t parent = 0;   // X: the bio it was cut from; I: the request's first bio; PT: the
                           // text's number in the engine's side table (an Event is copied
                           // through the sorter; the text is not)
    uint64_t from_sector;  // M
    int64_t value;         // RD, UD, SD, PE: the call's result; C, D: the block status
    uint64_t size;         // RS, US, SS, PB
  };
  union {
    uint64_t block = 0;  // RS
    uint64_t inode;      // SS, PB: FILE
    uint32_t from_dev;   // M
  };
};
static_assert(sizeof(Event) == 64);

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
