#include <string>
#include <unordered_map>

#include "html_parts.h"
#include "sections.h"

namespace iotap::report::perfetto {

// The program: a track per thread, a slice per request.
void program(const std::vector<Request>& requests, std::string_view title, uint64_t origin,
             Json& events) {
  events.push_back(metadata("process_name", kProgramPid, 0, {{"name", std::string(title)}}));
  events.push_back(metadata("process_sort_index", kProgramPid, 0, {{"sort_index", 0}}));
  std::unordered_map<int32_t, bool> named_threads;
  for (const auto& request : requests) {
    if (!named_threads.emplace(request.tid, true).second) continue;
    // USDT requests carry the program's own thread index; system calls the tid again.
    const std::string name = request.thread != request.tid
                                 ? "thread " + std::to_string(request.thread) + " (tid " +
                                       std::to_string(request.tid) + ")"
                                 : "tid " + std::to_string(request.tid);
    events.push_back(metadata("thread_name", kProgramPid, request.tid, {{"name", name}}));
  }
  for (const auto& request : requests) {
    events.push_back(
        {{"ph", "X"},
         {"cat", "request"},
         {"name", request.call + " " + html_parts::bytes(static_cast<double>(request.size))},
         {"pid", kProgramPid},
         {"tid", request.tid},
         {"ts", microseconds(request.start_ns, origin)},
         {"dur", microseconds(request.end_ns, request.start_ns)},
         {"args",
          {{"request", request.id},
           {"offset", request.offset},
           {"size", request.size},
           {"result", request.result}}}});
  }
}

}  // namespace iotap::report::perfetto
