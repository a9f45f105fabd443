#include "iotap/report/perfetto.h"

#include <algorithm>
#include <utility>

#include "html_parts.h"
#include "perfetto/events.h"

namespace iotap::report {
namespace {

// The text handed to the sink at a time: few writes, little held.
constexpr size_t kPieceBytes = size_t{64} * 1024;
// The slices remembered after they ended, of each kind, for an arrow whose start ended first.
constexpr size_t kRecentSlices = 4096;

// Where an arrow starts inside its slice: the child's start, kept within the slice's span so
// that the arrow binds to it (Perfetto binds a flow to the slice enclosing it).
uint64_t within(uint64_t ts, uint64_t start, uint64_t end) {
  return std::clamp(ts, start, std::max(start, end));
}

}  // namespace

void PerfettoTrace::Recent::remember(uint64_t id, const Span& span) {
  spans[id] = span;
  order.push_back(id);
  if (order.size() > kRecentSlices) {
    spans.erase(order.front());
    order.pop_front();
  }
}

PerfettoTrace::PerfettoTrace(Sink sink, std::string title)
    : sink_(std::move(sink)), title_(std::move(title)) {}

// The trace's start: the list's opening and the program's process, named by the title.
void PerfettoTrace::start() {
  started_ = true;
  text_ += "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  perfetto::name_event(next_event(), "process_name", perfetto::kProgramPid, 0, title_);
  perfetto::sort_index_event(next_event(), perfetto::kProgramPid, 0);
}

std::string& PerfettoTrace::next_event() {
  if (!started_) start();
  if (text_.size() >= kPieceBytes) {
    sink_(text_);
    text_.clear();
  }
  if (!first_event_) text_ += ",\n";
  first_event_ = false;
  return text_;
}

PerfettoTrace::Device& PerfettoTrace::device(std::string_view name, std::string_view spec) {
  const auto found = devices_.find(std::string(name));
  if (found != devices_.end()) return found->second;
  ++next_device_;
  Device& made = devices_[std::string(name)];
  made.pid = perfetto::kFirstDevicePid + next_device_ - 1;
  const std::string shown =
      spec.empty() ? std::string(name) : std::string(name) + " " + std::string(spec);
  perfetto::name_event(next_event(), "process_name", made.pid, 0, shown);
  perfetto::sort_index_event(next_event(), made.pid, next_device_);
  return made;
}

void PerfettoTrace::name_thread(int32_t tid, const std::string& name) {
  if (named_threads_.insert(tid).second)
    perfetto::name_event(next_event(), "thread_name", perfetto::kProgramPid, tid, name);
}

void PerfettoTrace::set_stack(const std::vector<StackDevice>& devices) {
  for (const auto& stacked : devices) device(stacked.name, stacked.spec);
}

void PerfettoTrace::add(const engine::FinishedRequest& request) {
  // USDT requests carry the program's own thread index; system calls the tid again.
  if (!named_threads_.contains(request.tid))
    name_thread(request.tid, request.thread != request.tid
                                 ? "thread " + std::to_string(request.thread) + " (tid " +
                                       std::to_string(request.tid) + ")"
                                 : "tid " + std::to_string(request.tid));
  perfetto::request_slice(next_event(), request);
  const Span span{perfetto::kProgramPid, request.tid, request.start_ns,
                  request.start_ns + request.latency_ns};
  arrows_waiting_for(request.id, span, waiting_for_request_);
  ended_requests_.remember(request.id, span);
}

void PerfettoTrace::add(const engine::FinishedLevelRequest& request) {
  if (!named_threads_.contains(request.tid))
    name_thread(request.tid, "tid " + std::to_string(request.tid));
  perfetto::level_slice(next_event(), request);
}

void PerfettoTrace::add(const engine::FinishedBio& bio) {
  Device& on = device(bio.device, "");
  // The first lane free at the bio's start takes it; strictly after its last slice's end:
  // slices that touch on one track would leave an arrow's end two slices to bind to.
  auto lane = std::ranges::find_if(on.lane_ends, [&](uint64_t end) { return end < bio.start_ns; });
  if (lane == on.lane_ends.end()) {
    on.lane_ends.push_back(0);
    lane = on.lane_ends.end() - 1;
    const int number = static_cast<int>(on.lane_ends.size());
    perfetto::name_event(next_event(), "thread_name", on.pid, number,
                         std::string(bio.device) + " lane " + std::to_string(number));
  }
  *lane = std::max(bio.end_ns, bio.start_ns);
  const int tid = static_cast<int>(lane - on.lane_ends.begin()) + 1;
  perfetto::bio_slice(next_event(), bio, on.pid, tid, bio_name(bio));
  const Span span{on.pid, tid, bio.start_ns, bio.end_ns};
  arrows_waiting_for(bio.id, span, waiting_for_bio_);
  ended_bios_.remember(bio.id, span);
  const ArrowEnd to{bio.id, bio.start_ns, on.pid, tid};
  if (bio.parent_id != 0) {
    arrow_from(bio.parent_id, to, ended_bios_, waiting_for_bio_);
  } else if (bio.request_id != 0) {
    arrow_from(bio.request_id, to, ended_requests_, waiting_for_request_);
  }
}

void PerfettoTrace::draw(const Span& from, const ArrowEnd& to) {
  perfetto::flow_event(next_event(), 's', to.bio, from.pid, from.tid,
                       within(to.ts, from.start, from.end));
  perfetto::flow_event(next_event(), 'f', to.bio, to.pid, to.tid, to.ts);
}

// "bio 4.0 KiB", made once per size: a timeline has millions of bios and few sizes.
std::string PerfettoTrace::bio_name(const engine::FinishedBio& bio) {
  auto [at, made] = bio_names_.try_emplace(bio.bytes);
  if (made) at->second = "bio " + html_parts::bytes(static_cast<double>(bio.bytes));
  return bio.error == 0 ? at->second : at->second + " error " + std::to_string(bio.error);
}

void PerfettoTrace::arrow_from(uint64_t from_id, const ArrowEnd& to, const Recent& ended,
                               std::unordered_map<uint64_t, std::vector<ArrowEnd>>& waiting) {
  if (const auto found = ended.spans.find(from_id); found != ended.spans.end()) {
    draw(found->second, to);
    return;
  }
  waiting[from_id].push_back(to);
  waiting_at_most_ = std::max(waiting_at_most_, ++waiting_);
}

void PerfettoTrace::arrows_waiting_for(
    uint64_t id, const Span& span, std::unordered_map<uint64_t, std::vector<ArrowEnd>>& waiting) {
  const auto found = waiting.find(id);
  if (found == waiting.end()) return;
  for (const ArrowEnd& to : found->second) draw(span, to);
  waiting_ -= found->second.size();
  waiting.erase(found);
}

void PerfettoTrace::finish() {
  if (!started_) start();
  text_ += "\n]}\n";
  sink_(text_);
  text_.clear();
}

}  // namespace iotap::report
