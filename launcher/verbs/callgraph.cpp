// iotap callgraph: every call and return of a program's functions, as a tree per thread
// (SystemTap's para-callgraph), as FlameGraph folded stacks, or as a Perfetto timeline.

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>

#include "iotap/callgraph/call_tree.h"
#include "iotap/callgraph/debug_info_check.h"
#include "iotap/callgraph/exception_probes.h"
#include "iotap/callgraph/formats.h"
#include "iotap/callgraph/probe_points.h"
#include "iotap/config.h"
#include "iotap/guest/elf_dependencies.h"
#include "iotap/report/overhead.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/program_output.h"
#include "iotap/session/traced_program.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack/stack_json.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/lines.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::add_target_options;
using session::check_target_options;
using session::OutputFile;
using session::parse_options;
using session::print_program_line;
using session::program_output_prefix;
using session::require_one_program;
using session::stderr_status_printer;
using session::target_kernel_release;
using session::TargetOptions;
using session::traced_program;
using session::traced_run;
using session::TracedRunResult;
using session::TracedRunSinks;
using session::TracedScript;

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap callgraph -c CMD | -x PID [--functions GLOB] [--trigger FUNC] [--kernel GLOB]
                       [--format text|folded|perfetto] [--json] [--target local|vm|ssh://HOST...] [--stack SPEC]

Prints every call and return of the program's functions while it runs, as an indented tree per
thread, in the style of SystemTap's para-callgraph.stp (it runs examples/callgraph.stp):

  thread 195 (pid 195)
     11584.180 block_hasher(195): ->main argc=0xa argv=0x7ffdc71bcb78
     26405.680 block_hasher(195):  ->open path=0x7ffdc71bc9e0 direct=0x1
     30395.990 block_hasher(195):  <-open (3990.310 us)
  thread 200 (pid 195)
    108775.340 block_hasher(200): ->read_blocks plan=0x564af2fc0a38 buffer={...} digest=0x564af2f9ef90

How to read it: one section per thread, in the order the threads started. Times are
microseconds since the first traced call; "->" is an entry with its arguments, "<-" the
matching return with its return value and, in brackets, the call's duration. Indentation is the
call depth within the thread. Kernel functions (--kernel) carry " [k]" and show their return
value only (no DWARF for the kernel). A call whose return was never seen says so.

The program needs a symbol table and debug info (build it with -g, do not strip it); iotap checks
before compiling and says what to rebuild. Only functions with debug info are traced: not crt's
_start or _init, nor the parts GCC splits off a function ("f.cold", entered by a jump, where a
return probe would overwrite the frame). Functions inlined by the compiler have no calls to
trace. The program's own output goes to stderr, each line prefixed with its name.

C++ exceptions: a return probe replaces its function's return address with the kernel's
uretprobe trampoline, which the C++ unwinder cannot unwind through; a throw through a traced
function would abort the program (std::terminate, SIGABRT, exit 134). So iotap also probes
the unwinder (_Unwind_RaiseException, _Unwind_ForcedUnwind, _Unwind_Resume_or_Rethrow in
libgcc_s or the program) to put the real return addresses back, and __cxa_begin_catch to put
the trampolines back for the frames still alive. The program exits as it does untraced; a
call an exception unwound shows "unwound by an exception" and its duration instead of a return.
backtrace() (libgcc's _Unwind_Backtrace) still stops at the first traced frame.

--format folded   FlameGraph's folded stacks ("block_hasher-318;read_blocks;hex_of 42"), each
                  path weighted by its own microseconds: flamegraph.pl out.folded > out.svg
--format perfetto Chrome trace JSON: a track per thread, a slice per call with its arguments;
                  open it in https://ui.perfetto.dev or chrome://tracing
--format raw      examples/callgraph.stp's own lines, for other tools (its header documents
                  them)
--json            the tree as JSON: {"schema": "iotap.callgraph/1", "program", "start_ns",
                  "duration_ns", "entries", "returns", "unmatched_returns", "unfinished_calls",
                  "unwound_calls", "threads": [{"pid", "tid", "first_ns", "last_ns", "calls":
                  [{"function", "kernel", "entry_ns", "return_ns" (null: no return seen),
                  "arguments", "return", "unwound" (an exception unwound it), "calls": [...]}]}],
                  "stack", "exit_status", "overhead"}; times in ns since start_ns

examples:
  iotap callgraph --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap callgraph --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' --trigger read_blocks \
      --kernel 'raid0:raid0_*' -c 'block_hasher -d __DEV__ -b 1048576 -t 2 -n 4 --direct'
  iotap callgraph -c './myprog --flag' --functions 'parse_*' --format folded -o out.folded

options)";

enum class Format { kText, kFolded, kPerfetto, kJson, kRaw };

Format parse_format(const std::string& text, bool json) {
  if (json && text != "text")
    throw UserError("--json is the tree as JSON: give it or --format, not both");
  if (json) return Format::kJson;
  if (text == "text") return Format::kText;
  if (text == "folded") return Format::kFolded;
  if (text == "perfetto") return Format::kPerfetto;
  if (text == "raw") return Format::kRaw;
  throw UserError(
      "--format must be text, folded, perfetto or raw (or --json for the tree as JSON)");
}

// Cuts the script's stream into lines: call events go to the tree, the rest (the program's own
// output) to stderr, prefixed (session/program_output.h).
class StreamReader {
 public:
  explicit StreamReader(std::string program_prefix) : program_prefix_(std::move(program_prefix)) {}
  void feed(std::string_view bytes) {
    lines_.feed(bytes, [this](std::string_view line) { take(line); });
  }
  callgraph::CallGraph finish() {
    lines_.finish([this](std::string_view line) { take(line); });
    return builder_.build();
  }
  // The script's own lines, as they came.
  [[nodiscard]] const std::string& raw() const { return raw_; }

 private:
  void take(std::string_view line) {
    if (auto event = callgraph::parse_call_event(line)) {
      builder_.add(std::move(*event));
      raw_.append(line).push_back('\n');
    } else {
      print_program_line(program_prefix_, line);
    }
  }

  std::string program_prefix_;
  LineSplitter lines_;
  std::string raw_;
  callgraph::CallTreeBuilder builder_;
};

TracedRunResult run_script(const TracedScript& script, const TargetOptions& options,
                           StreamReader& reader) {
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.output = [&reader](std::string_view bytes) { reader.feed(bytes); };
  TracedScript with_symbols = script;
  // Return probes need stap to see the kernel's symbol table (runner/kernel_tree.h).
  with_symbols.compile_kernel_symbols = true;
  with_symbols.report_overhead = true;
  // A skipped --trigger entry loses its thread's whole tree: the lock budget that makes that a
  // host stall of 1 s is iotap's own scripts' (stap/compiler.cpp), and a skip is said below.
  try {
    return traced_run(with_symbols, options, sinks);
  } catch (const UserError& error) {
    // stap decides whether the kernel has uretprobes from the kernel's symbol table, and
    // Debian's /boot/System.map is a stub: say so rather than leave stap's riddle.
    if (std::string_view(error.what()).find("process return probes not available") ==
        std::string_view::npos)
      throw;
    throw UserError(
        "stap cannot see the target kernel's symbol table, so it refuses return probes (it "
        "checks the table for uretprobe support): install the kernel's -dbg package, or give "
        "stap a System.map for it (see docs/toolbox.md, iotap callgraph)");
  }
}

std::string render(Format format, const StreamReader& reader, const callgraph::CallGraph& graph,
                   const std::string& program, const TracedRunResult& run) {
  switch (format) {
    case Format::kRaw:
      return reader.raw();
    case Format::kText:
      return callgraph::text_format(graph, program);
    case Format::kFolded:
      return callgraph::folded_format(graph, program);
    case Format::kPerfetto:
      return callgraph::perfetto_format(graph, program);
    case Format::kJson: {
      Json json = callgraph::json_tree(graph, program);
      json["stack"] = stack_json(run.devices);
      json["exit_status"] = run.exit_status;
      json["overhead"] = report::overhead_json(run.overhead);
      return to_text(json);
    }
  }
  return "";
}

// The C++ runtime's unwinder and catch in the program or its libraries (the guest has them at
// the same paths). A library that cannot be found fails the run later, with its own message.
callgraph::ExceptionProbePoints exception_probes(const std::string& program) {
  std::vector<std::string> files{program};
  try {
    const auto libraries = guest::runtime_dependencies(program);
    files.insert(files.end(), libraries.begin(), libraries.end());
  } catch (const UserError&) {
  }
  return callgraph::exception_probe_points(files);
}

}  // namespace

int callgraph(Args args) {
  TargetOptions options;
  callgraph::ProbeSelection selection;
  std::string format_text = "text";
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "functions", po::value(&selection.functions)->value_name("GLOB"),
      "the program's functions to trace (default: all of them)")(
      "trigger", po::value(&selection.trigger)->value_name("FUNC"),
      "trace only calls made inside FUNC (and FUNC itself), per thread")(
      "kernel", po::value(&selection.kernel)->value_name("GLOB"),
      "also kernel functions called by the program's threads: MODULE:GLOB (e.g. 'raid0:raid0_*', "
      "expanded from the module's .ko) or a vmlinux GLOB (needs the kernel's symbol table)")(
      "format", po::value(&format_text)->value_name("FORMAT"),
      "text (default), folded, perfetto or raw");
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, kHelp)) return 0;
  const Format format = parse_format(format_text, options.json);
  require_one_program(options, "to trace", " (see 'iotap callgraph --help')");
  check_target_options(options);

  selection.program = traced_program(options);
  selection.kernel_release = target_kernel_release(options);
  if (const std::string problem = callgraph::missing_debug_info(selection.program);
      !problem.empty())
    throw UserError(problem);
  selection.exceptions = exception_probes(selection.program);

  OutputFile out(options.output_path);
  StreamReader reader(program_output_prefix(selection.program));
  const TracedRunResult run =
      run_script({data_paths().examples + "/callgraph.stp", callgraph::script_arguments(selection)},
                 options, reader);
  const callgraph::CallGraph graph = reader.finish();
  if (run.skipped_probes > 0)
    std::fprintf(stderr,
                 "iotap: warning: SystemTap skipped %llu probe hit(s) (a global's lock held "
                 "longer than 1 s): calls are missing from the tree, a whole thread's if a "
                 "--trigger entry was one\n",
                 static_cast<unsigned long long>(run.skipped_probes));
  if (graph.threads.empty())
    std::fprintf(stderr,
                 "iotap: no calls were traced (does --functions/--trigger match a function the "
                 "program calls? inlined functions have no calls)\n");

  const std::string program = std::filesystem::path(selection.program).filename().string();
  const std::string text = render(format, reader, graph, program, run);
  out.write(text);
  return run.exit_status;
}

}  // namespace iotap::verbs
