#include "iotap/report/perfetto.h"

#include <algorithm>

#include "perfetto/sections.h"

namespace iotap::report {

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

void PerfettoTrace::add(const engine::FinishedLevelRequest& request) {
  levels_.push_back({request.id, request.start_ns, request.start_ns + request.latency_ns,
                     request.file, request.offset, request.size, request.tid, request.level,
                     request.result, std::string(request.name), std::string(request.text)});
}

// One writer per section (perfetto/): this is their order.
std::string PerfettoTrace::json(std::string_view title) const {
  uint64_t origin = UINT64_MAX;
  for (const auto& request : requests_) origin = std::min(origin, request.start_ns);
  for (const auto& bio : bios_) origin = std::min(origin, bio.start_ns);
  for (const auto& level : levels_) origin = std::min(origin, level.start_ns);
  Json events = Json::array();
  perfetto::program(requests_, levels_, title, origin, events);
  const auto pid_of = perfetto::devices(stack_, bios_, events);
  const perfetto::BioTracks tracks = perfetto::bios(bios_, pid_of, origin, events);
  perfetto::flows(requests_, bios_, tracks, origin, events);
  const Json trace{{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
  // The title is the -c command line as the user typed it: replace bytes that are not UTF-8.
  return trace.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace iotap::report
