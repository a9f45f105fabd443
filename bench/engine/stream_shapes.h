#pragma once
// The streams engine_bench feeds the engine, made from one recorded guest run by rendering it
// again copy after copy, with what identifies a copy shifted so that copies join as new reads
// and nothing is taken for loss: timestamps, request ids, bio and request addresses, and (for
// copies in flight at once) tids and sectors. Each CPU's sequence numbers are renumbered in the
// order its events are emitted, so the merged stream has no gap.
//
// Copies in flight at once start 1 us apart and are merged by time, a completion and the
// completions that follow it on its CPU (md's of the bio it split, which the engine expects
// within a few events) kept together; where copies meet on a CPU its clock is kept from going
// back (by at most a few us).
//
// Three shapes:
//   incident  copies end to end: the recording's own concurrency, repeated;
//   deep      128 copies at once on the recording's CPUs: thousands of bios held (4,517 at
//             most, against 36: in flight, or in open reads' trees) for the join by sector;
//   cpus64    32 copies at once, each on two CPUs of its own: 64 CPUs for the sorter to merge.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/stack.h"

namespace iotap::bench {

struct Shape {
  std::string_view name;
  uint32_t copies_at_once = 1;  // copies whose reads overlap in time
  bool own_cpus = false;        // each of them on CPUs of its own
};

inline constexpr std::array<Shape, 3> kShapes = {{
    {"incident", 1, false},
    {"deep", 128, false},
    {"cpus64", 32, true},
}};

// One line of the recording: an event split into its fields, or another line kept as it is.
struct RecordedLine {
  bool event = false;
  std::string kind;
  uint64_t ts = 0;
  uint32_t cpu = 0;
  uint64_t seq = 0;  // the recording's: which completions follow which
  int64_t tid = 0;
  std::vector<std::string> fields;
  uint32_t sector_dev = 0;  // the device whose sectors the line's SECTOR is in (Q, X, M, I, D)
  uint32_t from_dev = 0;    // M's FROM_DEV, whose sectors its FROM_SECTOR is in
  std::string text;         // a line that is not an event
};

struct Recording {
  std::vector<RecordedLine> lines;
  uint64_t events = 0;
  uint64_t first_ts = UINT64_MAX, last_ts = 0;
  uint64_t reads = 0;        // requests started (RS, US, SS)
  uint64_t max_request = 0;  // the largest request id (RS, US): one copy's ids are shifted by it
  uint32_t cpus = 0;         // CPU numbers used: 0 .. cpus-1
};

Recording parse_recording(const std::string& output);

class StreamMaker {
 public:
  StreamMaker(const Recording& recording, const std::vector<StackDevice>& stack, Shape shape);

  // The text of group `group` (its copies_at_once copies), given to `sink` in pieces of about
  // `chunk` bytes. Groups go in order: sequence numbers and clocks continue from one to the next.
  void render_group(uint64_t group, size_t chunk,
                    const std::function<void(std::string_view)>& sink);

  [[nodiscard]] uint64_t events_per_group() const {
    return recording_.events * shape_.copies_at_once;
  }
  [[nodiscard]] uint64_t reads_per_group() const {
    return recording_.reads * shape_.copies_at_once;
  }
  [[nodiscard]] uint32_t cpus() const {
    return recording_.cpus * (shape_.own_cpus ? shape_.copies_at_once : 1);
  }

 private:
  struct Placed {
    uint32_t slot;  // which copy of the group
    uint32_t line;  // which line of the recording
  };
  // The order a group's lines go out in, the same for every group.
  void merge_copies();
  // How far copy `slot` of a group moves `dev`'s sectors: the copies in flight at once must not
  // share sectors, or the join by sector could not tell them apart.
  uint64_t sector_shift(uint32_t dev, uint64_t slot) const;
  void render_line(const RecordedLine& line, uint64_t copy, uint64_t slot, uint64_t ts,
                   std::string& out);

  const Recording& recording_;
  Shape shape_;
  std::vector<Placed> order_;
  uint32_t top_dev_ = 0;
  uint64_t top_span_ = 0;     // sectors one copy's slot takes on the top device
  uint64_t member_span_ = 0;  // ... and on every device below it
  uint64_t group_span_ns_ = 0;
  std::map<uint32_t, uint64_t> next_seq_;  // per CPU of the merged stream
  std::map<uint32_t, uint64_t> last_ts_;   // per CPU: its clock never goes back
};

}  // namespace iotap::bench
