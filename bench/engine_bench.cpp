// The engine alone: events per second on one core and peak memory, on streams of 1M and 10M
// events made by replicating a recorded guest run end to end. Each copy's timestamps, per-CPU
// sequence numbers, request ids and bio addresses are shifted so the copies join as separate
// reads and nothing is taken for loss. The stream is generated copy by copy and fed in 64 KiB
// chunks; only feed() and finish() are timed. Each size runs in its own process so its peak
// RSS is its own. Not a test: see docs/performance.md.
//
//   engine_bench [TRACE.json] [EVENTS...]     default: the incident recording, 1000000 10000000
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "trace_file.h"

namespace {

struct Line {
  bool event = false;
  std::string kind;
  uint64_t ts = 0;
  uint64_t cpu = 0, seq = 0;
  std::string tid;
  std::vector<std::string> fields;
  std::string text;  // a line that is not an event, as it is
};

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < line.size()) {
    const size_t end = std::min(line.find(' ', at), line.size());
    if (end > at) out.emplace_back(line.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

uint64_t number(const std::string& text, int base = 10) {
  uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, base);
  return value;
}

struct Recording {
  std::vector<Line> lines;
  size_t events = 0;
  uint64_t first_ts = UINT64_MAX, last_ts = 0, max_request = 0;
  std::map<uint64_t, uint64_t> last_seq;  // per CPU
};

Recording parse(const std::string& output) {
  Recording r;
  size_t at = 0;
  while (at < output.size()) {
    const size_t end = std::min(output.find('\n', at), output.size());
    const std::string_view text(output.data() + at, end - at);
    at = end + 1;
    Line line;
    const auto words = split(text);
    static const std::vector<std::string> kinds = {"RS", "RD", "Q", "X", "M", "C"};
    if (words.size() >= 6 && std::find(kinds.begin(), kinds.end(), words[0]) != kinds.end()) {
      line.event = true;
      line.kind = words[0];
      line.ts = number(words[1]);
      line.cpu = number(words[2]);
      line.seq = number(words[3]);
      line.tid = words[4];
      line.fields.assign(words.begin() + 5, words.end());
      r.first_ts = std::min(r.first_ts, line.ts);
      r.last_ts = std::max(r.last_ts, line.ts);
      r.last_seq[line.cpu] = std::max(r.last_seq[line.cpu], line.seq);
      if (line.kind == "RS") r.max_request = std::max(r.max_request, number(line.fields[0]));
      ++r.events;
    } else {
      if (text.empty()) continue;
      line.text = std::string(text);
    }
    r.lines.push_back(std::move(line));
  }
  return r;
}

void put(std::string& out, uint64_t value, int base = 10) {
  std::array<char, 24> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, base);
  out.append(buffer.data(), end);
}

// Copy `k` of the recording as stream text.
void render(const Recording& r, uint64_t k, std::string& out) {
  const uint64_t span = r.last_ts - r.first_ts + 1'000'000;
  const uint64_t address_shift = k << 32U;
  out.clear();
  if (k == 0) out += "iotap-events 1\n";
  for (const Line& line : r.lines) {
    if (!line.event) {
      if (line.text.starts_with("iotap-events")) continue;
      out += line.text;
      out += '\n';
      continue;
    }
    out += line.kind;
    out += ' ';
    put(out, line.ts + k * span);
    out += ' ';
    put(out, line.cpu);
    out += ' ';
    put(out, line.seq + k * r.last_seq.at(line.cpu));
    out += ' ';
    out += line.tid;
    for (size_t i = 0; i < line.fields.size(); ++i) {
      out += ' ';
      const bool request = (line.kind == "RS" || line.kind == "RD") && i == 0;
      const bool address =
          (line.kind != "RS" && line.kind != "RD") && (i == 0 || (line.kind == "X" && i == 1));
      if (request)
        put(out, number(line.fields[i]) + k * r.max_request);
      else if (address)
        put(out, number(line.fields[i], 16) ^ address_shift, 16);
      else
        out += line.fields[i];
    }
    out += '\n';
  }
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

int measure(const iotap::golden::Trace& trace, const Recording& r, uint64_t wanted) {
  const long rss_before = peak_rss_kib();
  const uint64_t copies = (wanted + r.events - 1) / r.events;
  iotap::engine::Options options;
  options.slowest = 10;
  iotap::engine::Engine engine(trace.stack, options);
  std::string text;
  std::chrono::nanoseconds busy{0};
  constexpr size_t kChunk = size_t{64} * 1024;
  for (uint64_t k = 0; k < copies; ++k) {
    render(r, k, text);
    const auto start = std::chrono::steady_clock::now();
    for (size_t at = 0; at < text.size(); at += kChunk)
      engine.feed(std::string_view(text).substr(at, std::min(kChunk, text.size() - at)));
    busy += std::chrono::steady_clock::now() - start;
  }
  const auto start = std::chrono::steady_clock::now();
  const iotap::engine::Result result = engine.finish();
  busy += std::chrono::steady_clock::now() - start;

  const double seconds = std::chrono::duration<double>(busy).count();
  const bool joined = result.loss.sequence_gaps == 0 && result.loss.unmatched_completions == 0 &&
                      result.requests.count == copies * (r.max_request);
  std::printf(
      "%11llu events  %6.3f s  %6.2f M events/s  peak RSS %6.1f MiB (%.1f MiB before the "
      "engine)  reads %llu  slow member %s  %s\n",
      static_cast<unsigned long long>(result.events), seconds,
      static_cast<double>(result.events) / seconds / 1e6,
      static_cast<double>(peak_rss_kib()) / 1024, static_cast<double>(rss_before) / 1024,
      static_cast<unsigned long long>(result.requests.count),
      result.slow_members.empty() ? "none" : result.slow_members[0].name.c_str(),
      joined ? "(every copy joined, nothing lost)" : "(JOIN BROKEN: loss or missing reads)");
  std::fflush(stdout);
  return joined ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = IOTAP_BENCH_TRACE;
  std::vector<uint64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.ends_with(".json"))
      path = arg;
    else
      sizes.push_back(std::strtoull(arg.c_str(), nullptr, 10));
  }
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};

  const iotap::golden::Trace trace = iotap::golden::load_trace(path);
  const Recording recording = parse(trace.output);
  std::printf("%s: %zu events per copy\n", path.c_str(), recording.events);
  std::fflush(stdout);
  int status = 0;
  for (const uint64_t size : sizes) {
    const pid_t child = fork();
    if (child == 0) std::_Exit(measure(trace, recording, size));
    int child_status = 0;
    waitpid(child, &child_status, 0);
    if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) status = 1;
  }
  return status;
}
