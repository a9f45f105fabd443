#pragma once
// A run's requests and bios as a timeline that ui.perfetto.dev (and chrome://tracing) opens:
// Chrome's trace-event JSON. One track per thread of the program, its requests as slices (a
// provider's requests too: a query's slice over its buffer reads' over their system calls'); one
// process per device of the stack, top first, its bios as slices on as many lanes as were in
// flight at once (a device serves many bios at a time; slices on one track must nest); and flow
// arrows from each request to the root bios it queued, and from each bio to the bios split or
// remapped from it, down to the member disks. The joins are the engine's own
// (engine::FinishedBio's parent_id and request_id).
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "iotap/stack.h"

namespace iotap::report {

class PerfettoTrace {
 public:
  // The stack's devices, for their order and descriptions; bios on other devices come after.
  void set_stack(const std::vector<StackDevice>& devices);
  // engine::Options::finished_request and finished_bio: every request and bio as it ends.
  void add(const engine::FinishedRequest& request);
  void add(const engine::FinishedBio& bio);
  // engine::Options::finished_level_request: a provider's request (a query), a slice on its
  // thread's track over the I/O inside it.
  void add(const engine::FinishedLevelRequest& request);
  // The trace, `title` naming the program's process (what was traced).
  [[nodiscard]] std::string json(std::string_view title) const;

  // What the trace keeps of each (report/perfetto/ writes them out, a section per file).
  struct Request {
    uint64_t id, start_ns, end_ns, offset, size;
    int32_t tid, thread;
    int64_t result;
    char op;
    std::string call;
  };
  struct LevelRequest {
    uint64_t id, start_ns, end_ns, file, offset, size;
    int32_t tid;
    uint32_t level;
    int64_t result;
    std::string name, text;
  };
  struct Bio {
    uint64_t id, parent_id, request_id, start_ns, end_ns, sector, bytes;
    uint32_t dev;
    int32_t error;
    bool io;
    std::string device;
  };

 private:
  std::vector<StackDevice> stack_;
  std::vector<Request> requests_;
  std::vector<LevelRequest> levels_;
  std::vector<Bio> bios_;
};

}  // namespace iotap::report
