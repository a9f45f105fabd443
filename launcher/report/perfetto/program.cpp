#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "html_parts.h"
#include "sections.h"

namespace iotap::report::perfetto {

// The program: a track per thread, a slice per request.
void program(const std::vector<Request>& requests, const std::vector<LevelRequest>& levels,
             std::string_view title, uint64_t origin, Json& events) {
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
  for (const auto& level : levels) {
    if (named_threads.emplace(level.tid, true).second)
      events.push_back(metadata("thread_name", kProgramPid, level.tid,
                                {{"name", "tid " + std::to_string(level.tid)}}));
  }
  // They end innermost first; written outermost first, so that a viewer that nests by order as
  // well as by time sees each slice after the one enclosing it.
  std::vector<const LevelRequest*> by_start;
  by_start.reserve(levels.size());
  for (const auto& level : levels) by_start.push_back(&level);
  std::ranges::stable_sort(by_start, [](const LevelRequest* a, const LevelRequest* b) {
    return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->level < b->level;
  });
  for (const LevelRequest* at : by_start) {
    const LevelRequest& level = *at;
    // A query's name is its text (shortened), as a DBA knows it; the rest its level's name.
    const std::string name =
        level.text.empty() ? level.name : level.name + ": " + level.text.substr(0, 60);
    events.push_back({{"ph", "X"},
                      {"cat", "level"},
                      {"name", name},
                      {"pid", kProgramPid},
                      {"tid", level.tid},
                      {"ts", microseconds(level.start_ns, origin)},
                      {"dur", microseconds(level.end_ns, level.start_ns)},
                      {"args",
                       {{"level", level.name},
                        {"level_request", level.id},
                        {"file", level.file},
                        {"offset", level.offset},
                        {"result", level.result},
                        {"text", level.text}}}});
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
