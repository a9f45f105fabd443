#include <tuple>

#include "sections.h"

namespace iotap::report::perfetto {
namespace {

// Where a flow's end lies inside its slice: the child's start, kept within its parent's span so
// that the arrow binds to the parent's slice (Perfetto binds a flow to the slice enclosing it).
uint64_t within(uint64_t ts, uint64_t start, uint64_t end) {
  return std::clamp(ts, start, std::max(start, end));
}

struct FlowStart {
  int pid = 0, tid = 0;
  uint64_t ts = 0;
};

}  // namespace

// The arrows: request to root bio, bio to the bios made from it. A flow's id is the bio it ends
// at (each bio has one way in).
void flows(const std::vector<Request>& requests, const std::vector<Bio>& bios,
           const BioTracks& tracks, uint64_t origin, Json& events) {
  std::unordered_map<uint64_t, const Request*> request_by_id;
  for (const auto& request : requests) request_by_id[request.id] = &request;
  std::unordered_map<uint64_t, const Bio*> bio_by_id;
  for (const auto& bio : bios) bio_by_id[bio.id] = &bio;
  for (const auto& bio : bios) {
    FlowStart from;
    if (bio.parent_id != 0) {
      const auto parent = bio_by_id.find(bio.parent_id);
      if (parent == bio_by_id.end()) continue;  // its parent never ended in the stream
      std::tie(from.pid, from.tid) = tracks.at(bio.parent_id);
      from.ts = within(bio.start_ns, parent->second->start_ns, parent->second->end_ns);
    } else if (bio.request_id != 0) {
      const auto request = request_by_id.find(bio.request_id);
      if (request == request_by_id.end()) continue;  // the request never ended
      from = {kProgramPid, request->second->tid,
              within(bio.start_ns, request->second->start_ns, request->second->end_ns)};
    } else {
      continue;  // block I/O no request caused
    }
    const auto [to_pid, to_tid] = tracks.at(bio.id);
    events.push_back({{"ph", "s"},
                      {"cat", "flow"},
                      {"name", "bio"},
                      {"id", bio.id},
                      {"pid", from.pid},
                      {"tid", from.tid},
                      {"ts", microseconds(from.ts, origin)}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"cat", "flow"},
                      {"name", "bio"},
                      {"id", bio.id},
                      {"pid", to_pid},
                      {"tid", to_tid},
                      {"ts", microseconds(bio.start_ns, origin)}});
  }
}

}  // namespace iotap::report::perfetto
