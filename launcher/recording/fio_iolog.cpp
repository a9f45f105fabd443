#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "iotap/recording/recording.h"

namespace iotap::recording {

namespace {

std::string fio_action(const Request& request) {
  switch (request.op) {
    case 'W':
      return "write";
    case 'F':
      return request.call == "fdatasync" ? "datasync" : "sync";
    default:
      return "read";
  }
}

}  // namespace

std::string fio_iolog(const Recording& recording, const std::string& file) {
  // The file holds requests in the order they ended; fio issues a log's lines in order, so they
  // go in the order they started (stable: equal starts keep the file's order).
  std::vector<size_t> order(recording.requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return recording.requests[a].start_ns < recording.requests[b].start_ns;
  });
  // Microseconds from 1, not 0: fio (3.33, delay_since_ttime) waits for nothing while the last
  // time it saw is 0, so a log starting at 0 would lose its first gap.
  const auto stamp = [](uint64_t ns) { return std::to_string(ns / 1000 + 1); };
  std::string log = "fio version 3 iolog\n";
  log += "1 " + file + " add\n";
  log += "1 " + file + " open\n";
  uint64_t last = 0;
  for (const size_t i : order) {
    const Request& r = recording.requests[i];
    log += stamp(r.start_ns) + " " + file + " " + fio_action(r) + " " + std::to_string(r.offset) +
           " " + std::to_string(r.size) + "\n";
    last = r.start_ns;
  }
  log += stamp(last) + " " + file + " close\n";
  return log;
}

}  // namespace iotap::recording
