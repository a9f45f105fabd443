// iotap replay: a recording (iotap record) replayed by io_replayer on a stack, under the same
// probes: the replay's attribution and verdict, and how faithfully it followed the recording.
#include <array>
#include <boost/program_options.hpp>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "iotap/recording/fidelity.h"
#include "iotap/recording/pace.h"
#include "iotap/recording/recording.h"
#include "iotap/report.h"
#include "iotap/report/overhead.h"
#include "iotap/session/attribution_run.h"
#include "iotap/session/number_option.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/target_options.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/quoting.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::add_target_options;
using session::attribution_json;
using session::attribution_outcome;
using session::AttributionOutcome;
using session::AttributionRun;
using session::check_guest_device;
using session::OutputFile;
using session::parse_options;
using session::PerfettoOption;
using session::positive_number;
using session::RequestHooks;
using session::run_attribution;
using session::run_title;
using session::say_nothing_to_answer;
using session::Target;
using session::TargetOptions;

namespace {

namespace po = boost::program_options;

constexpr const char* kHelp =
    R"(usage: iotap replay FILE --target vm --stack SPEC [--pace recorded|fast|xN] [--slowest N]
                    [--json] [-o FILE]
       iotap replay FILE --device DEV [--allow-writes] ...      (--target local)

Replays a recording made by `iotap record` with io_replayer: one thread per recorded thread,
each issuing its requests in the recorded order at the recorded offsets (scaled down, with a
warning, on a smaller device), O_DIRECT where the recording had it, under the same probes as
`iotap attribute`. It prints the replay's attribution and verdict, as `attribute` does, and its
fidelity, from what the trace saw: requests replayed against recorded (they must be equal), each
thread's order kept (yes or no), bytes, and the pacing error: p50 and p99 of |replayed gap -
recorded gap| between each thread's consecutive requests, start to start.
  --pace recorded   each request at its recorded time from the start (default); a thread whose
                    previous request ends later (a slower stack) issues at once
  --pace fast       each request as soon as its thread's previous one ends (no pacing error)
  --pace xN         recorded times divided by N (0.001 to 1000): x2 twice as fast, x0.5 half
With --target vm the replay writes what the recording wrote, to the devices iotap built; with
--target local it needs --device and, for a recording that writes, --allow-writes.

examples:
  iotap record -o hasher.rec --target vm --stack 'raid0(ram*4)' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 4 -n 64 --direct'
  iotap replay hasher.rec --target vm --stack 'raid1(ram, delay(ram, 10ms))'
  iotap replay hasher.rec --target vm --stack 'raid0(ram*4)' --pace x2 --json -o replay.json
  iotap compare record.json replay.json

options)";

recording::Recording read_recording(const std::string& path) {
  try {
    return recording::read(path);
  } catch (const recording::FormatError& e) {
    throw UserError(std::string(e.what()) + " (iotap replay takes what iotap record wrote)");
  } catch (const std::system_error& e) {
    throw UserError("cannot read the recording " + std::string(e.what()));
  }
}

Json fidelity_json(const recording::Fidelity& f, const std::string& file,
                   const recording::Pace& pace) {
  Json json{
      {"recording", file},
      {"pace", recording::pace_name(pace)},
      {"requests_recorded", f.recorded},
      {"requests_replayed", f.replayed},
      {"order_preserved", f.order_preserved},
      {"first_difference", f.first_difference.empty() ? Json(nullptr) : Json(f.first_difference)},
      {"bytes_recorded", f.recorded_bytes},
      {"bytes_replayed", f.replayed_bytes},
      {"pacing_error_us", nullptr}};
  if (f.pacing) {
    json["pacing_error_us"] = {
        {"gaps", f.pacing->gaps}, {"p50", f.pacing->p50_us}, {"p99", f.pacing->p99_us}};
  }
  return json;
}

std::string fidelity_text(const recording::Fidelity& f, const std::string& file,
                          const recording::Pace& pace) {
  std::array<char, 256> line{};
  std::string text = "\nreplay of " + file + " (pace " + recording::pace_name(pace) + ")\n";
  std::snprintf(line.data(), line.size(), "  requests: %llu replayed of %llu recorded%s\n",
                static_cast<unsigned long long>(f.replayed),
                static_cast<unsigned long long>(f.recorded),
                f.replayed == f.recorded ? "" : "  (NOT all)");
  text += line.data();
  text += "  order:    " +
          (f.order_preserved ? std::string("each thread's as recorded")
                             : "NOT as recorded: " + f.first_difference) +
          "\n";
  std::snprintf(line.data(), line.size(), "  bytes:    %llu replayed, %llu recorded\n",
                static_cast<unsigned long long>(f.replayed_bytes),
                static_cast<unsigned long long>(f.recorded_bytes));
  text += line.data();
  if (f.pacing) {
    std::snprintf(line.data(), line.size(),
                  "  pacing:   |replayed gap - recorded gap| p50 %.1f us, p99 %.1f us over %llu "
                  "gaps\n",
                  f.pacing->p50_us, f.pacing->p99_us,
                  static_cast<unsigned long long>(f.pacing->gaps));
    text += line.data();
  }
  return text;
}

// replay's command line.
struct ReplayArgs {
  TargetOptions options;
  std::string file;
  std::string pace_text = "recorded";
  std::string device;
  bool allow_writes = false;
  size_t slowest = 0;
  PerfettoOption perfetto;
};

// Parses `args` into `a`; false after --help.
bool parse_replay_options(Args args, ReplayArgs& a) {
  po::options_description visible;
  visible.add_options()("help,h", "show this help");
  visible.add_options()("pace", po::value(&a.pace_text)->value_name("recorded|fast|xN"),
                        "how the requests are paced (default: recorded)");
  visible.add_options()("device", po::value(&a.device)->value_name("DEV"),
                        "the device (or file) to replay on; default with --target vm: the top "
                        "of --stack");
  visible.add_options()("allow-writes", po::bool_switch(&a.allow_writes),
                        "with --target local: replay the recording's writes on --device");
  visible.add_options()(
      "slowest",
      positive_number({"--slowest", "a positive number of requests", "requests", 1'000'000},
                      [&a](uint64_t n) { a.slowest = static_cast<size_t>(n); })
          ->value_name("N"),
      "print the N slowest replayed requests as waterfalls");
  a.perfetto.add_to(visible);
  add_target_options(visible, a.options, "local");
  po::options_description hidden;
  hidden.add_options()("recording", po::value(&a.file));
  po::positional_options_description positional;
  positional.add("recording", 1);
  return parse_options(args, visible, kHelp, &hidden, &positional, exit_status::Verb::kAttribution);
}

}  // namespace

int replay(Args args) {
  ReplayArgs a;
  if (!parse_replay_options(args, a)) return 0;
  TargetOptions& options = a.options;
  const std::string& file = a.file;
  const std::string& device = a.device;
  if (file.empty())
    throw UserError(
        "iotap replay needs a recording: iotap replay FILE --target vm --stack SPEC "
        "(iotap record makes one)");
  const auto pace = recording::parse_pace(a.pace_text);
  if (!pace)
    throw UserError(std::string("--pace must be ") + recording::kPaceExpected + ", not '" +
                    a.pace_text + "'");
  if (!options.command_line.empty() || options.pid)
    throw UserError("iotap replay runs io_replayer itself: leave out -c and -x");
  const bool vm = options.target == Target::kVm;
  if (!vm && device.empty())
    throw UserError(
        "iotap replay --target local needs --device DEV: the device (or file) to "
        "replay on");
  check_guest_device(options, device, "--device");
  const recording::Recording recorded = read_recording(file);
  uint64_t writes = 0;
  for (const auto& r : recorded.requests) writes += r.op == 'W' ? 1 : 0;
  if (writes > 0 && !vm && !a.allow_writes)
    throw UserError(file + " writes (" + std::to_string(writes) + " of its requests): add " +
                    "--allow-writes to let the replay overwrite " + device);

  std::vector<std::string> command{
      "io_replayer", "-r", file, "-d", device.empty() ? "__DEV__" : device, "--pace", a.pace_text};
  if (writes > 0) command.emplace_back("--allow-writes");
  options.command_line = quoted_command(command);

  OutputFile out(options.output_path);
  std::vector<recording::Replayed> replayed;
  RequestHooks hooks;
  hooks.finished = [&](const engine::FinishedRequest& f) {
    replayed.push_back({.id = f.id,
                        .thread = static_cast<uint32_t>(f.thread),
                        .start_ns = f.start_ns - f.first_start_ns,
                        .result = f.result});
  };
  a.perfetto.taken(hooks, run_title(options));
  OutputFile::refuse_same_file({&out, a.perfetto.file()});
  for (const OutputFile* output : {static_cast<const OutputFile*>(&out), a.perfetto.file()})
    if (output != nullptr) output->refuse_input(file, "the recording it replays");
  const AttributionRun run = run_attribution(options, a.slowest, "usdt", hooks);
  const recording::Fidelity fidelity = recording::fidelity(
      recorded, std::move(replayed), pace->fast ? std::nullopt : std::optional(pace->speed));
  const AttributionOutcome outcome = attribution_outcome(options, run, /*attribute_reads=*/true);
  if (options.json) {
    Json json = attribution_json(run, outcome);
    json["replay"] = fidelity_json(fidelity, file, *pace);
    out.write(to_text(json));
  } else {
    out.write(report::text(run.result, a.slowest > 0, outcome.why, run.run.kernel_stats) +
              report::overhead_line(run.overhead) + fidelity_text(fidelity, file, *pace));
  }
  a.perfetto.finish();
  say_nothing_to_answer(run, outcome);
  if (!run.run.interrupted && (fidelity.replayed != fidelity.recorded || !fidelity.order_preserved))
    std::fprintf(stderr,
                 "iotap: the replay did not follow the recording: %llu of %llu requests%s%s\n",
                 static_cast<unsigned long long>(fidelity.replayed),
                 static_cast<unsigned long long>(fidelity.recorded),
                 fidelity.order_preserved ? "" : "; ", fidelity.first_difference.c_str());
  return outcome.exit;
}

}  // namespace iotap::verbs
