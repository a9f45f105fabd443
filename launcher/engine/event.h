#pragma once
// One event of docs/event-format.md as a plain struct: what the tokenizer makes of a line and
// what every later stage reads.
#include <cstdint>

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
};

struct Event {
  uint64_t ts = 0;   // ns
  uint64_t seq = 0;  // per CPU, from 1
  uint32_t cpu = 0;
  int32_t tid = 0;
  Kind kind = Kind::queue;
  char rw = '-';
  uint64_t id = 0;           // RS, RD: the request; Q, X, M, C: the bio's address; I, D: RQ
  uint64_t parent = 0;       // X: the bio it was cut from; I: the request's first bio
  uint32_t dev = 0;          // Q, M, I, D
  uint32_t from_dev = 0;     // M
  uint64_t sector = 0;       // Q, X, M, I, D
  uint64_t bytes = 0;        // Q, X, M, I, D
  uint64_t from_sector = 0;  // M
  int64_t value = 0;         // RD: the read's result; C, D: the block status
  // RS only.
  int32_t thread = 0;
  uint64_t block = 0, offset = 0, size = 0;
};

}  // namespace iotap::engine
