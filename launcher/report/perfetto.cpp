#include "iotap/report/perfetto.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "html_parts.h"

namespace iotap::report {
namespace {

using Json = nlohmann::ordered_json;

// The program's threads are one process; each device is a process of its own after it.
constexpr int kProgramPid = 1;
constexpr int kFirstDevicePid = 100;

double microseconds(uint64_t ns, uint64_t origin) {
  return static_cast<double>(ns - std::min(ns, origin)) / 1000.0;
}

Json metadata(const char* what, int pid, int tid, const Json& args) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

// Where a flow's end lies inside its slice: the child's start, kept within its parent's span so
// that the arrow binds to the parent's slice (Perfetto binds a flow to the slice enclosing it).
uint64_t within(uint64_t ts, uint64_t start, uint64_t end) {
  return std::clamp(ts, start, std::max(start, end));
}

}  // namespace

void PerfettoTrace::set_stack(const std::vector<StackDevice>& devices) {
  stack_ = devices;
}

void PerfettoTrace::add(const engine::FinishedRequest& request) {
  requests_.push_back({request.id, request.start_ns, request.start_ns + request.latency_ns,
                       request.offset, request.size, request.tid, request.thread, request.result,
                       request.op, std::string(request.call)});
}

void PerfettoTrace::add(const engine::FinishedBio& bio) {
  bios_.push_back({bio.id, bio.parent_id, bio.request_id, bio.start_ns, bio.end_ns, bio.sector,
                   bio.bytes, bio.dev, bio.error, bio.io, std::string(bio.device)});
}

std::string PerfettoTrace::json(std::string_view title) const {
  uint64_t origin = UINT64_MAX;
  for (const auto& request : requests_) origin = std::min(origin, request.start_ns);
  for (const auto& bio : bios_) origin = std::min(origin, bio.start_ns);
  Json events = Json::array();

  // The program: a track per thread, a slice per request.
  events.push_back(metadata("process_name", kProgramPid, 0, {{"name", std::string(title)}}));
  events.push_back(metadata("process_sort_index", kProgramPid, 0, {{"sort_index", 0}}));
  std::unordered_map<uint64_t, const Request*> request_by_id;
  std::unordered_map<int32_t, bool> named_threads;
  for (const auto& request : requests_) {
    request_by_id[request.id] = &request;
    if (!named_threads.emplace(request.tid, true).second) continue;
    // USDT requests carry the program's own thread index; system calls the tid again.
    const std::string name = request.thread != request.tid
                                 ? "thread " + std::to_string(request.thread) + " (tid " +
                                       std::to_string(request.tid) + ")"
                                 : "tid " + std::to_string(request.tid);
    events.push_back(metadata("thread_name", kProgramPid, request.tid, {{"name", name}}));
  }
  for (const auto& request : requests_) {
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

  // The devices: the stack's in its order, then any other a bio was on.
  std::vector<std::string> devices;
  std::unordered_map<std::string, std::string> spec_of;
  for (const auto& device : stack_) {
    devices.push_back(device.name);
    spec_of[device.name] = device.spec;
  }
  for (const auto& bio : bios_)
    if (std::ranges::find(devices, bio.device) == devices.end()) devices.push_back(bio.device);
  std::unordered_map<std::string, int> pid_of;
  for (size_t i = 0; i < devices.size(); ++i) {
    const int pid = kFirstDevicePid + static_cast<int>(i);
    pid_of[devices[i]] = pid;
    const std::string& spec = spec_of[devices[i]];
    events.push_back(metadata("process_name", pid, 0,
                              {{"name", spec.empty() ? devices[i] : devices[i] + " " + spec}}));
    events.push_back(
        metadata("process_sort_index", pid, 0, {{"sort_index", static_cast<int>(i) + 1}}));
  }

  // Each device's bios on lanes: the first lane free at a bio's start takes it.
  std::vector<size_t> order(bios_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::sort(order, [this](size_t a, size_t b) {
    return std::tie(bios_[a].start_ns, bios_[a].id) < std::tie(bios_[b].start_ns, bios_[b].id);
  });
  std::unordered_map<std::string, std::vector<uint64_t>> lane_ends;  // by device
  std::unordered_map<uint64_t, std::pair<int, int>> track_of;        // bio id: pid, tid
  for (const size_t i : order) {
    const Bio& bio = bios_[i];
    auto& ends = lane_ends[bio.device];
    size_t lane = 0;
    // Strictly after: slices that touch on one track would leave a flow's end two slices to bind
    // to.
    while (lane < ends.size() && ends[lane] >= bio.start_ns) ++lane;
    if (lane == ends.size()) {
      ends.push_back(0);
      events.push_back(metadata("thread_name", pid_of[bio.device], static_cast<int>(lane) + 1,
                                {{"name", bio.device + " lane " + std::to_string(lane + 1)}}));
    }
    ends[lane] = std::max(bio.end_ns, bio.start_ns);
    const int pid = pid_of[bio.device];
    const int tid = static_cast<int>(lane) + 1;
    track_of[bio.id] = {pid, tid};
    Json args = {{"bio", bio.id},
                 {"sector", bio.sector},
                 {"bytes", bio.bytes},
                 {"request", bio.request_id},
                 {"error", bio.error}};
    // A split part, or the first stage of a bio remapped as itself: not an io of the device.
    if (!bio.io) args["io"] = false;
    std::string name = "bio " + html_parts::bytes(static_cast<double>(bio.bytes));
    if (bio.error != 0) name += " error " + std::to_string(bio.error);
    events.push_back({{"ph", "X"},
                      {"cat", "bio"},
                      {"name", name},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", microseconds(bio.start_ns, origin)},
                      {"dur", microseconds(bio.end_ns, bio.start_ns)},
                      {"args", args}});
  }

  // The arrows: request to root bio, bio to the bios made from it. A flow's id is the bio it
  // ends at (each bio has one way in).
  std::unordered_map<uint64_t, const Bio*> bio_by_id;
  for (const auto& bio : bios_) bio_by_id[bio.id] = &bio;
  for (const auto& bio : bios_) {
    int from_pid = 0;
    int from_tid = 0;
    uint64_t from_ts = 0;
    if (bio.parent_id != 0) {
      const auto parent = bio_by_id.find(bio.parent_id);
      if (parent == bio_by_id.end()) continue;  // its parent never ended in the stream
      std::tie(from_pid, from_tid) = track_of[bio.parent_id];
      from_ts = within(bio.start_ns, parent->second->start_ns, parent->second->end_ns);
    } else if (bio.request_id != 0) {
      const auto request = request_by_id.find(bio.request_id);
      if (request == request_by_id.end()) continue;  // the request never ended
      from_pid = kProgramPid;
      from_tid = request->second->tid;
      from_ts = within(bio.start_ns, request->second->start_ns, request->second->end_ns);
    } else {
      continue;  // block I/O no request caused
    }
    const auto [to_pid, to_tid] = track_of[bio.id];
    events.push_back({{"ph", "s"},
                      {"cat", "flow"},
                      {"name", "bio"},
                      {"id", bio.id},
                      {"pid", from_pid},
                      {"tid", from_tid},
                      {"ts", microseconds(from_ts, origin)}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"cat", "flow"},
                      {"name", "bio"},
                      {"id", bio.id},
                      {"pid", to_pid},
                      {"tid", to_tid},
                      {"ts", microseconds(bio.start_ns, origin)}});
  }
  const Json trace{{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
  // The title is the -c command line as the user typed it: replace bytes that are not UTF-8.
  return trace.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace iotap::report
