#include "iotap/session/fleet_run.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "iotap/remote/ssh_target.h"
#include "iotap/session/output_file.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

namespace iotap::session {

namespace {

// The verbs that trace a program on a target.
bool traces(std::string_view verb) {
  constexpr std::array<std::string_view, 9> kTracing{
      "diagnose", "attribute", "iotime", "latency", "callgraph", "top", "record", "replay", "run"};
  return std::ranges::find(kTracing, verb) != kTracing.end();
}

// Whether `arg` is the long option `name` ("--target"), whole or as boost abbreviates it (at
// least `shortest` characters: "--targ"), with or without "=VALUE".
bool is_long_option(std::string_view arg, std::string_view name, size_t shortest) {
  const std::string_view word = arg.substr(0, arg.find('='));
  return word.size() >= shortest && name.starts_with(word);
}

// What the fleet cannot pass on to each host, and why.
void refuse_per_host(std::string_view verb, std::string_view arg) {
  const std::string_view word = arg.substr(0, arg.find('='));
  if (word.starts_with("-x") || is_long_option(arg, "--pid", 4))
    throw UserError("-x names one process on one host: give one --target ssh:// with it");
  if (is_long_option(arg, "--html", 4) || is_long_option(arg, "--perfetto", 4) ||
      (verb == "callgraph" && is_long_option(arg, "--format", 4)))
    throw UserError(std::string(word) +
                    " writes one file: with several --target ssh:// hosts, use --json (each "
                    "host's result is in it) or run per host");
}

// The arguments each host's run gets: the verb's own, less every --target and -o (the fleet
// writes the report), with `host_words` (its --target and -o) ahead of any `--` (what follows
// that is the script's). Sets `output` to -o's file and `json` when --json is there.
std::vector<std::string> per_host_arguments(std::string_view verb,
                                            std::span<const std::string> args, std::string& output,
                                            bool& json) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = arg.find('=') != std::string::npos;
    if (arg == "--") {
      kept.insert(kept.end(), args.begin() + static_cast<ptrdiff_t>(i), args.end());
      break;
    }
    if (is_long_option(arg, "--target", 6)) {
      const std::string value =
          has_value ? arg.substr(arg.find('=') + 1) : (i + 1 < args.size() ? args[++i] : "");
      if (!value.starts_with("ssh://"))
        throw UserError("--target " + value +
                        " among several --target ssh:// hosts: a fleet is ssh:// hosts only");
      continue;
    }
    if (arg == "-o" || is_long_option(arg, "--output", 5)) {
      if (has_value) {
        output = arg.substr(arg.find('=') + 1);
      } else if (i + 1 < args.size()) {
        output = args[++i];
      }
      continue;
    }
    if (arg.starts_with("-o") && !arg.starts_with("--")) {
      output = arg.substr(2);
      continue;
    }
    refuse_per_host(verb, arg);
    if (arg == "--json") json = true;
    kept.push_back(arg);
  }
  return kept;
}

// The hosts, each once: ssh://db7 and ssh://root@db7:22 are one machine, and two runs there at
// once would share one module name.
void check_distinct(const std::vector<std::string>& targets) {
  std::vector<std::pair<std::string, uint16_t>> seen;
  for (const auto& target : targets) {
    const remote::SshHost host = remote::parse_ssh_target(target);
    const std::pair<std::string, uint16_t> machine{host.host, host.port == 0 ? 22 : host.port};
    if (std::ranges::find(seen, machine) != seen.end())
      throw UserError(target +
                      " names a host given before: each host once (iotap runs one "
                      "module per host at a time)");
    seen.push_back(machine);
  }
}

struct HostRun {
  std::string target;
  std::string name;  // for the prefix: the target without ssh://
  pid_t pid = -1;
  int stderr_fd = -1;
  LineSplitter lines;
  std::string last_error;
  std::string output_path;
  std::string result_path;
};

void forward_line(HostRun& host, std::string_view line) {
  if (line.starts_with("iotap: ")) host.last_error = line.substr(7);
  std::fprintf(stderr, "[%s] %.*s\n", host.name.c_str(), static_cast<int>(line.size()),
               line.data());
}

std::string self_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::system_error(error, "/proc/self/exe");
  return path.string();
}

// Host `index`'s own iotap, started with its stderr on a pipe; its report and its result go to
// files in `work`.
HostRun start_host_run(size_t index, const std::string& target, std::string_view verb,
                       const std::vector<std::string>& common, const TempDir& work,
                       const std::string& self) {
  HostRun run;
  run.target = target;
  run.name = run.target.substr(6);  // "ssh://"
  run.output_path = work / ("host" + std::to_string(index) + ".out");
  run.result_path = work / ("host" + std::to_string(index) + ".result.json");
  std::vector<std::string> argv{self, std::string(verb)};
  // Its own --target and -o, ahead of a "--" (the words after it are the script's).
  const auto tail = std::ranges::find(common, "--");
  argv.insert(argv.end(), common.begin(), tail);
  argv.insert(argv.end(), {"--target", run.target, "-o", run.output_path});
  argv.insert(argv.end(), tail, common.end());
  std::array<int, 2> err{};
  if (::pipe2(err.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  SpawnOptions options;
  options.stderr_fd = err[1];
  options.extra_env.push_back("IOTAP_FLEET_RESULT=" + run.result_path);
  // Each run stops on its own terms: the fleet passes a stop signal on to all of them.
  options.new_process_group = true;
  options.die_with_parent = true;
  options.activity = "while starting the run on " + run.name;
  run.pid = spawn(argv, options);
  ::close(err[1]);
  run.stderr_fd = err[0];
  return run;
}

// Every host's stderr line by line, prefixed with the host, until all have closed; a stop signal
// is passed on to every run.
void forward_stderr(std::vector<HostRun>& runs) {
  std::vector<pollfd> fds;
  fds.reserve(runs.size() + 1);
  for (const auto& run : runs) fds.push_back({run.stderr_fd, POLLIN, 0});
  fds.push_back({stop_fd(), POLLIN, 0});
  size_t open_fds = runs.size();
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR: seen on stop_fd next
    if (fds.back().revents != 0) {
      if (const int sig = take_stop(); sig != 0) {
        for (const auto& run : runs) ::kill(run.pid, sig);
      }
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 16384> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        runs[i].lines.feed(std::string_view(buffer.data(), static_cast<size_t>(n)),
                           [&run = runs[i]](std::string_view line) { forward_line(run, line); });
      } else if (n == 0 || errno != EINTR) {
        runs[i].lines.finish([&run = runs[i]](std::string_view line) { forward_line(run, line); });
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
}

HostOutcome outcome_of(const HostRun& run) {
  HostOutcome outcome;
  outcome.target = run.target;
  outcome.exit_status = wait_for(run.pid).code;
  outcome.last_error = run.last_error;
  std::error_code error;
  if (std::filesystem::exists(run.output_path, error)) outcome.output = read_file(run.output_path);
  if (std::filesystem::exists(run.result_path, error))
    outcome.result_json = read_file(run.result_path);
  return outcome;
}

// --json: the fleet's JSON; else each host's report under its name, then the summary.
std::string fleet_report(std::string_view verb, bool json,
                         const std::vector<HostOutcome>& outcomes) {
  if (json)
    return fleet_json(verb, outcomes)
               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  std::string text;
  for (const auto& outcome : outcomes) {
    text += "== " + outcome.target.substr(6) + " (exit status " +
            std::to_string(outcome.exit_status) + ") ==\n";
    text += outcome.output.empty() ? "(no report)\n" : outcome.output;
    if (!text.ends_with('\n')) text += '\n';
    text += '\n';
  }
  for (const auto& line : fleet_summary_lines(outcomes)) text += line + "\n";
  return text;
}

}  // namespace

int run_fleet(std::string_view verb, std::span<const std::string> args,
              const std::vector<std::string>& targets) {
  if (!traces(verb))
    throw UserError("iotap " + std::string(verb) +
                    " traces nothing: several --target ssh:// hosts are for the tracing verbs");
  if (verb == "record")
    throw UserError(
        "iotap record writes one recording: with several --target ssh:// hosts, record per host "
        "(-o FILE each)");
  check_distinct(targets);
  std::string output_path;
  bool json = false;
  const std::vector<std::string> common = per_host_arguments(verb, args, output_path, json);
  OutputFile out(output_path);  // a bad -o is said before any host is asked anything
  const TempDir work("iotap-fleet");
  const std::string self = self_executable();

  std::vector<HostRun> runs;
  runs.reserve(targets.size());
  for (size_t i = 0; i < targets.size(); ++i)
    runs.push_back(start_host_run(i, targets[i], verb, common, work, self));
  forward_stderr(runs);
  std::vector<HostOutcome> outcomes;
  outcomes.reserve(runs.size());
  for (const auto& run : runs) outcomes.push_back(outcome_of(run));
  out.write(fleet_report(verb, json, outcomes));
  // Stopped: each host's run reported what it had; the fleet's status says it was stopped.
  if (stop_signal() != 0) return 128 + stop_signal();
  return fleet_exit_status(outcomes);
}

}  // namespace iotap::session
