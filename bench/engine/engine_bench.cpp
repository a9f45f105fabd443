// The engine alone: events per second on one core and peak memory, on streams made from a
// recorded guest run (stream_shapes.h): its copies end to end, 128 copies in flight at once
// (thousands of bios held in flight or in open reads' trees), and 32 at once on 64 CPUs. The stream
// is generated 64 KiB at a time and fed as it is made; only feed() and finish() are timed. Each
// shape and size runs in its own process so its peak RSS is its own. Not a test: see
// docs/performance.md.
//
//   engine_bench [--shape NAME]... [--records] [--in-memory] [--perfetto FILE] [TRACE.json]
//                [EVENTS...]
//       default: every shape, the incident recording, 1000000 10000000 events
//       --records: the events as binary records (docs/event-format.md, version 2), not text
//       lines; made from the text outside the timed part
//       --in-memory: make the whole stream before feeding it, so that a profiler sees the
//       engine alone (its peak RSS is then the stream's)
//       --perfetto FILE: the --perfetto timeline of every read and bio written to FILE as the
//       engine hands them over (/dev/null: its cost and memory without the disk), timed with it
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "iotap/report/perfetto.h"
#include "record.h"
#include "stream_shapes.h"
#include "trace_file.h"

namespace {

using iotap::bench::Shape;

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The --perfetto timeline into a file, as the run's would be: written as it goes.
class TimelineFile {
 public:
  explicit TimelineFile(const std::string& path)
      : file_(path.empty() ? nullptr : std::fopen(path.c_str(), "w")),
        trace_([this](std::string_view text) { write(text); }, "engine_bench") {
    if (!path.empty() && file_ == nullptr) std::perror(path.c_str());
  }
  ~TimelineFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  TimelineFile(const TimelineFile&) = delete;
  TimelineFile& operator=(const TimelineFile&) = delete;
  TimelineFile(TimelineFile&&) = delete;
  TimelineFile& operator=(TimelineFile&&) = delete;

  // Chains the trace into `options` (nothing when no file was named).
  void feed_from(iotap::engine::Options& options) {
    if (file_ == nullptr) return;
    options.finished_request = [this](const iotap::engine::FinishedRequest& r) { trace_.add(r); };
    options.finished_bio = [this](const iotap::engine::FinishedBio& b) { trace_.add(b); };
  }
  void finish() {
    if (file_ != nullptr) trace_.finish();
  }
  [[nodiscard]] std::string summary() const {
    if (file_ == nullptr) return "";
    std::array<char, 128> text{};
    std::snprintf(text.data(), text.size(), "  timeline %.1f MiB, arrows waiting at most %zu",
                  static_cast<double>(bytes_) / (1024.0 * 1024.0), trace_.arrows_waiting_at_most());
    return text.data();
  }

 private:
  void write(std::string_view text) {
    bytes_ += text.size();
    std::fwrite(text.data(), 1, text.size(), file_);
  }
  std::FILE* file_;
  iotap::report::PerfettoTrace trace_;
  uint64_t bytes_ = 0;
};

int measure(const iotap::golden::Trace& trace, const iotap::bench::Recording& recording,
            Shape shape, uint64_t wanted, bool records, bool in_memory,
            const std::string& perfetto) {
  iotap::bench::StreamMaker maker(recording, trace.stack, shape);
  const long rss_before = peak_rss_kib();
  const uint64_t groups = (wanted + maker.events_per_group() - 1) / maker.events_per_group();
  iotap::engine::Options options;
  options.slowest = 10;
  TimelineFile timeline(perfetto);
  timeline.feed_from(options);
  iotap::engine::Engine engine(trace.stack, options);
  std::chrono::nanoseconds busy{0};
  constexpr size_t kChunk = size_t{64} * 1024;
  // The maker's pieces are whole lines: each becomes its records on its own.
  const auto render = [&](uint64_t group, const std::function<void(std::string_view)>& sink) {
    if (!records) return maker.render_group(group, kChunk, sink);
    maker.render_group(group, kChunk,
                       [&](std::string_view text) { sink(iotap::engine::records_of(text)); });
  };
  if (in_memory) {
    // The whole stream first, then the engine alone: for a profiler (peak RSS is the stream's).
    std::string stream;
    for (uint64_t group = 0; group < groups; ++group)
      render(group, [&](std::string_view text) { stream += text; });
    const auto start = std::chrono::steady_clock::now();
    for (size_t at = 0; at < stream.size(); at += kChunk)
      engine.feed(std::string_view(stream).substr(at, kChunk));
    busy += std::chrono::steady_clock::now() - start;
  } else {
    for (uint64_t group = 0; group < groups; ++group) {
      render(group, [&](std::string_view text) {
        const auto start = std::chrono::steady_clock::now();
        engine.feed(text);
        busy += std::chrono::steady_clock::now() - start;
      });
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const iotap::engine::Result result = engine.finish();
  timeline.finish();
  busy += std::chrono::steady_clock::now() - start;

  const double seconds = std::chrono::duration<double>(busy).count();
  const bool joined = result.loss.sequence_gaps == 0 && result.loss.unmatched_completions == 0 &&
                      result.stream.late_events == 0 && result.remap_check.mismatches == 0 &&
                      result.requests.count == groups * maker.reads_per_group();
  std::printf(
      "%-8s %-7s %3u CPUs %11llu events  %6.3f s  %6.2f M events/s  peak RSS %6.1f MiB (%.1f MiB "
      "before the engine)  bio nodes held at most %zu  reads %llu  slow member %s  %s%s\n",
      std::string(shape.name).c_str(), records ? "records" : "text", maker.cpus(),
      static_cast<unsigned long long>(result.events), seconds,
      static_cast<double>(result.events) / seconds / 1e6,
      static_cast<double>(peak_rss_kib()) / 1024, static_cast<double>(rss_before) / 1024,
      static_cast<size_t>(result.stream.peak_held),
      static_cast<unsigned long long>(result.requests.count),
      result.slow_members.empty() ? "none" : result.slow_members[0].name.c_str(),
      joined ? "(every copy joined, nothing lost)" : "(JOIN BROKEN: loss, late or missing reads)",
      timeline.summary().c_str());
  if (!joined)
    std::printf(
        "  sequence gaps %llu, unmatched completions %llu, late events %llu, remap "
        "mismatches %llu, reads %llu of %llu\n",
        static_cast<unsigned long long>(result.loss.sequence_gaps),
        static_cast<unsigned long long>(result.loss.unmatched_completions),
        static_cast<unsigned long long>(result.stream.late_events),
        static_cast<unsigned long long>(result.remap_check.mismatches),
        static_cast<unsigned long long>(result.requests.count),
        static_cast<unsigned long long>(groups) * maker.reads_per_group());
  std::fflush(stdout);
  return joined ? 0 : 1;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "engine_bench: %s\nusage: engine_bench [--shape incident|deep|cpus64]... "
               "[--records] [--in-memory] [--perfetto FILE] [TRACE.json] [EVENTS...]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = IOTAP_BENCH_TRACE;
  std::vector<uint64_t> sizes;
  std::vector<Shape> shapes;
  bool in_memory = false;
  bool records = false;
  std::string perfetto;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--in-memory") {
      in_memory = true;
    } else if (arg == "--records") {
      records = true;
    } else if (arg == "--perfetto") {
      if (i + 1 == argc) return usage("--perfetto needs a file");
      perfetto = argv[++i];
    } else if (arg == "--shape") {
      if (i + 1 == argc) return usage("--shape needs a name");
      const std::string_view name = argv[++i];
      const auto* const shape =
          std::find_if(iotap::bench::kShapes.begin(), iotap::bench::kShapes.end(),
                       [&](const Shape& s) { return s.name == name; });
      if (shape == iotap::bench::kShapes.end()) return usage("no such shape");
      shapes.push_back(*shape);
    } else if (arg.ends_with(".json")) {
      path = arg;
    } else {
      char* end = nullptr;
      const uint64_t size = std::strtoull(argv[i], &end, 10);
      if (size == 0 || *end != '\0') return usage("an event count is a positive number");
      sizes.push_back(size);
    }
  }
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  if (shapes.empty()) shapes.assign(iotap::bench::kShapes.begin(), iotap::bench::kShapes.end());

  const iotap::golden::Trace trace = iotap::golden::load_trace(path);
  const iotap::bench::Recording recording = iotap::bench::parse_recording(trace.output);
  std::printf("%s: %llu events per copy\n", path.c_str(),
              static_cast<unsigned long long>(recording.events));
  std::fflush(stdout);
  int status = 0;
  for (const Shape& shape : shapes) {
    for (const uint64_t size : sizes) {
      const pid_t child = fork();
      if (child == 0)
        std::_Exit(measure(trace, recording, shape, size, records, in_memory, perfetto));
      int child_status = 0;
      waitpid(child, &child_status, 0);
      if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) status = 1;
    }
  }
  return status;
}
