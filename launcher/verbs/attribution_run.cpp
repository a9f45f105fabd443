#include "verbs/attribution_run.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "iotap/config.h"
#include "iotap/report.h"
#include "util/error.h"
#include "verbs/json.h"
#include "verbs/number_option.h"
#include "verbs/parse_options.h"
#include "verbs/report_output.h"

namespace iotap::verbs {

std::vector<engine::StackDevice> engine_stack(const std::vector<vm::GuestDevice>& devices) {
  std::vector<engine::StackDevice> stack;
  stack.reserve(devices.size());
  for (const auto& device : devices) {
    engine::StackDevice out;
    out.name = device.name;
    out.dev = device.major << 20 | device.minor;
    out.spec = device.spec;
    for (const auto& other : devices) {
      if (other.id == device.parent) out.parent = other.name;
    }
    out.md_level = device.md_level;
    out.chunk_bytes = device.chunk_bytes;
    out.md_members = device.md_members;
    out.dm_table = device.dm_table;
    stack.push_back(std::move(out));
  }
  return stack;
}

AttributionRun run_attribution(const TargetOptions& options, size_t slowest) {
  if (options.command_line.empty() && !options.pid) {
    throw UserError(
        "give the program whose reads to follow: -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 "
        "--direct' or -x PID");
  }
  // The engine starts when the guest has said what the stack is; the stream follows.
  std::optional<engine::Engine> engine;
  std::vector<std::string> early_warnings;
  const engine::Options engine_options{slowest};
  const auto start_engine = [&](const std::vector<vm::GuestDevice>& devices) {
    if (!engine) engine.emplace(engine_stack(devices), engine_options);
  };
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
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
  out.run = traced_run(std::string(config::kExampleDir) + "/events.stp", options, sinks);
  start_engine(out.run.devices);
  for (const auto& line : early_warnings) engine->note_stap_warning(line);
  out.result = engine->finish();
  return out;
}

int attribution_verb(std::span<const std::string> args, const char* help, bool waterfalls) {
  namespace po = boost::program_options;
  TargetOptions options;
  size_t slowest = 0;
  po::options_description visible;
  visible.add_options()("help,h", "show this help");
  if (waterfalls) {
    visible.add_options()(
        "slowest",
        positive_number({"--slowest", "a positive number of reads", "reads", 1'000'000},
                        [&](uint64_t n) { slowest = static_cast<size_t>(n); })
            ->value_name("N"),
        "print the N slowest reads as waterfalls");
  }
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, help)) return 0;

  ReportOutput out(options.output_path);
  const AttributionRun run = run_attribution(options, slowest);
  std::string text;
  if (options.json) {
    Json json = report::json(run.result);
    json["stack"] = stack_json(run.run.devices);
    json["exit_status"] = run.run.exit_status;
    text = to_text(json);
  } else {
    text = report::text(run.result, slowest > 0);
  }
  out.write(text);
  return run.run.exit_status;
}

}  // namespace iotap::verbs
