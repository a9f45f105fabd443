// The pipeline: bytes -> lines and records (LineSplitter) -> events (tokenize, decode_record)
// -> one ordered stream (Sorter) -> trackers (RequestTracker, BioTracker; RemapCheck beside
// them) -> Attribution when a read ends -> the verdict and the Result at the end. An event
// travels one way.
#include "iotap/engine.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>

#include "attribution.h"
#include "bio_tracker.h"
#include "level_accounts.h"
#include "level_tracker.h"
#include "record.h"
#include "remap_check.h"
#include "request_tracker.h"
#include "sorter.h"
#include "stack.h"
#include "tokenizer.h"
#include "verdict.h"

namespace iotap::engine {
namespace {

// The number right after `marker` in `line`, or right before it when `before` is set.
bool number_near(std::string_view line, std::string_view marker, bool before, uint64_t& out) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return false;
  if (!before) {
    size_t p = at + marker.size();
    while (p < line.size() && line[p] == ' ') ++p;
    const auto [end, ec] = std::from_chars(line.data() + p, line.data() + line.size(), out);
    return ec == std::errc();
  }
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  const auto [stop, ec] = std::from_chars(line.data() + begin, line.data() + end, out);
  return ec == std::errc() && stop == line.data() + end;
}

}  // namespace

struct Engine::Impl {
  Impl(std::vector<StackDevice> devices, const Options& options)
      : stack(std::move(devices)),
        stats(stack.size()),
        requests(pool),
        bios(pool, stack, stats, requests, options.finished_bio),
        attribution(pool, stack, options.slowest),
        accounts(options.levels, options.slowest),
        levels(accounts,
               [this](const ProviderRequest& dropped) {
                 if (dropped.leaf != 0) this->requests.release(dropped.leaf);
               }),
        remaps(stack),
        sorter(options.reorder_window_ns, options.reorder_window_events),
        request_source(options.requests),
        request_provider(options.request_provider),
        other_line(options.other_line),
        finished_request(options.finished_request),
        finished_level_request(options.finished_level_request) {}

  void line(std::string_view text) {
    Event event;
    const bool record = !text.empty() && text[0] == kRecordMarker;
    const Tokenized t = record ? decode_record(text, event) : tokenize(text, event);
    switch (t.kind) {
      case LineKind::event:
        ++events;
        if (event.kind == Kind::level_text) hold_text(event, t.text);
        first_ts = std::min(first_ts, event.ts);
        last_ts = std::max(last_ts, event.ts);
        sorter.push(event, [this](const Event& e) { dispatch(e); });
        return;
      case LineKind::malformed:
        ++loss.malformed_lines;
        return;
      case LineKind::header:
        ++other_lines;
        return;
      case LineKind::other:
        ++other_lines;
        if (other_line && !record) other_line(text);  // a later version's record: not text
        return;
    }
  }

  void dispatch(const Event& event) {
    bios.before(event);
    switch (event.kind) {
      case Kind::read_start:
        note_request_start(event.ts);
        requests.start(event, usdt_direct || event.direct != 0);
        return;
      case Kind::read_done:
        if (!requests.done(event, [this](const Request& r, uint64_t end, int64_t result) {
              finish_request(r, end, result);
            }))
          ++unmatched_read_ends;
        return;
      case Kind::run_start:
        usdt_direct = event.direct != 0;
        return;
      case Kind::queue:
        bios.queue(event);
        return;
      case Kind::split:
        bios.split(event);
        return;
      case Kind::remap:
        remaps.check(event);
        bios.remap(event);
        return;
      case Kind::complete:
        bios.complete(event);
        return;
      case Kind::rq_issue:
        bios.rq_issue(event);
        return;
      case Kind::rq_complete:
        bios.rq_complete(event);
        return;
      case Kind::sys_start:
        if (!stack.takes_requests(event.dev)) {
          // A call on another file or device (the program's own libraries, its output): not
          // followed, and the thread is in it, not in an earlier call that lost its end.
          requests.abandon_on(event.tid);
          ++requests_elsewhere;
          return;
        }
        release_provider_leaf(event.tid);
        note_request_start(event.ts);
        requests.start_syscall(event);
        return;
      case Kind::sys_done:
        // No call open on the thread: one left out at its start (on a pipe, say), or elsewhere.
        requests.done_on_thread(event, [this](const Request& r, uint64_t end, int64_t result) {
          finish_request(r, end, result);
        });
        return;
      case Kind::level_begin:
        begin_level(event);
        return;
      case Kind::level_text:
        if (const auto it = texts.find(event.parent); it != texts.end()) {
          levels.text(event, it->second);
          texts.erase(it);
        }
        return;
      case Kind::level_end:
        end_level(event);
        return;
    }
  }

  // PT's text waits beside the sorter, which copies events, until its event comes out.
  void hold_text(Event& event, std::string_view text) {
    event.parent = ++texts_held;
    texts.emplace(event.parent, std::string(text.substr(0, kTextBytes)));
  }

  void begin_level(const Event& event) {
    ProviderRequest* request = levels.begin(event);
    if (request == nullptr) {
      ++loss.malformed_lines;  // a LEVEL the provider does not have
      return;
    }
    // The deepest level's I/O is the leaf I/O while the stream shows no system calls inside it.
    if (accounts.deepest(event.level) && event.rw != '-' && !syscall_leaves &&
        requests.open_on(event.tid) == nullptr) {
      note_request_start(event.ts);
      request->leaf = requests.start_provider_leaf(event);
    }
  }

  void end_level(const Event& event) {
    const auto place = levels.find(event);
    if (!place) {
      ++unmatched_read_ends;
      return;
    }
    if (const uint64_t leaf = levels.at(*place).leaf; leaf != 0) {
      Event done = event;
      done.id = leaf;
      requests.done(done, [this](const Request& r, uint64_t end, int64_t result) {
        finish_request(r, end, result);
      });
    }
    if (finished_level_request) report_level_request(levels.at(*place), event);
    levels.end(*place, event.ts, event.value);
  }

  void report_level_request(const ProviderRequest& r, const Event& end) const {
    FinishedLevelRequest f;
    f.id = r.id;
    f.tid = r.tid;
    f.level = r.level;
    f.name = accounts.level(r.level).name;
    f.op = r.op;
    f.file = r.file;
    f.offset = r.offset;
    f.size = r.size;
    f.result = end.value;
    f.start_ns = r.start;
    f.latency_ns = end.ts > r.start ? end.ts - r.start : 0;
    f.text = r.text;
    finished_level_request(f);
  }

  // A system call inside a provider request that was taken for the leaf I/O: from here on the
  // system calls are the leaves.
  void release_provider_leaf(int32_t tid) {
    const Request* open = requests.open_on(tid);
    if (open == nullptr || !open->provider) return;
    syscall_leaves = true;
    const uint64_t leaf = open->id;
    requests.release(leaf);
    levels.forget_leaf(tid, leaf);
  }

  // Events come in time order: the first request seen to start started first.
  void note_request_start(uint64_t ts) {
    if (!first_request_start) first_request_start = ts;
  }

  void finish_request(const Request& r, uint64_t end, int64_t result) {
    const LeafOutcome outcome = attribution.finish(r, end, result);
    levels.add_leaf(r.tid, r.op, outcome, [&] { return attribution.waterfall_of(r, end, result); });
    if (!finished_request) return;
    FinishedRequest f;
    f.id = r.id;
    f.tid = r.tid;
    f.thread = r.thread;
    f.op = r.op;
    f.call = call_name(r);
    f.offset = r.offset;
    f.size = r.size;
    f.result = result;
    f.start_ns = r.start;
    f.latency_ns = end > r.start ? end - r.start : 0;
    f.dev = r.dev;
    if (r.syscall < 0 && !r.roots.empty()) {
      const uint32_t device = pool[r.roots.front()].device;
      if (device != kNoDevice) f.dev = stack[device].info.dev;
    }
    f.direct = r.direct;
    f.first_start_ns = first_request_start.value_or(r.start);
    finished_request(f);
  }

  Result finish() {
    splitter.finish([this](std::string_view text) { line(text); });
    sorter.flush([this](const Event& e) { dispatch(e); });
    bios.settle_all();
    levels.finish();

    Result result;
    result.events = events;
    result.span_ns = events > 0 && last_ts > first_ts ? last_ts - first_ts : 0;
    result.request_source = request_source;
    result.request_provider = request_provider;
    result.requests = latency_of(attribution.latency());
    result.request_errors = attribution.errors();
    result.request_kinds = attribution.kinds();
    result.requests_without_block_io = attribution.without_block_io();
    result.unrequested = bios.unrequested();
    result.layers = attribution.layers();
    result.slowest = attribution.slowest();
    stats.resize(stack.size());
    for (size_t i = 0; i < stack.size(); ++i) {
      const Device& device = stack[i];
      const DeviceStats& s = stats[i];
      if (!device.in_stack && s.ios == 0 && s.service.count() == 0) continue;
      DeviceResult d;
      d.name = device.info.name;
      d.spec = device.info.spec;
      d.parent = device.info.parent;
      d.dev = device.info.dev;
      d.ios = s.ios;
      d.bytes = s.bytes;
      d.errors = s.errors;
      d.latency = latency_of(s.latency);
      d.exclusive_us = s.ios == 0 ? 0 : s.exclusive_ns / static_cast<double>(s.ios) / 1000;
      d.service = latency_of(s.service);
      result.devices.push_back(std::move(d));
    }
    if (accounts.has_levels()) {
      // The outermost level is the unit the user reads.
      result.levels = accounts.results();
      result.requests = latency_of(accounts.outer_latency());
      result.request_errors = accounts.outer_errors();
      result.slowest = accounts.slowest();
      result.slowest_time = accounts.slowest_time(kSlowestFraction);
      result.slow_members = find_slow_members(stack, stats, accounts);
    } else {
      result.slow_members = find_slow_members(stack, stats, attribution);
    }
    result.failing_members = find_failing_members(stack, stats);

    result.loss = loss;
    result.loss.sequence_gaps = sorter.stats().sequence_gaps;
    result.loss.events_lost = sorter.stats().events_lost;
    result.loss.unmatched_completions = bios.stats().unmatched_completions + unmatched_read_ends;
    result.stream.other_lines = other_lines;
    result.stream.late_events = sorter.stats().late_events;
    result.stream.untraced_split_completions = bios.stats().untraced_split_completions;
    result.stream.abandoned_bios = bios.stats().abandoned;
    result.stream.bios_in_flight = bios.in_flight();
    result.stream.requests_unfinished = requests.open() + requests.abandoned();
    result.stream.requests_elsewhere = requests_elsewhere;
    result.stream.peak_held = pool.capacity();  // freed nodes are reused before it grows
    result.remap_check.checked = remaps.checked();
    result.remap_check.mismatches = remaps.mismatches();
    result.remap_check.examples = remaps.examples();
    return result;
  }

  Stack stack;
  std::vector<DeviceStats> stats;
  BioPool pool;
  RequestTracker requests;
  BioTracker bios;
  Attribution attribution;
  LevelAccounts accounts;
  LevelTracker levels;
  std::unordered_map<uint64_t, std::string> texts;  // PT's, by number, until dispatched
  uint64_t texts_held = 0;
  bool syscall_leaves = false;  // a system call was seen inside a provider leaf
  RemapChecker remaps;
  Sorter sorter;
  LineSplitter splitter;
  Loss loss;
  uint64_t events = 0;
  uint64_t first_ts = UINT64_MAX;
  uint64_t last_ts = 0;
  uint64_t other_lines = 0;
  uint64_t unmatched_read_ends = 0;
  uint64_t requests_elsewhere = 0;
  RequestSource request_source;
  std::string request_provider;
  std::function<void(std::string_view)> other_line;
  std::function<void(const FinishedRequest&)> finished_request;
  std::function<void(const FinishedLevelRequest&)> finished_level_request;
  bool usdt_direct = false;  // RB: block_hasher reads with O_DIRECT
  std::optional<uint64_t> first_request_start;
};

const char* to_string(RequestSource source) {
  return source == RequestSource::syscall ? "syscall" : "usdt";
}

Engine::Engine(std::vector<StackDevice> stack, const Options& options)
    : impl_(std::make_unique<Impl>(std::move(stack), options)) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::feed(std::string_view bytes) {
  impl_->splitter.feed(
      bytes, [this](std::string_view line) { impl_->line(line); },
      [this] { ++impl_->other_lines; });
}

void Engine::note_stap_warning(std::string_view line) {
  uint64_t n = 0;
  if (number_near(line, "skipped probes:", false, n)) impl_->loss.skipped_probes += n;
  if (number_near(line, "transport failures", true, n)) impl_->loss.transport_failures += n;
}

Result Engine::finish() {
  return impl_->finish();
}

}  // namespace iotap::engine
