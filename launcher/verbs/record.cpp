// iotap record: a program's requests, per thread, written as a recording
// (docs/recording-format.md) that io_replayer and `iotap replay` replay on another stack.
#include <array>
#include <boost/program_options.hpp>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "iotap/config.h"
#include "iotap/recording/file_layout.h"
#include "iotap/recording/recording.h"
#include "iotap/report.h"
#include "iotap/report/overhead.h"
#include "iotap/session/attribution_run.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/postgres_options.h"
#include "iotap/session/target_options.h"
#include "iotap/session/traced_program.h"
#include "iotap/stack.h"
#include "iotap/stack/stack_json.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/json_text.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::add_target_options;
using session::AttributionRun;
using session::OutputFile;
using session::parse_options;
using session::PerfettoOption;
using session::program_end;
using session::RequestHooks;
using session::run_attribution;
using session::run_title;
using session::target_kernel_release;
using session::target_text;
using session::TargetOptions;
using session::traced_program;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap record -c CMD | -x PID [-o FILE] [--format iotap|fio] [--target local|vm|ssh://HOST...]
                    [--stack SPEC] [--requests usdt|syscall] [--timeout S] [--json]

Records every request of the program, per thread, as it runs: when it started, its thread, read,
write or flush, offset, size, result, its latency as recorded and the device it went to. The
requests are those `iotap attribute` follows: the program's USDT reads when it has probes iotap
knows (block_hasher's), else its I/O system calls (read, pread64, readv, preadv, write,
pwrite64, writev, pwritev, their *v2 forms, fsync, fdatasync on the stack's top device or a file
on it); --requests usdt|syscall chooses. With --postgres, the server's smgr reads and writes,
each on its file (relation), the files laid out one after another on the device so that a replay
plays them on another stack (docs/recording-format.md, "A database's files"). The recording is
written as requests end, so a long one takes no more memory than a short one (a database's is
written at the end, once its files' layout is known); its header names the program, the request
source, the stack and the kernel, and its end line counts the requests and what was lost
(docs/recording-format.md). `iotap replay FILE --target vm --stack SPEC` replays it on another
stack under the same probes.

  -o FILE         where the recording goes (default: iotap.rec; with --format fio, iotap.iolog)
                  (made beside it under a temporary name and renamed over it at the end: a run
                  that records nothing leaves an older FILE as it was)
  --format fio    fio's iolog version 3 instead: every request with its start time, in the order
                  they started, threads merged (fio replays one log in one job); replay it with
                  fio --name=replay --read_iolog=FILE --replay_redirect=/dev/YOURDEV
  --json          print the summary as JSON on stdout (the recording goes to -o's file)

examples:
  iotap record -o hasher.rec --target vm --stack 'raid0(ram*4)' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 4 -n 64 --direct'
  iotap record -o dd.rec --target vm --stack 'raid1(ram*2)' \
      -c 'dd if=/dev/zero of=__DEV__ bs=64k count=32 oflag=direct'
  iotap record -o scan.rec --target vm --stack 'raid0(ram*2)' --postgres \
      --sql 'SELECT count(*) FROM iotap_data'
  iotap record --format fio -o hasher.iolog --target vm --stack 'raid0(ram*4)' \
      -c 'block_hasher -d __DEV__ -b 65536 -t 2 -n 64 --direct'

options)";

// "iotap" or "fio", checked at once.
std::string checked_format(const std::string& format) {
  if (format != "iotap" && format != "fio")
    throw UserError(
        "--format must be 'iotap' (iotap's own recording) or 'fio' (fio's iolog v3), "
        "not '" +
        format + "'");
  return format;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

// The recording's numbers, for the summary line and --json.
struct Counts {
  uint64_t reads = 0, writes = 0, flushes = 0, errors = 0;
  uint64_t last_end_ns = 0;  // since the first request started
};

class Recorder {
 public:
  Recorder(const TargetOptions& options, const std::string& format, OutputFile& out)
      : options_(options), fio_(format == "fio"), out_(out) {}

  // A provider's levels (PostgreSQL's): the requests recorded are those of the deepest level of
  // each op, the ones that are one I/O each (an smgr read, not the buffer read around it, which
  // may have found its page in the buffer pool); a query does no I/O itself and is not recorded.
  void provider(const provider::Provider& declaration) {
    provider_ = declaration.name;
    for (const char op : {'R', 'W', 'F'}) {
      for (size_t i = declaration.levels.size(); i-- > 0;) {
        if (declaration.levels[i].op != op) continue;
        recorded_levels_.insert(static_cast<uint32_t>(i));
        level_names_.emplace_back(declaration.levels[i].name);
        break;
      }
    }
  }

  void started(const std::vector<StackDevice>& devices, engine::RequestSource source) {
    header_ = recording::Json{
        {"program", traced_program(options_)},
        {"command", options_.command_line.empty() ? Json(nullptr) : Json(options_.command_line)},
        {"source", engine::to_string(source)},
        {"target", target_text(options_)},
        {"stack", options_.stack_text.empty() ? Json(nullptr) : Json(options_.stack_text)},
        {"kernel", target_kernel_release(options_)},
        {"recorded_at", utc_now()},
        {"iotap", IOTAP_VERSION},
        {"devices", stack_json(devices)}};
    usdt_ = source == engine::RequestSource::usdt;
    if (!devices.empty()) top_device_ = "/dev/" + devices.front().name;
    if (!devices.empty()) top_dev_ = devices.front().dev;
    if (!provider_.empty()) {
      (*header_)["provider"] = provider_;
      (*header_)["levels"] = level_names_;
    }
    // A provider's recording is written at the end, when its files' layout is known.
    if (!fio_ && provider_.empty())
      writer_.emplace([this](std::string_view bytes) { out_.write(bytes); }, *header_);
  }

  void finished(const engine::FinishedRequest& f) {
    // With a provider's levels, a system call is the inside of an smgr read already recorded.
    if (!provider_.empty()) return;
    recording::Request r;
    r.start_ns = f.start_ns - f.first_start_ns;
    r.thread = thread_of(f);
    r.op = f.op;
    r.offset = f.offset;
    r.size = f.size;
    r.result = f.result;
    r.latency_ns = f.latency_ns;
    r.dev = f.dev == 0 ? "-" : dev_name(f.dev);
    r.direct = f.direct;
    r.call = std::string(f.call);
    count(r);
    counts_.last_end_ns = std::max(counts_.last_end_ns, r.start_ns + r.latency_ns);
    if (writer_) {
      writer_->add(r);
    } else {
      kept_.requests.push_back(std::move(r));
    }
  }

  // A request of a provider's recorded level, on one of its files (FILE: PostgreSQL's
  // relfilenode); kept until the end, when the files are laid out on the device.
  void finished_level(const engine::FinishedLevelRequest& f) {
    if (!recorded_levels_.contains(f.level)) return;
    recording::Request r;
    r.start_ns = f.start_ns;  // from the first recorded request's start at the end
    r.thread = threads_.emplace(f.tid, static_cast<uint32_t>(threads_.size())).first->second;
    r.op = f.op;
    r.offset = f.offset;
    r.size = f.size;
    r.result = f.result;
    r.latency_ns = f.latency_ns;
    r.dev = top_dev_ == 0 ? "-" : dev_name(top_dev_);
    r.call = std::string(f.name);
    count(r);
    file_requests_.push_back({.file = f.file, .request = std::move(r)});
  }

  // The end line (or, for fio, the whole log), once the run is over.
  void finish(const AttributionRun& run) {
    if (!provider_.empty()) settle_file_requests();
    recording::Json end{{"threads", threads_.size()},
                        {"reads", counts_.reads},
                        {"writes", counts_.writes},
                        {"flushes", counts_.flushes},
                        {"errors", counts_.errors},
                        {"duration_ns", counts_.last_end_ns},
                        {"unfinished", run.result.stream.requests_unfinished},
                        {"interrupted", run.run.interrupted},
                        {"timed_out", run.run.timed_out},
                        {"loss", report::json(run.result)["loss"]},
                        {"overhead", report::overhead_json(run.overhead)}};
    if (!provider_.empty() && !fio_ && header_) {
      recording::Writer writer([this](std::string_view bytes) { out_.write(bytes); }, *header_);
      for (const auto& r : kept_.requests) writer.add(r);
      writer.finish(end);
    } else if (writer_) {
      writer_->finish(end);
    } else if (header_) {
      out_.write(recording::fio_iolog(kept_, top_device_));
    }
  }

  [[nodiscard]] uint64_t requests() const {
    return counts_.reads + counts_.writes + counts_.flushes;
  }
  [[nodiscard]] const Counts& counts() const { return counts_; }
  [[nodiscard]] size_t threads() const { return threads_.size(); }

 private:
  void count(const recording::Request& r) {
    (r.op == 'W' ? counts_.writes : r.op == 'F' ? counts_.flushes : counts_.reads) += 1;
    if (r.result < 0) ++counts_.errors;
  }

  // The provider's requests, timed from the first one's start, their files laid out one after
  // another on the device (recording/file_layout.h), the layout in the header.
  void settle_file_requests() {
    uint64_t origin = UINT64_MAX;
    for (const auto& f : file_requests_) origin = std::min(origin, f.request.start_ns);
    for (auto& f : file_requests_) {
      f.request.start_ns -= origin;
      counts_.last_end_ns =
          std::max(counts_.last_end_ns, f.request.start_ns + f.request.latency_ns);
    }
    const auto files = recording::lay_out_files(file_requests_);
    if (header_) (*header_)["files"] = recording::files_json(files);
    kept_.requests = recording::placed_requests(file_requests_, files);
    file_requests_.clear();
  }

  // USDT reads carry the program's own thread index; system calls a tid, numbered here in the
  // order each thread's first request ended.
  uint32_t thread_of(const engine::FinishedRequest& f) {
    if (usdt_) {
      threads_.emplace(f.thread, static_cast<uint32_t>(f.thread));
      return static_cast<uint32_t>(f.thread);
    }
    return threads_.emplace(f.tid, static_cast<uint32_t>(threads_.size())).first->second;
  }

  const TargetOptions& options_;
  bool fio_;
  bool usdt_ = false;
  OutputFile& out_;
  std::optional<recording::Json> header_;
  std::optional<recording::Writer> writer_;
  recording::Recording kept_;  // --format fio: sorted by start at the end
  std::string top_device_ = "/dev/iotap-recorded";
  std::map<int64_t, uint32_t> threads_;
  Counts counts_;
  std::string provider_;                // a provider's levels are recorded: its name
  std::set<uint32_t> recorded_levels_;  // ... and which of them
  std::vector<std::string> level_names_;
  std::vector<recording::FileRequest> file_requests_;
  uint32_t top_dev_ = 0;
};

// The summary: --json's on stdout, the line on stderr, and the probes' overhead.
void say_what_was_recorded(const Recorder& recorder, const AttributionRun& run,
                           const TargetOptions& options, const std::string& format, bool recorded) {
  const Counts& c = recorder.counts();
  if (options.json) {
    Json summary{{"recording", recorded ? Json(options.output_path) : Json(nullptr)},
                 {"format", format},
                 {"requests", recorder.requests()},
                 {"threads", recorder.threads()},
                 {"reads", c.reads},
                 {"writes", c.writes},
                 {"flushes", c.flushes},
                 {"errors", c.errors},
                 {"duration_ns", c.last_end_ns},
                 {"source", engine::to_string(run.result.request_source)},
                 {"loss", report::json(run.result)["loss"]}};
    if (run.run.postgres) summary["postgres"] = session::postgres_stats_json(run.run.postgres);
    std::fputs(to_text(summary).c_str(), stdout);
  }
  if (recorded)
    std::fprintf(stderr,
                 "iotap: recorded %llu requests of %zu thread%s (%llu reads, %llu writes, %llu "
                 "flushes; %llu failed) over %.1f ms to %s\n",
                 static_cast<unsigned long long>(recorder.requests()), recorder.threads(),
                 recorder.threads() == 1 ? "" : "s", static_cast<unsigned long long>(c.reads),
                 static_cast<unsigned long long>(c.writes),
                 static_cast<unsigned long long>(c.flushes),
                 static_cast<unsigned long long>(c.errors),
                 static_cast<double>(c.last_end_ns) / 1e6, options.output_path.c_str());
  std::fputs(("iotap: " + report::overhead_line(run.overhead)).c_str(), stderr);
}

}  // namespace

int record(Args args) {
  namespace po = boost::program_options;
  TargetOptions options;
  std::string requests;
  std::string format = "iotap";
  po::options_description visible;
  visible.add_options()("help,h", "show this help");
  visible.add_options()("format", po::value(&format)->value_name("iotap|fio"),
                        "iotap (default): iotap's recording; fio: fio's iolog version 3");
  visible.add_options()("requests", po::value(&requests)->value_name("usdt|syscall"),
                        "which requests to record: the program's USDT probes iotap knows, or its "
                        "I/O system calls; default: usdt when the program has the probes");
  PerfettoOption perfetto;
  perfetto.add_to(visible);
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, kHelp, nullptr, nullptr, exit_status::Verb::kAttribution))
    return 0;
  checked_format(format);
  // A database's reads are placed on the replay's device by their files (smgr's relfilenode);
  // its system calls carry offsets in files a replay could not tell apart.
  if (options.postgres.start && requests == "syscall")
    throw UserError(
        "iotap record --postgres records the server's smgr reads and writes, with their files "
        "and offsets; its system calls name offsets in files a replay cannot place: leave out "
        "--requests syscall");
  if (options.output_path.empty())
    options.output_path = format == "fio" ? "iotap.iolog" : "iotap.rec";
  // The recording is made under a temporary name and put in place at the end, only when it
  // holds a request: a run that recorded nothing leaves an older recording as it was.
  OutputFile out(options.output_path, "-o", OutputFile::Replace::kAtCommit);
  Recorder recorder(options, format, out);
  RequestHooks hooks;
  hooks.started = [&](const auto& devices, engine::RequestSource source) {
    recorder.started(devices, source);
  };
  hooks.finished = [&](const engine::FinishedRequest& f) { recorder.finished(f); };
  hooks.provider = [&](const provider::Provider& p) { recorder.provider(p); };
  hooks.finished_level = [&](const engine::FinishedLevelRequest& f) { recorder.finished_level(f); };
  perfetto.taken(hooks, run_title(options));
  OutputFile::refuse_same_file({&out, perfetto.file()});
  const AttributionRun run = run_attribution(options, 0, requests, hooks);
  // A run whose stream never started (staprun failed at once), or that saw no request, made no
  // recording: no file (an old one stays).
  recorder.finish(run);
  const bool recorded = recorder.requests() > 0;
  if (recorded) out.commit();
  perfetto.finish();

  int exit = run.run.exit_status;
  say_what_was_recorded(recorder, run, options, format, recorded);
  if (!run.run.interrupted && recorder.requests() == 0) {
    exit = exit_status::kNothingAttributed;
    std::fprintf(stderr, "iotap: nothing recorded: %s; %s; %s not written (exit status 3)\n",
                 report::verdict_status_sentence(run.result).c_str(),
                 program_end(options, run.run).c_str(), options.output_path.c_str());
  }
  return exit;
}

}  // namespace iotap::verbs
