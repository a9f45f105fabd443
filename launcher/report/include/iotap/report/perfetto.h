#pragma once
// A run's requests and bios as a timeline that ui.perfetto.dev (and chrome://tracing) opens:
// Chrome's trace-event JSON. One track per thread of the program, its requests as slices (a
// provider's requests too: a query's slice over its buffer reads' over their system calls'); one
// process per device of the stack, top first, its bios as slices on as many lanes as were in
// flight at once (a device serves many bios at a time; slices on one track must nest); and flow
// arrows from each request to the root bios it queued, and from each bio to the bios split or
// remapped from it, down to the member disks. The joins are the engine's own
// (engine::FinishedBio's parent_id and request_id).
//
// Written as the run goes: each request and bio as it ends, so that a run of hours keeps no more
// than what is in flight (an arrow waits for the slice it starts from, which ends after the one
// it points to: a bio's parent after it, a request after its bios). Times are the traced
// machine's clock, in microseconds; the viewers show them from the trace's first event.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "iotap/engine.h"
#include "iotap/stack.h"

namespace iotap::report {

class PerfettoTrace {
 public:
  using Sink = std::function<void(std::string_view)>;
  // `sink` gets the trace's text in order, a piece at a time; `title` names the program's
  // process (what was traced).
  PerfettoTrace(Sink sink, std::string title);

  // The stack's devices, a process each in their order; bios on other devices come after.
  void set_stack(const std::vector<StackDevice>& devices);
  // engine::Options::finished_request and finished_bio: every request and bio as it ends.
  void add(const engine::FinishedRequest& request);
  void add(const engine::FinishedBio& bio);
  // engine::Options::finished_level_request: a provider's request (a query), a slice on its
  // thread's track over the I/O inside it.
  void add(const engine::FinishedLevelRequest& request);
  // The end of the trace. An arrow whose other end never came (a bio or request the stream
  // never saw end) is left out.
  void finish();

  // The arrows waiting for the slice they start from, now and at most so far: what the trace
  // holds besides a lane per bio in flight and a name per thread and device.
  [[nodiscard]] size_t arrows_waiting() const { return waiting_; }
  [[nodiscard]] size_t arrows_waiting_at_most() const { return waiting_at_most_; }

  // Where an arrow ends: a bio's slice, at its start.
  struct ArrowEnd {
    uint64_t bio = 0, ts = 0;
    int pid = 0, tid = 0;
  };
  // A slice an arrow starts from: its track and span.
  struct Span {
    int pid = 0, tid = 0;
    uint64_t start = 0, end = 0;
  };

 private:
  struct Device {
    int pid = 0;
    std::vector<uint64_t> lane_ends;  // the end of each lane's last slice
  };
  // The slices that ended lately, for an arrow whose start ended first (a request that returned
  // before a readahead bio it queued): a bounded memory, oldest out first.
  struct Recent {
    std::unordered_map<uint64_t, Span> spans;
    std::deque<uint64_t> order;
    void remember(uint64_t id, const Span& span);
  };

  void start();
  // Where the next event's text goes (the trace's text, a separator written).
  std::string& next_event();
  std::string bio_name(const engine::FinishedBio& bio);
  // The device's process: made, and named with `spec`, the first time the device is seen.
  Device& device(std::string_view name, std::string_view spec);
  void name_thread(int32_t tid, const std::string& name);
  void draw(const Span& from, const ArrowEnd& to);
  // The arrows to `to` from the slice `from_id` (a request's or a bio's): drawn now when it has
  // ended, else kept in `waiting` until it does.
  void arrow_from(uint64_t from_id, const ArrowEnd& to, const Recent& ended,
                  std::unordered_map<uint64_t, std::vector<ArrowEnd>>& waiting);
  // The arrows that waited for `span` (the slice `id` of `waiting`'s kind), drawn.
  void arrows_waiting_for(uint64_t id, const Span& span,
                          std::unordered_map<uint64_t, std::vector<ArrowEnd>>& waiting);

  Sink sink_;
  std::string title_;
  std::string text_;  // written, not yet given to the sink
  bool started_ = false;
  bool first_event_ = true;
  std::unordered_set<int32_t> named_threads_;
  std::unordered_map<uint64_t, std::string> bio_names_;  // by size
  std::unordered_map<std::string, Device> devices_;
  int next_device_ = 0;
  std::unordered_map<uint64_t, std::vector<ArrowEnd>> waiting_for_bio_;
  std::unordered_map<uint64_t, std::vector<ArrowEnd>> waiting_for_request_;
  Recent ended_bios_, ended_requests_;
  size_t waiting_ = 0, waiting_at_most_ = 0;
};

}  // namespace iotap::report
