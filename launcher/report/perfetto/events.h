#pragma once
// The trace events PerfettoTrace writes, one maker each, appended to the trace's text: metadata
// naming a process or a thread, a complete slice ("X") per request, provider request and bio,
// and the two halves of a flow arrow ("s" where it starts, "f" bound to the slice it ends in).
// Written as text, not built as JSON values: a run's timeline is millions of events.
#include <cstdint>
#include <string>
#include <string_view>

#include "iotap/engine.h"

namespace iotap::report::perfetto {

// The program's threads are one process; each device is a process of its own after it.
inline constexpr int kProgramPid = 1;
inline constexpr int kFirstDevicePid = 100;

// A metadata event ("M"): process_name or thread_name, `name` its args' name.
void name_event(std::string& out, const char* what, int pid, int tid, std::string_view name);
void sort_index_event(std::string& out, int pid, int sort_index);
void request_slice(std::string& out, const engine::FinishedRequest& request);
void level_slice(std::string& out, const engine::FinishedLevelRequest& request);
// `name`: what the slice shows ("bio 4.0 KiB").
void bio_slice(std::string& out, const engine::FinishedBio& bio, int pid, int tid,
               std::string_view name);
// One half of the arrow `id` (the bio it ends at: each has one way in): 's' where it starts, on
// (pid, tid) at `ts_ns`, or 'f' where it ends, bound to the slice enclosing `ts_ns` there.
void flow_event(std::string& out, char phase, uint64_t id, int pid, int tid, uint64_t ts_ns);

}  // namespace iotap::report::perfetto
