#include "iotap/session/attribution_run.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "iotap/config.h"
#include "iotap/remote/ssh_target.h"
#include "iotap/report.h"
#include "iotap/report/html.h"
#include "iotap/report/overhead.h"
#include "iotap/report/perfetto.h"
#include "iotap/session/number_option.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/postgres_options.h"
#include "iotap/session/program_output.h"
#include "iotap/session/request_source.h"
#include "iotap/session/traced_program.h"
#include "iotap/stack/disk_stats.h"
#include "iotap/stack/stack_json.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::session {

namespace {

// Attaching: the program followed, and for a PostgreSQL server the psql beside it (the same
// bindir there), which reads the server's counters before and after.
TargetOptions attached_options(const TargetOptions& options, bool attaching,
                               const ChosenSource& source) {
  TargetOptions attached = options;
  if (!attaching) return attached;
  attached.attached_program = source.probed_program;
  if (source.provider == "postgresql")
    attached.attached_postgres_client =
        (std::filesystem::path(source.probed_program).parent_path() / "psql").string();
  return attached;
}

}  // namespace

AttributionRun run_attribution(const TargetOptions& options, size_t slowest,
                               std::string_view requests, const RequestHooks& hooks) {
  // Neither -c nor -x, with a named provider: every process running its program is followed,
  // those it starts later included (a server's backends), until --timeout or Ctrl-C.
  const bool attaching = attaches_to_provider_program(options, requests);
  if (!attaching)
    require_one_program(options, "whose requests to follow",
                        ", or --requests usdt:NAME alone to attach to every process running "
                        "the provider's program (a PostgreSQL server: usdt:postgresql)");
  // With --postgres the requests are the server's queries: the -c program (psql, pgbench) is
  // only their client, and has no probes of its own.
  const std::string asked =
      requests.empty() && options.postgres.start ? "usdt:postgresql" : std::string(requests);
  const ChosenSource source = choose_request_source(traced_program(options), asked);
  const TargetOptions run_options = attached_options(options, attaching, source);
  // The probes are placed from this machine's copy of the program: the host's must be there
  // (asked in the same connection as the host's other facts).
  if (attaching && options.target == Target::kSsh)
    remote::check_attached_program(*options.ssh_host, host_facts(run_options),
                                   source.probed_program);
  // The engine starts when the guest has said what the stack is; the stream follows.
  std::optional<engine::Engine> engine;
  std::vector<std::string> early_warnings;
  engine::Options engine_options{slowest};
  engine_options.requests = source.source;
  engine_options.request_provider = source.provider;
  engine_options.other_line = program_line_printer(options);
  engine_options.finished_request = hooks.finished;
  engine_options.finished_bio = hooks.finished_bio;
  engine_options.finished_level_request = hooks.finished_level;
  for (const auto& level : request_levels(source))
    engine_options.levels.push_back({level.name, level.plural});
  const auto start_engine = [&](const std::vector<StackDevice>& devices) {
    if (engine) return;
    if (hooks.provider && source.declaration && !engine_options.levels.empty())
      hooks.provider(*source.declaration);
    if (hooks.started) hooks.started(devices, source.source);
    engine.emplace(devices, engine_options);
  };
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.status(source.why);
  sinks.stack = start_engine;
  sinks.output = [&](std::string_view bytes) {
    start_engine({});  // --target local: no stack was reported
    engine->feed(bytes);
  };
  sinks.diagnostic = [&](std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), stderr);
    if (engine) {
      engine->note_stap_warning(line);
    } else {
      early_warnings.emplace_back(line);
    }
  };
  AttributionRun out;
  // A provider without a script of its own has one written from its file (provider/), kept in
  // a private dir for the run: stap's messages name it as NAME.stp.
  std::optional<TempDir> generated;
  std::string script = data_paths().examples + "/" + source.script;
  if (source.script.empty()) {
    generated.emplace("iotap-provider");
    script = *generated / (source.provider + ".stp");
    write_file(script, source.generated_script);
  }
  out.run = traced_run(script, run_options, sinks);
  start_engine(out.run.devices);
  for (const auto& line : early_warnings) engine->note_stap_warning(line);
  out.result = engine->finish();
  out.overhead = report::overhead(out.result, measured_ns_per_hit(options));
  return out;
}

std::string program_end(const TargetOptions& options, const TracedRunResult& run) {
  // -x's process may be gone by now: name it by its pid.
  std::string name = "the program";
  if (options.pid) name = "process " + std::to_string(*options.pid);
  if (!options.command_line.empty())
    name = std::filesystem::path(traced_program(options)).filename().string();
  std::string text;
  if (run.timed_out) {
    text = "the run was stopped by --timeout";
  } else if (run.target_exit_status) {
    const int status = *run.target_exit_status;
    text = name + " exited with status " + std::to_string(status);
    if (status > 128) text += " (killed by signal " + std::to_string(status - 128) + ")";
  } else if (run.staprun_status != 0) {
    text = "staprun exited with status " + std::to_string(run.staprun_status) +
           " (its message is above)";
  } else if (!options.command_line.empty()) {
    text = name + " exited with status 0";
  } else {
    text = "the traced process did no I/O while attached";
  }
  if (!run.program_last_stderr_line.empty())
    text += "; its last line on stderr: " + run.program_last_stderr_line;
  return text;
}

bool nothing_to_answer(engine::VerdictStatus status, bool attribute_reads) {
  switch (status) {
    case engine::VerdictStatus::ok:
      return false;
    case engine::VerdictStatus::no_io:
      return true;
    case engine::VerdictStatus::no_requests:  // members compared on block I/O: diagnose answers
      return attribute_reads;
    case engine::VerdictStatus::no_block_io:  // the reads' time is known: attribute answers
      return !attribute_reads;
  }
  return false;
}

int attribution_verb(std::span<const std::string> args, const char* help, bool waterfalls) {
  namespace po = boost::program_options;
  TargetOptions options;
  size_t slowest = 0;
  std::string requests;
  po::options_description visible;
  visible.add_options()("help,h", "show this help");
  visible.add_options()(
      "requests", po::value(&requests)->value_name("usdt[:PROVIDER]|syscall"),
      "which requests to follow: a provider's USDT probes (usdt: the provider whose probes the "
      "program has; usdt:NAME one of iotap's, 'iotap providers' lists them: block_hasher, "
      "io_replayer, postgresql; usdt:FILE a provider file of your own, docs/providers.md), or "
      "the program's I/O system calls (read, pread64, readv, preadv, write, pwrite64, writev, "
      "pwritev, their *v2 forms, fsync, fdatasync on the stack); default: usdt when the program "
      "has a provider's probes, else syscall");
  if (waterfalls) {
    visible.add_options()(
        "slowest",
        positive_number({"--slowest", "a positive number of reads", "reads", 1'000'000},
                        [&](uint64_t n) { slowest = static_cast<size_t>(n); })
            ->value_name("N"),
        "print the N slowest reads as waterfalls");
  }
  std::string html_path;
  visible.add_options()(
      "html", po::value(&html_path)->value_name("FILE"),
      "also write the report as one self-contained HTML page to FILE: the verdict, the stack "
      "as a tree, each device's latency histogram, the layers' shares and the slowest "
      "requests' waterfalls (iotap report draws it again from a saved --json)");
  PerfettoOption perfetto;
  perfetto.add_to(visible);
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, help, nullptr, nullptr, exit_status::Verb::kAttribution))
    return 0;

  OutputFile out(options.output_path);
  std::optional<OutputFile> html_out;
  if (!html_path.empty()) html_out.emplace(html_path, "--html");  // checked now, written at the end
  RequestHooks hooks;
  perfetto.taken(hooks, run_title(options));
  OutputFile::refuse_same_file({&out, html_out ? &*html_out : nullptr, perfetto.file()});
  const AttributionRun run = run_attribution(options, slowest, requests, hooks);
  const AttributionOutcome outcome = attribution_outcome(options, run, waterfalls);
  const Json json = attribution_json(run, outcome);
  // A fleet's run on one host (session/fleet_run.h): the whole result, for the fleet summary.
  if (const char* fleet = std::getenv("IOTAP_FLEET_RESULT"); fleet != nullptr && *fleet != '\0')
    write_file(fleet, to_text(json));
  out.write(options.json
                ? to_text(json)
                : report::text(run.result, slowest > 0, outcome.why, run.run.kernel_stats) +
                      report::overhead_line(run.overhead) +
                      postgres_stats_text(run.run.postgres, json["levels"]));
  if (html_out) html_out->write(report::html(json, run_title(options)));
  perfetto.finish();
  say_nothing_to_answer(run, outcome);
  return outcome.exit;
}

struct PerfettoOption::State {
  explicit State(const std::string& path, const std::string& title)
      : file(path, "--perfetto", OutputFile::Replace::kAtCommit),
        trace([this](std::string_view text) { file.write(text); }, title) {}
  OutputFile file;
  report::PerfettoTrace trace;
};

PerfettoOption::PerfettoOption() = default;
PerfettoOption::~PerfettoOption() = default;

void PerfettoOption::add_to(boost::program_options::options_description& options) {
  options.add_options()(
      "perfetto", boost::program_options::value(&path_)->value_name("FILE"),
      "also write the run as a timeline to FILE (Chrome trace-event JSON: open it in "
      "ui.perfetto.dev or chrome://tracing): a track per thread with its requests, a track per "
      "device with its bios, and arrows from each request down to the bios it caused on every "
      "layer, to the member disks; written as the run goes, in memory only what is in flight)");
}

void PerfettoOption::taken(RequestHooks& hooks, const std::string& title) {
  if (path_.empty()) return;
  state_ = std::make_unique<State>(path_, title);
  report::PerfettoTrace& trace = state_->trace;
  hooks.started = [&trace, started = std::move(hooks.started)](
                      const std::vector<StackDevice>& devices, engine::RequestSource source) {
    trace.set_stack(devices);
    if (started) started(devices, source);
  };
  hooks.finished = [&trace,
                    finished = std::move(hooks.finished)](const engine::FinishedRequest& request) {
    trace.add(request);
    if (finished) finished(request);
  };
  hooks.finished_bio = [&trace, finished_bio =
                                    std::move(hooks.finished_bio)](const engine::FinishedBio& bio) {
    trace.add(bio);
    if (finished_bio) finished_bio(bio);
  };
  hooks.finished_level = [&trace, finished_level = std::move(hooks.finished_level)](
                             const engine::FinishedLevelRequest& request) {
    trace.add(request);
    if (finished_level) finished_level(request);
  };
}

const OutputFile* PerfettoOption::file() const {
  return state_ ? &state_->file : nullptr;
}

void PerfettoOption::finish() {
  if (!state_) return;
  state_->trace.finish();
  state_->file.commit();
}

std::string run_title(const TargetOptions& options) {
  std::string title =
      options.pid ? "process " + std::to_string(*options.pid) : options.command_line;
  if (title.empty()) title = "every process of the provider's program (attached)";
  if (!options.stack_text.empty()) title += " on " + options.stack_text;
  return title;
}

AttributionOutcome attribution_outcome(const TargetOptions& options, const AttributionRun& run,
                                       bool attribute_reads) {
  // A verdict on no data is none (engine::VerdictStatus): say what was not seen and why, and
  // exit 3 when the verb's question has nothing to be answered from. Ctrl-C keeps its status.
  AttributionOutcome outcome;
  const engine::VerdictStatus status = engine::verdict_status(run.result);
  outcome.why = status == engine::VerdictStatus::ok ? "" : program_end(options, run.run);
  outcome.exit = run.run.exit_status;
  if (!run.run.interrupted && nothing_to_answer(status, attribute_reads))
    outcome.exit = exit_status::kNothingAttributed;
  return outcome;
}

Json attribution_json(const AttributionRun& run, const AttributionOutcome& outcome) {
  Json json = report::json(run.result, outcome.why);
  add_kernel_stats(json["devices"], run.run.kernel_stats);
  json["stack"] = stack_json(run.run.devices);
  json["exit_status"] = outcome.exit;
  json["program"] = {{"exit_status", run.run.target_exit_status.value_or(0)},
                     {"last_stderr_line", run.run.program_last_stderr_line.empty()
                                              ? Json(nullptr)
                                              : Json(run.run.program_last_stderr_line)}};
  if (!run.run.target_exit_status && run.run.staprun_status != 0)
    json["program"]["exit_status"] = nullptr;  // staprun failed: the program's is not known
  json["overhead"] = report::overhead_json(run.overhead);
  // What PostgreSQL itself counted (--postgres), beside what iotap saw of its reads.
  if (run.run.postgres) json["postgres"] = postgres_stats_json(run.run.postgres);
  return json;
}

void say_nothing_to_answer(const AttributionRun& run, const AttributionOutcome& outcome) {
  if (outcome.exit == exit_status::kNothingAttributed)
    std::fprintf(stderr, "iotap: nothing to attribute: %s; %s (exit status 3)\n",
                 report::verdict_status_sentence(run.result).c_str(), outcome.why.c_str());
}

void add_kernel_stats(Json& devices, const KernelDiskStats& kernel_stats) {
  for (auto& device : devices) {
    const auto stats = kernel_stats.find(device.value("name", std::string()));
    if (stats != kernel_stats.end()) device["kernel_stats"] = disk_stats_json(stats->second);
  }
}

}  // namespace iotap::session
