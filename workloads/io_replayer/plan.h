// What to replay: a recording turned into one sequence of steps per thread, offsets fitted to
// the device. Pure (no I/O): unit-tested in plan_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iotap/recording/recording.h"

namespace io_replayer {

struct Step {
  uint64_t id = 0;  // the request's place in the recording by start time, from 1
  char op = 'R';    // R, W, F
  uint64_t offset = 0, size = 0;
  bool direct = false;
  bool datasync = false;        // F: fdatasync rather than fsync
  uint64_t recorded_start = 0;  // ns, as recorded
};

struct Plan {
  std::vector<std::vector<Step>> threads;  // the recorded threads in their numbers' order
  uint64_t requests = 0, reads = 0, writes = 0, flushes = 0;
  uint64_t span = 0;  // bytes: the end of the furthest request as recorded
  double scale = 1;   // offsets were multiplied by this (< 1 when the device is smaller)
};

// What the device must be opened for, known before its size is: writes, and which of O_DIRECT
// and buffered I/O the reads and writes use (a flush takes either).
struct Needs {
  uint64_t writes = 0;
  bool direct = false, buffered = false;
};
Needs needs_of(const iotap::recording::Recording& recording);

// O_DIRECT needs offsets aligned to the device's logical block; scaled offsets keep to this,
// which every device's logical block divides.
inline constexpr uint64_t kScaledAlignment = 4096;

// Throws Error when a request cannot fit the device at all (larger than it).
Plan make_plan(const iotap::recording::Recording& recording, uint64_t device_bytes,
               const std::string& device_name);

}  // namespace io_replayer
