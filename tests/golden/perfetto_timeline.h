#pragma once
// A --perfetto file read back as ui.perfetto.dev reads it: complete slices ("X") on tracks
// (pid, tid), and flows ("s" to "f") bound to the slices that enclose their ends. For the tests
// that check the arrows join what the engine joined (golden: recorded runs; vm: a real one).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace iotap::test {

struct Slice {
  int pid = 0, tid = 0;
  double ts = 0, dur = 0;
  nlohmann::json args;
  std::vector<size_t> next;  // the slices its outgoing flows end at
  int incoming = 0;          // flows ending at it
};

struct Timeline {
  std::vector<Slice> slices;
  std::map<int, std::string> process_names;
  std::map<uint64_t, size_t> requests;  // request id: its slice
  std::vector<std::string> problems;    // flows with one end, or bound to no slice, or to two
  // The device a bio's slice is on: its process's name up to the first space.
  [[nodiscard]] std::string device_of(const Slice& slice) const;
};

Timeline read_timeline(const std::string& text);

// What the arrows from one request reach on `members` (devices' names): the slices of the bios
// that are ios (not split parts), each with its request as the bio says (args.request).
struct Reached {
  std::vector<size_t> member_ios;
  uint64_t member_bytes = 0;
  std::vector<uint64_t> requests_of_reached;  // args.request of every bio reached
};
Reached follow_request(const Timeline& timeline, uint64_t request,
                       const std::set<std::string>& members);

}  // namespace iotap::test
