#pragma once
// The correlation engine: the event stream of docs/event-format.md in, per-request, per-layer
// and per-device results out. This header is the engine's whole public face; docs/engine.md
// describes the pipeline behind it and what each number means.
//
//   iotap::engine::Engine engine(stack, {});
//   engine.feed(chunk);                // as often as bytes arrive, cut anywhere
//   engine.note_stap_warning(line);    // SystemTap's WARNING lines from stderr
//   iotap::engine::Result result = engine.finish();
//
// Memory is bounded by what is in flight (open requests, bios not yet completed, the reorder
// window), never by the length of the stream.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iotap/stack.h"

namespace iotap::engine {

// Where the user-level requests come from: the program's USDT probes (RS/RD: block_hasher's
// reads) or its I/O system calls (SS/SD, any program). The stream says which by its events;
// the caller says which it asked for, for the report's wording.
enum class RequestSource : uint8_t { usdt, syscall };
const char* to_string(RequestSource source);  // "usdt", "syscall"

// One request as it ended, for a caller that keeps every request (iotap record).
struct FinishedRequest {
  uint64_t id = 0;
  int32_t tid = 0;
  int32_t thread = 0;     // USDT: the program's thread index; system calls: the tid
  char op = 'R';          // R, W or F (fsync, fdatasync)
  std::string_view call;  // the system call ("pread64"), or "read" for a USDT read
  uint64_t offset = 0, size = 0;
  int64_t result = 0;  // bytes, or -errno
  uint64_t start_ns = 0, latency_ns = 0;
  // The device it went to: the file's (system calls), or the top device of its first bio (USDT
  // reads); 0 when not known (a USDT read served without block I/O).
  uint32_t dev = 0;
  bool direct = false;  // O_DIRECT (SS's DIRECT; USDT: block_hasher's run, from RB)
  // When the stream's first request started (events are merged in time order, so no request
  // ends that started before it): the origin of a recording's times.
  uint64_t first_start_ns = 0;
};

// One bio as it ended, for a caller that keeps every bio (--perfetto): the bios a request turned
// into form a tree, root bios on the top device, the parts split from them and the bios md and
// dm sent on to their members below them.
struct FinishedBio {
  uint64_t id = 0;          // unique in the stream, from 1, in the order the bios were seen
  uint64_t parent_id = 0;   // the bio it was split or remapped from; 0 for a root
  uint64_t request_id = 0;  // the request it belongs to (FinishedRequest::id); 0: none
  uint32_t dev = 0;
  std::string_view device;  // its name ("md0", "ram3")
  uint64_t sector = 0, bytes = 0;
  uint64_t start_ns = 0, end_ns = 0;
  int32_t error = 0;
  // It counts as an io on its device (DeviceResult::ios): a part split from a bio does not,
  // nor the first stage of a bio md or dm remapped as itself.
  bool io = false;
};

// One level of a provider's requests, outermost first ("query", "queries"): PB, PT and PE
// name it by its index in this list.
struct RequestLevel {
  std::string name;
  std::string plural;
};

// One request of a provider's (a query, a buffer read) as it ended, for a caller that keeps them
// (--perfetto nests them over the leaf I/O of their thread, whose FinishedRequest comes first).
struct FinishedLevelRequest {
  uint64_t id = 0;  // the provider's requests' own numbering, from 1
  int32_t tid = 0;
  uint32_t level = 0;
  std::string_view name;  // the level's ("query")
  char op = '-';          // R, W, F or -
  uint64_t file = 0, offset = 0, size = 0;
  int64_t result = 0;
  uint64_t start_ns = 0, latency_ns = 0;
  std::string_view text;  // PT's, or empty
};

struct Options {
  size_t slowest = 0;  // waterfalls kept for the N slowest requests
  RequestSource requests = RequestSource::usdt;
  // Whose USDT probes name the requests ("block_hasher", "io_replayer"): the reports say so.
  // Empty: "the program's".
  std::string request_provider = {};
  // The provider's levels, outermost first (docs/engine.md, "Requests inside requests").
  // Empty: no provider levels (a stream with PB events anyway gets levels named by index).
  std::vector<RequestLevel> levels = {};
  uint64_t reorder_window_ns = 50'000'000;  // events are held this long (in event time) ...
  size_t reorder_window_events = 65'536;    // ... or until this many are held, to be merged
  // Optional. Each line of the stream that is neither an event nor the header: the traced
  // program's own output, without its newline, as it arrives (nothing of it is lost).
  std::function<void(std::string_view)> other_line = {};
  // Optional. Each request as it ends, in the order they end (so memory stays flat however
  // many there are).
  std::function<void(const FinishedRequest&)> finished_request = {};
  // Optional. Each bio as it ends (a child before its parent, which ends after it); bios the
  // stream never saw end (abandoned, still in flight) are not given.
  std::function<void(const FinishedBio&)> finished_bio = {};
  // Optional. Each provider request as it ends (those whose end was lost are not given).
  std::function<void(const FinishedLevelRequest&)> finished_level_request = {};
};

struct Latency {
  uint64_t count = 0;
  double mean_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, max_us = 0;
  // The distribution by powers of two: [0] below 1 us, [k] from 2^(k-1) us up to 2^k us, to the
  // highest one used (to within 1%: Histogram::log2_us).
  std::vector<uint64_t> log2_us;
};

struct DeviceResult {
  std::string name, spec, parent;
  uint32_t dev = 0;
  uint64_t ios = 0;  // bios completed on this device (a split part is not a separate io)
  uint64_t bytes = 0;
  uint64_t errors = 0;      // completions with a non-zero block status
  Latency latency;          // queue to completion, per io
  double exclusive_us = 0;  // mean per io of the part not spent in a device below it
  Latency service;          // request-based disks: per request, issue (I) to completion (D);
                            // count 0 for other devices
};

// One step of a waterfall. Stages nest: a member's stage lies inside its array's.
struct Stage {
  std::string layer;   // "before submit", "md", "dm", "member device", "completion back up"
  std::string device;  // empty for before submit and completion back up
  uint64_t start_ns = 0, end_ns = 0;
  // Bios the stage stands for: a request that waited on many root bios one after another (an
  // fsync's writes) shows those with the same path as one stage, first start to last end.
  uint64_t bios = 1;
};

// Where a provider request's time went, summed over the I/O inside it (the leaf I/O:
// docs/engine.md): reads that reached the stack, reads the page cache served, writes (and
// flushes), and the rest: CPU, locks, what its thread did between its I/O.
struct TimeSplit {
  double reads_stack_us = 0, reads_cache_us = 0, writes_us = 0, other_us = 0;
};

struct Waterfall {
  uint64_t request_id = 0;
  int thread = 0;    // USDT: the program's thread index; system calls: the tid
  std::string call;  // the system call ("pread64"), or "read" for a USDT read
  uint64_t offset = 0, size = 0;
  int64_t result = 0;
  uint64_t start_ns = 0;  // the read's start (RS), for reading stages relative to it
  uint64_t latency_ns = 0;
  std::vector<Stage> stages;
  // A provider's request (a query): its level's name and its TEXT, how its time split, the
  // I/O inside it (`leaves`) and the slowest of those (up to kInnerWaterfalls, in time order)
  // with their own stages. Its own `stages` are empty. For a leaf I/O: level empty.
  std::string level;
  std::string text;
  TimeSplit time;
  uint64_t leaves = 0;
  std::vector<Waterfall> inner;
};

// The I/O inside one slow provider request that its waterfall shows.
inline constexpr size_t kInnerWaterfalls = 8;

// A share of the requests' time charged to one layer on their critical paths.
struct Layer {
  std::string name;
  double mean_us = 0;  // per request
  double share = 0;    // of all requests' time, 0..1
};

struct SlowMember {
  std::string name, spec, parent;  // the device named: the member, or the device beneath it
                                   // (through single-member devices) that carries its time
  std::string member;              // the array member it is (or sits under)
  std::string array;               // the device with siblings: the member's parent
  double mean_us = 0;              // the named device's mean io latency
  double siblings_mean_us = 0;     // median of the member's siblings' means
  size_t siblings = 0;
  // Of the critical-path time of the slowest kSlowestFraction of the requests that reached a
  // device, the part charged to its subtree; and how many requests that rests on.
  double share_of_slowest = 0;
  uint64_t slowest_requests = 0;
};

// The slowest tenth: at 64 requests that is 7 of them, enough for a share that does not hang
// on one request (as the old p99 share did), few enough to be the tail.
inline constexpr double kSlowestFraction = 0.10;

// One kind of request: reads, writes or flushes (fsync, fdatasync).
struct RequestKind {
  std::string op;  // "read", "write", "flush"
  uint64_t count = 0;
  uint64_t errors = 0;            // returned -errno
  uint64_t without_block_io = 0;  // ended with no bio of theirs completed: served from the page
                                  // cache (reads), left to writeback (buffered writes)
  Latency latency;
};

// One level of the provider's requests, over the run.
struct LevelResult {
  std::string name, plural;
  uint64_t count = 0;       // ended
  uint64_t errors = 0;      // RESULT < 0
  uint64_t unfinished = 0;  // never seen to end (the stream stopped, or their end was lost)
  Latency latency;
  TimeSplit time;  // summed over the level's requests
  // The leaf I/O inside the level's requests: reads that reached the stack, reads the page
  // cache served, writes and flushes.
  uint64_t reads_stack = 0, reads_cache = 0, writes = 0;
};

// The slowest tenth (kSlowestFraction) of the outermost level's requests (the slowest
// queries): how many, and the shares of their time spent waiting on reads, and on reads that
// reached the stack.
struct SlowestTime {
  uint64_t requests = 0;
  double reads_share = 0, stack_share = 0;
};

// Block I/O that no request caused: bios queued on a top device while no request was open on
// the queueing thread (writeback by the kernel's flusher threads, readahead, a file system's
// metadata, the partition scan when a device is opened). Counted apart, charged to no request.
struct Unrequested {
  uint64_t reads = 0, writes = 0, flushes = 0, others = 0;  // flushes: writes of no bytes
  uint64_t bytes = 0;
};

// A member whose ios fail.
struct FailingMember {
  std::string name, spec, parent;
  uint64_t ios = 0, errors = 0;
};

// What was lost on the way. All zero when nothing was.
struct Loss {
  uint64_t sequence_gaps = 0;          // places where a CPU's SEQ jumped
  uint64_t events_lost = 0;            // the events those jumps skipped
  uint64_t unmatched_completions = 0;  // C of a bio never seen start, RD of a read never seen
  uint64_t malformed_lines = 0;        // lines that start as an event but do not parse
  uint64_t skipped_probes = 0;         // SystemTap's own count
  uint64_t transport_failures = 0;     // SystemTap's own count
};

// What the stream held besides events, and what the join could not finish. Not loss.
struct StreamInfo {
  uint64_t other_lines = 0;  // the traced program's output, the header
  uint64_t late_events = 0;  // arrived after the reorder window had passed their time
  uint64_t untraced_split_completions = 0;  // C of a bio md/dm split without a tracepoint
  uint64_t abandoned_bios = 0;       // an address queued again before its completion was seen
  uint64_t bios_in_flight = 0;       // at the end of the stream
  uint64_t requests_unfinished = 0;  // reads whose end never came
  uint64_t requests_elsewhere = 0;   // system calls on files or devices outside the stack
  // The most reads and bios held at once: what the engine's memory grows with (not the
  // number of events).
  uint64_t peak_held = 0;
};

struct RemapCheck {
  uint64_t checked = 0, mismatches = 0;
  std::vector<std::string> examples;  // the first few mismatches, one line each
};

struct Result {
  RequestSource request_source = RequestSource::usdt;
  std::string request_provider;  // Options::request_provider
  // Every request, whatever its kind; with levels, the outermost level's (the queries).
  Latency requests;
  uint64_t request_errors = 0;             // requests that returned -errno (or RESULT < 0)
  std::vector<RequestKind> request_kinds;  // read, write, flush: those seen; with levels, of
                                           // the leaf I/O (the system calls)
  uint64_t requests_without_block_io = 0;  // of all kinds (with levels: of the leaf I/O)
  // The provider's levels, outermost first; empty without them. With them, `slowest` holds the
  // outermost level's slowest requests (each with its I/O inside), and slow members'
  // share_of_slowest is of the slowest outermost requests' time.
  std::vector<LevelResult> levels;
  SlowestTime slowest_time;  // with levels
  Unrequested unrequested;
  std::vector<DeviceResult> devices;  // the stack's devices in the order given, then others
  std::vector<Layer> layers;          // the five layers, always, in the order above; over the
                                      // requests that reached a device
  std::vector<Waterfall> slowest;     // slowest first
  std::vector<SlowMember> slow_members;
  std::vector<FailingMember> failing_members;
  Loss loss;
  StreamInfo stream;
  RemapCheck remap_check;
  uint64_t events = 0;
  uint64_t span_ns = 0;  // the first event's time to the last's: how long the traced run was
};

// What the verdict stands on. A verdict needs data: "no slow member" after a run that did no
// I/O would be a healthy verdict on nothing.
enum class VerdictStatus : uint8_t {
  ok,           // reads seen through the program's USDT probes, and block I/O on the devices
  no_io,        // neither: the program did no I/O (it failed at once?), or nothing was traced
  no_requests,  // block I/O, but no read through the USDT probes (a program without iotap's
                // probes, or they did not fire): members compared on block I/O alone
  no_block_io,  // reads, but no block I/O: nothing reached a device (page cache, other files)
};

VerdictStatus verdict_status(const Result& result);
// "ok", "no_io", "no_requests", "no_block_io": the JSON's verdict.status.
const char* to_string(VerdictStatus status);

class Engine {
 public:
  // The stack as iotap/stack.h describes it; devices the events name beyond it are added.
  Engine(std::vector<StackDevice> stack, const Options& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  Engine(Engine&& other) noexcept;
  Engine& operator=(Engine&& other) noexcept;

  // Bytes of the stream, cut anywhere: a line may straddle calls.
  void feed(std::string_view bytes);
  // One line of SystemTap's stderr; its skipped-probe and transport-failure counts go to loss.
  void note_stap_warning(std::string_view line);
  // Ends the stream (a last line without a newline counts) and computes the results.
  Result finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace iotap::engine
