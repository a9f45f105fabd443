// bench/pgbench: what the probes cost a database. pgbench's select-only transactions per second
// (pgbench -S) untraced, under iotap's module for the postgresql provider, and under bpftrace
// running the same probes (events.bt), in one guest boot. A program, not a test:
// docs/performance.md has its figures and the command that reproduces them.
//
// The guest is a --postgres run's (guest/postgres.sh: the cluster and pgbench's tables on the
// stack's file system), with bpftrace on the same tools image; each round (rounds.sh) starts the
// server afresh for each tracer and runs pgbench for a fixed time. The table shows each one's
// median tps over the rounds and its ratio to the untraced median, and what each tracer lost in
// its worst round: query begins missing from its output (pgbench -S makes one query a
// transaction) and what it counted itself as dropped.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "guest_rounds.h"
#include "iotap/config.h"
#include "iotap/guest/postgres_guest.h"
#include "iotap/guest/tools_image.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/provider/catalog.h"
#include "iotap/provider/script_generator.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/stack_spec/stack_plan.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/module_cache.h"
#include "iotap/stap/shared_runtime.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

namespace iotap::bench {
namespace {

constexpr const char* kUsage =
    "usage: pgbench_bench [--rounds N] [--seconds S] [--clients N] [--scale N] [--stack SPEC]\n"
    "\n"
    "Measures what tracing costs PostgreSQL 15 in the guest: pgbench -S (select-only) for S\n"
    "seconds (default 10) with N clients (default 2) on pgbench's tables at scale N (default 1:\n"
    "100000 accounts), untraced, under iotap's postgresql provider module and under bpftrace\n"
    "running bench/pgbench/events.bt (the same probes), N rounds (default 3), the cluster on the\n"
    "stack SPEC (default raid0(ram*2)).\n"
    "The guest boots the default guest kernel, or $IOTAP_GUEST_KERNEL's (a release or a prefix,\n"
    "as iotap's --guest-kernel: IOTAP_GUEST_KERNEL=6.12).\n";

struct Options {
  unsigned rounds = 3;
  unsigned seconds = 10;
  unsigned clients = 2;
  unsigned scale = 1;
  std::string stack = "raid0(ram*2)";
};

Options parse_options(int argc, char** argv) {
  Options options;
  const std::map<std::string, unsigned Options::*> numbers{{"--rounds", &Options::rounds},
                                                           {"--seconds", &Options::seconds},
                                                           {"--clients", &Options::clients},
                                                           {"--scale", &Options::scale}};
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "-h" || word == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    const auto number = numbers.find(word);
    if (number == numbers.end() && word != "--stack")
      throw UserError("unknown option '" + word + "'\n" + kUsage);
    if (i + 1 >= argc) throw UserError(word + " needs a value\n" + kUsage);
    const std::string value = argv[++i];
    if (number != numbers.end()) {
      options.*(number->second) = parse_number(word, value);
    } else {
      options.stack = value;
    }
  }
  return options;
}

void say(const std::string& text) {
  std::fprintf(stderr, "pgbench_bench: %s\n", text.c_str());
}

// The postgresql provider's script, written and compiled as iotap writes and compiles it for a
// --postgres run.
std::string provider_module(const std::string& server, const TempDir& work) {
  const provider::Provider provider = provider::find_provider("postgresql", data_paths().providers);
  const std::string release = guest::resolve_guest_kernel("");
  stap::CompileRequest request = guest_compile_request(
      provider::generated_script(provider, server), work / "postgresql.stp", release, work.path());
  request.interrupts_off = true;
  return guest_module(request, "postgresql.stp", release, say);
}

// One tracer's line of a round.
struct Measure {
  double tps = 0;
  uint64_t transactions = 0;
  uint64_t events = 0;
  uint64_t queries = 0;
  uint64_t dropped = 0;
};

std::map<std::string, std::vector<Measure>> parse_rounds(const std::string& output) {
  std::map<std::string, std::vector<Measure>> by_kind;  // untraced, iotap, bpftrace
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    int round = 0;
    std::string kind;
    words >> first;
    if (first == "error") throw UserError("the guest's rounds failed: " + line);
    if (first != "round" || !(words >> round >> kind)) continue;
    Measure measure;
    words >> measure.tps >> measure.transactions >> measure.events >> measure.queries >>
        measure.dropped;
    by_kind[kind].push_back(measure);
  }
  return by_kind;
}

double median_tps(const std::vector<Measure>& measures) {
  std::vector<double> values;
  values.reserve(measures.size());
  for (const auto& measure : measures) values.push_back(measure.tps);
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const size_t middle = values.size() / 2;
  return values.size() % 2 != 0 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

void report(const std::map<std::string, std::vector<Measure>>& by_kind, const Options& options) {
  const auto kind = [&](const std::string& name) -> const std::vector<Measure>& {
    static const std::vector<Measure> kNone;
    const auto it = by_kind.find(name);
    return it == by_kind.end() ? kNone : it->second;
  };
  const double untraced = median_tps(kind("untraced"));
  std::printf("pgbench -S -T %u -c %u, scale %u; %u rounds, medians\n", options.seconds,
              options.clients, options.scale, options.rounds);
  std::printf("  %-10s %10.1f tps\n", "untraced", untraced);
  for (const char* tracer : {"iotap", "bpftrace"}) {
    const std::vector<Measure>& measures = kind(tracer);
    if (measures.empty()) continue;
    uint64_t lost = 0;
    uint64_t dropped = 0;
    uint64_t events = 0;
    std::string rounds;
    for (const Measure& measure : measures) {
      // Every transaction is one query (-S, the simple protocol), and pgbench's own connection
      // makes a few more: fewer query begins than transactions were lost.
      const uint64_t missing =
          measure.transactions > measure.queries ? measure.transactions - measure.queries : 0;
      lost = std::max(lost, missing);
      dropped = std::max(dropped, measure.dropped);
      events = std::max(events, measure.events);
      rounds += (rounds.empty() ? "" : " ") +
                std::to_string(untraced > 0 ? measure.tps / untraced : 0.0).substr(0, 5);
    }
    const double tps = median_tps(measures);
    std::printf(
        "  %-10s %10.1f tps  %.3f of untraced (rounds: %s), %llu events, lost %llu queries'"
        " begins, %llu counted by the tracer (worst round)\n",
        tracer, tps, untraced > 0 ? tps / untraced : 0, rounds.c_str(),
        static_cast<unsigned long long>(events), static_cast<unsigned long long>(lost),
        static_cast<unsigned long long>(dropped));
  }
}

guest::VmRun guest_run(const Options& options, const std::string& module, const TempDir& work) {
  const std::string bpftrace = find_in_path("bpftrace");
  if (bpftrace.empty()) throw UserError("bpftrace is not installed (apt-get install bpftrace)");
  const guest::PostgresInstall install = guest::require_postgres_install();
  guest::PostgresFiles files = guest::postgres_files(install);
  say("building the tools image (PostgreSQL, bpftrace and their libraries; once, then cached)");
  files.programs.push_back(bpftrace);
  guest::VmRun run;
  run.tools_image = guest::tools_image(files.programs, data_paths().cache, files.files);
  const std::string bt = bpftrace_script(EVENTS_BT, "POSTGRES", install.server(), work);
  run.module_path = module;
  run.plain_command = true;
  run.stack = stack_spec::plan_stack(stack_spec::parse_stack_spec(options.stack));
  // pgbench's tables only: the default data set is not read, so it is made as small as it goes.
  run.postgres = guest::PostgresRun{.install = install,
                                    .device = run.stack->top_path(),
                                    .rows = 1,
                                    .drop_caches = false,
                                    .pgbench_scale = options.scale,
                                    .library_dirs = files.library_dirs};
  run.command = {"sh",
                 ROUNDS_SCRIPT,
                 std::to_string(options.rounds),
                 std::to_string(options.seconds),
                 std::to_string(options.clients),
                 bt,
                 STREAM_TEXT};
  run.programs = {STREAM_TEXT};
  run.files = {ROUNDS_SCRIPT, bt};
  return run;
}

int run(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  install_stop_handlers();
  const TempDir work("iotap-pgbench");
  const guest::PostgresInstall install = guest::require_postgres_install();
  const std::string module = provider_module(install.server(), work);
  guest::VmRun run = guest_run(options, module, work);
  const std::string output = run_rounds_in_guest(run, "pgbench_bench");
  report(parse_rounds(output), options);
  return 0;
}

}  // namespace
}  // namespace iotap::bench

int main(int argc, char** argv) {
  return iotap::bench::bench_main("pgbench_bench", [&] { return iotap::bench::run(argc, argv); });
}
