#include "iotap/session/interval_run.h"

#include <unistd.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <optional>

#include "iotap/report/overhead.h"
#include "iotap/session/output_file.h"
#include "iotap/session/program_output.h"
#include "iotap/session/traced_program.h"
#include "iotap/util/error.h"

namespace iotap::session {
using interval::TableBlock;
using interval::TableBlockReader;

namespace {

// Home the cursor and clear the screen: each frame of the live view starts on a blank terminal.
constexpr const char* kClearScreen = "\x1b[H\x1b[2J";
// The live view keeps the program's latest lines under the table, as its frames wipe them.
constexpr size_t kRecentProgramLines = 5;

std::string json_line(const std::string& schema, const Json& fields) {
  Json line{{"schema", schema}};
  line.update(fields);
  return line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string loss_sentence(uint64_t skipped) {
  if (skipped == 0) return "loss: none\n";
  return "loss: SystemTap skipped " + std::to_string(skipped) +
         " probe hits (a global's lock stayed busy, as under qemu's emulation): the counts above "
         "may be short by as many\n";
}

}  // namespace

int run_interval_verb(const IntervalVerb& verb, const TargetOptions& options) {
  OutputFile out(options.output_path);
  const std::string program_prefix = program_output_prefix(traced_program(options));
  const bool live = verb.live_view && !options.json && out.is_terminal();
  std::vector<StackDevice> stack;
  std::optional<TableBlock> whole_run;
  std::deque<std::string> recent_lines;

  auto draw_frame = [&](const TableBlock& block) {
    std::string frame = std::string(kClearScreen) + verb.live_title + "\n\n" + block.text;
    if (!recent_lines.empty()) frame += "program output:\n";
    for (const auto& line : recent_lines) frame += line;
    out.write(frame);
  };
  TableBlockReader reader(
      [&](const TableBlock& block) {
        if (block.kind == TableBlock::Kind::kWholeRun) {
          whole_run = block;
          // As JSON it waits for the run's end, to carry the exit status and the loss.
          if (!options.json) out.write((live ? "\n" : "") + block.text);
        } else if (options.json) {
          out.write(json_line(verb.schema, verb.to_json(block, stack)));
        } else if (live) {
          draw_frame(block);
        } else {
          out.write(block.text);
        }
      },
      [&](std::string_view line) {
        // The program's output goes to stderr, prefixed (session/program_output.h): stdout
        // carries only the tables or the JSON lines. The live view also keeps the latest lines
        // under its table, as its frames wipe the terminal (and stderr when it is the same).
        if (live) {
          recent_lines.emplace_back(program_prefix).append(line);
          if (recent_lines.size() > kRecentProgramLines) recent_lines.pop_front();
          if (::isatty(STDERR_FILENO) != 0) return;
        }
        print_program_line(program_prefix, line);
      });

  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.output = [&](std::string_view bytes) { reader.feed(bytes); };
  sinks.stack = [&](const std::vector<StackDevice>& devices) { stack = devices; };
  TracedScript script = verb.script;
  script.report_overhead = true;
  const TracedRunResult result = traced_run(script, options, sinks);
  reader.finish();

  if (!whole_run) {
    if (result.exit_status != 0) return result.exit_status;
    throw UserError(std::filesystem::path(verb.script.path).filename().string() +
                    " printed no whole-run table (its messages, if any, are above)");
  }
  if (options.json) {
    Json fields = verb.to_json(*whole_run, stack);
    fields["exit_status"] = result.exit_status;
    fields["loss"] = {{"skipped_probes", result.skipped_probes}};
    fields["overhead"] = report::overhead_json(result.overhead);
    out.write(json_line(verb.schema, fields));
  } else {
    out.write(loss_sentence(result.skipped_probes));
  }
  return result.exit_status;
}

}  // namespace iotap::session
