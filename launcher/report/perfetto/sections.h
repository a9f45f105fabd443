#pragma once
// The sections of PerfettoTrace::json's trace-event list, one writer each, in the order it calls
// them: the program (its process, a track per thread, a slice per request), the devices (a
// process each), the bios (slices on lanes of their device) and the flows (arrows from a request
// to its root bios and from a bio to the bios made from it). Each appends to `events`.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "iotap/report/perfetto.h"
#include "iotap/util/json_text.h"

namespace iotap::report::perfetto {

using Request = PerfettoTrace::Request;
using Bio = PerfettoTrace::Bio;
using LevelRequest = PerfettoTrace::LevelRequest;

// The program's threads are one process; each device is a process of its own after it.
inline constexpr int kProgramPid = 1;
inline constexpr int kFirstDevicePid = 100;

// `ns` in microseconds after `origin` (0 before it): the trace's first request or bio.
inline double microseconds(uint64_t ns, uint64_t origin) {
  return static_cast<double>(ns - std::min(ns, origin)) / 1000.0;
}

// A metadata event ("M"): `what` is process_name, process_sort_index or thread_name.
inline Json metadata(const char* what, int pid, int tid, const Json& args) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

// The track (pid, tid) each bio's slice is on, by bio id.
using BioTracks = std::unordered_map<uint64_t, std::pair<int, int>>;

// A provider's requests go on their threads' tracks too, enclosing the I/O inside them: a
// flow from a request binds to the innermost slice at its start, the request's own.
void program(const std::vector<Request>& requests, const std::vector<LevelRequest>& levels,
             std::string_view title, uint64_t origin, Json& events);
// The process of each device by name: the stack's in its order, then any other a bio was on.
std::unordered_map<std::string, int> devices(const std::vector<StackDevice>& stack,
                                             const std::vector<Bio>& bios, Json& events);
BioTracks bios(const std::vector<Bio>& bios, const std::unordered_map<std::string, int>& pid_of,
               uint64_t origin, Json& events);
void flows(const std::vector<Request>& requests, const std::vector<Bio>& bios,
           const BioTracks& tracks, uint64_t origin, Json& events);

}  // namespace iotap::report::perfetto
