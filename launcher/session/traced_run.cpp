#include "iotap/session/traced_run.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "iotap/config.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/interval/skipped_probes.h"
#include "iotap/report/overhead.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/session/postgres_options.h"
#include "iotap/session/program_output.h"
#include "iotap/session/request_source.h"
#include "iotap/session/runner_for.h"
#include "iotap/session/traced_program.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/hit_report.h"
#include "iotap/stap/module_cache.h"
#include "iotap/stap/module_info.h"
#include "iotap/stap/module_stamp.h"
#include "iotap/stap/probe_failure.h"
#include "iotap/stap/runtime_adaptation.h"
#include "iotap/stap/script.h"
#include "iotap/stap/shared_runtime.h"
#include "iotap/stap/stap_cache.h"
#include "iotap/stap/stap_stderr.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/file_lock.h"
#include "iotap/util/files.h"
#include "iotap/util/sha256.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

namespace iotap::session {
using interval::skipped_probes_in;
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A tapset probes the traced program itself when it has the tapset's provider's probes,
// wherever it lives and whatever it is called (a copy of block_hasher named bh2 is followed,
// not the workload next to iotap); otherwise compile_module's default, the workload next to
// iotap. The program's USDT notes are read once, for both tapsets.
void probe_the_traced_program(const std::optional<std::string>& exe,
                              stap::CompileRequest& request) {
  if (!exe) return;
  const std::string provider = known_usdt_provider(*exe);
  if (provider == "block_hasher") request.block_hasher_exe = *exe;
  if (provider == "io_replayer") request.io_replayer_exe = *exe;
}

}  // namespace

std::vector<std::string> describe_stack(const std::vector<StackDevice>& devices) {
  std::vector<std::string> lines;
  for (const auto& device : devices) {
    std::string members;
    for (const StackDevice* member : children_of(devices, device)) members += " " + member->name;
    if (device.parent.empty()) lines.push_back("stack top: " + device.name + " = " + device.spec);
    if (!members.empty()) lines.push_back("  " + device.name + " " + device.spec + " <-" + members);
  }
  return lines;
}

std::function<void(std::string_view)> stderr_status_printer() {
  const auto start = Clock::now();
  return [start](std::string_view phrase) {
    std::fprintf(stderr, "iotap: [%5.1fs] %.*s\n", seconds_since(start),
                 static_cast<int>(phrase.size()), phrase.data());
  };
}

namespace {

// What a run is made of, settled and checked before anything slow.
struct PreparedRun {
  std::unique_ptr<runner::Runner> runner;  // where the probes run (session/runner_for.h)
  std::optional<stack_spec::StackPlan> stack;
  std::optional<ResolvedCommand> command;
  stap::Markers markers;
  std::string script_text;  // markers substituted
};

PreparedRun prepare_run(const std::string& script_path, const TargetOptions& options) {
  check_target_options(options);
  PreparedRun prepared;
  // Missing, unreadable, empty, a directory or a FIFO: said now, before anything slow.
  const std::string script_text = stap::read_script(script_path);
  prepared.stack = plan_target_stack(options);
  prepared.runner = runner_for(options, prepared.stack);
  auto& command = prepared.command;
  if (!options.command_line.empty())
    command = resolve_command(options.command_line, prepared.stack, postgres_program_dir(options));
  // What would otherwise fail only after minutes of compiling: TMPDIR, the guest's sockets
  // and memory.
  temp_base();
  prepared.runner->check_programs(
      command ? std::vector{command->program} : std::vector<std::string>{},
      command ? command->files : std::vector<std::string>{});

  if (command) prepared.markers.exe = command->program;
  if (options.pid) {
    prepared.markers.pid = *options.pid;
    prepared.markers.exe = target_pid_executable(options);
    prepared.runner->check_pid_program(*options.pid, *prepared.markers.exe);
  }
  // A marker without a value (__PID__ without -x) is said before anything slow, too.
  prepared.script_text = stap::substitute_markers(script_text, prepared.markers, script_path);
  return prepared;
}

// -d MODULE and --all-modules name the target kernel's modules (runner/runner.h).
stap::StapOptions stap_options_for_target(stap::StapOptions options, const PreparedRun& prepared) {
  prepared.runner->resolve_unwind_modules(options.unwind_modules, options.all_modules);
  return options;
}

// --module FILE: the module a --save-module of this same run made, or a one-line refusal.
stap::CompiledModule saved_module(const stap::CompileRequest& request, const TargetOptions& options,
                                  const TempDir& work, const TracedRunSinks& sinks) {
  const std::string& path = options.module_path;
  const stap::ModuleInfo info = stap::read_module_info(path);
  if (const std::string problem =
          stap::saved_module_problem(path, info, stap::module_stamp(request));
      !problem.empty())
    throw UserError(problem);
  // staprun names the module after its file, and stapio finds the module's channels by that
  // name: the copy it loads is called as the module calls itself.
  const std::string module = work.path() + "/" + info.name + ".ko";
  std::error_code error;
  std::filesystem::copy_file(path, module, error);
  if (error) throw UserError("cannot copy the module '" + path + "': " + error.message());
  sinks.status(std::filesystem::path(path).filename().string() + ": saved module for kernel " +
               info.release());
  return {module, "", false};
}

// --save-module FILE: the compiled module written there, whole or not at all; then the run ends.
[[noreturn]] void save_module(const std::string& module, const TargetOptions& options,
                              const std::string& release) {
  const std::string& path = options.save_module_path;
  const std::string partial = path + ".partial";
  std::error_code error;
  std::filesystem::copy_file(module, partial, std::filesystem::copy_options::overwrite_existing,
                             error);
  if (!error) std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial);
    throw UserError("cannot write the module to '" + path + "': " + error.message());
  }
  throw FinishedEarly("module for kernel " + release + " saved to " + path +
                      ": on a machine running that kernel, run this command there with --module " +
                      path + " in place of --save-module (and --for-kernel)");
}

// What iotap knows of the kernel's debuginfo, to explain stap's "no match".
stap::KernelDebugState kernel_debug_state(const PreparedRun& prepared, const std::string& release) {
  // On this host's own kernel stap may also fetch it from a debuginfod server.
  const bool here = prepared.runner->is_this_machine();
  const char* debuginfod = here ? std::getenv("DEBUGINFOD_URLS") : nullptr;
  const bool found = runner::find_kernel_debuginfo(release).has_value() ||
                     (debuginfod != nullptr && *debuginfod != '\0');
  std::string hint = runner::debuginfo_install_hint(release);
  if (here) hint += ", or set DEBUGINFOD_URLS to a debuginfod server that has it";
  return {release, found, hint};
}

// The prepared script's module in `work`: from iotap's module cache when it has it, else
// compiled (and kept there).
stap::CompiledModule compile_script(const TracedScript& script, const PreparedRun& prepared,
                                    const TargetOptions& options, const TempDir& work,
                                    TracedRunResult& result, const TracedRunSinks& sinks) {
  const std::string compile_kernel =
      prepared.runner->compile_kernel(script.compile_kernel_symbols, sinks.status);
  const bool saving = !options.save_module_path.empty();
  const auto compile_start = Clock::now();
  // SystemTap's runtime adapted to the module's kernel, whichever the target: the guest, a
  // host, or a --save-module for a machine running it.
  const stap::KernelAdaptation adaptation = stap::adapt_for_kernel(result.kernel_release);
  const std::string& runtime_dir = adaptation.runtime_dir;
  const std::string script_name = std::filesystem::path(script.path).filename().string();
  stap::CompileRequest request{prepared.script_text,
                               script.path,
                               compile_kernel,
                               runtime_dir,
                               work.path(),
                               script.args,
                               /*block_hasher_exe=*/"",
                               stap::compile_words(script.stap_options),
                               stap::module_cache_dir(data_paths().cache + "/modules")};
  probe_the_traced_program(prepared.markers.exe, request);
  request.interrupts_off = script.interrupts_off;
  request.kbuild_variables = adaptation.kbuild_variables;
  request.tapset_dir = adaptation.tapset_dir;
  if (!options.module_path.empty()) return saved_module(request, options, work, sinks);
  if (saving) request.module_name = stap::stamped_module_name(stap::module_stamp(request));
  const std::string key = stap::module_key(request);
  if (auto cached = stap::cached_module(request, key)) {
    sinks.status(script_name + ": module from cache (kernel " + result.kernel_release + ")");
    return *std::move(cached);
  }
  // One compile per module: another run making this one (a fleet's host of the same kernel, a
  // colleague's run of the same script) is waited for, and its module taken.
  std::unique_ptr<FileLock> compiling;
  if (!key.empty()) {
    compiling = stap::ModuleCache(request.module_cache_dir).compiling(key, [&] {
      sinks.status("waiting for another iotap run compiling the same module (" + script_name +
                   " for kernel " + result.kernel_release + ")");
    });
    if (auto cached = stap::cached_module(request, key)) {
      sinks.status(script_name + ": module from cache, compiled by another run meanwhile (kernel " +
                   result.kernel_release + ")");
      return *std::move(cached);
    }
  }
  const bool cold = !stap::stap_cache_is_warm(stap::stap_cache_dir(), compile_kernel, runtime_dir);
  sinks.status("compiling " + script_name + " for kernel " + result.kernel_release +
               (cold ? " (the first compile for a kernel takes about 2 minutes; later ones are "
                       "cached)"
                     : ""));
  stap::CompiledModule module;
  try {
    module = stap::compile_module(request, key);
  } catch (const UserError& error) {
    // stap's lines stay; iotap adds why a kernel probe did not resolve, when it knows.
    const std::string why = stap::explain_probe_failure(
        error.what(), kernel_debug_state(prepared, result.kernel_release));
    if (why.empty()) throw;
    throw UserError(error.what() + why);
  }
  result.compile_seconds = seconds_since(compile_start);
  std::array<char, 32> took{};
  std::snprintf(took.data(), took.size(), "%.1f", result.compile_seconds);
  sinks.status(std::string("compiled in ") + took.data() + " s");
  return module;
}

// The status line for a phrase the guest sent; at "running", the stack it built first.
void show_guest_status(std::string_view phrase, const PreparedRun& prepared,
                       const TracedRunResult& result, const TracedRunSinks& sinks) {
  if (phrase != "running") {
    sinks.status(phrase);
    return;
  }
  for (const auto& line : describe_stack(result.devices)) sinks.status(line);
  if (sinks.stack) sinks.stack(result.devices);
  if (!prepared.command) {
    sinks.status(phrase);
    return;
  }
  std::string shown;
  for (const auto& word : prepared.command->argv) shown += (shown.empty() ? "" : " ") + word;
  sinks.status("running " + shown);
}

runner::RunRequest run_request(const TracedScript& script, const TargetOptions& options,
                               const PreparedRun& prepared) {
  runner::RunRequest request;
  if (prepared.command) {
    request.command = prepared.command->argv;
    request.programs = {prepared.command->program};
    request.files = prepared.command->files;
  }
  request.pid = options.pid;
  request.timeout = std::chrono::seconds(options.timeout_seconds);
  request.staprun_options = stap::staprun_words(script.stap_options);
  request.module_options = stap::module_words(script.stap_options);
  request.kernel_symbols = script.kernel_symbols;
  request.program_stdout_to_stderr = !script.program_stdout_in_stream;
  request.postgres_client = options.attached_postgres_client;
  return request;
}

// Runs the module `build_module` makes where the options say (a guest boots while it compiles).
void run_on_target(const runner::ModuleBuilder& build_module, const TracedScript& script,
                   const TargetOptions& options, const PreparedRun& prepared,
                   stap::StapStderr& stderr_filter, TracedRunResult& result,
                   const TracedRunSinks& sinks) {
  runner::RunEvents events;
  events.stdout_data = sinks.output;
  events.stderr_data = [&](std::string_view bytes) { stderr_filter.feed(bytes); };
  events.status = [&](std::string_view phrase) {
    show_guest_status(phrase, prepared, result, sinks);
  };
  events.device = [&](const StackDevice& device) { result.devices.push_back(device); };
  events.kernel_symbols = [&](std::shared_ptr<const symbols::KernelSymbols> table) {
    result.kernel_symbols = std::move(table);
    if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
  };
  const runner::RunResult run =
      prepared.runner->run(build_module, run_request(script, options, prepared), events);
  result.staprun_status = run.exit_status;
  result.interrupted = run.interrupted;
  result.timed_out = run.timed_out;
  result.kernel_stats = run.kernel_stats;
  result.traced_seconds = run.traced_seconds;
  result.postgres = run.postgres;
}

// stapio exits 1 when the -c program failed, and says how it failed: that is the status to
// pass on. Otherwise a failing staprun is the failure.
void settle_exit_status(TracedRunResult& result, const TracedRunSinks& sinks) {
  if (result.interrupted) {
    result.exit_status = 128 + stop_signal();  // 130 after Ctrl-C, 143 after SIGTERM
  } else if (result.target_exit_status) {
    result.exit_status = *result.target_exit_status;
  } else if (result.staprun_status != 0 && !result.timed_out) {
    result.exit_status = result.staprun_status;
    sinks.status("staprun exited with status " + std::to_string(result.staprun_status));
  }
}

}  // namespace

std::optional<double> measured_ns_per_hit(const TargetOptions& options) {
  // The one target whose cost per hit is measured: the guest under TCG, block_hasher's 4 KiB
  // reads, bench/overhead (docs/performance.md: 8.6 us per hit, iotap as it runs now).
  constexpr double kTcgGuestNsPerHit = 8'600;
  if (options.target == Target::kVm && guest::guest_is_emulated()) return kTcgGuestNsPerHit;
  return std::nullopt;
}

TracedRunResult traced_run(const TracedScript& asked, const TargetOptions& options,
                           const TracedRunSinks& asked_sinks) {
  const PreparedRun prepared = prepare_run(asked.path, options);
  TracedRunResult result;
  result.kernel_release = prepared.runner->kernel_release();
  if (prepared.stack) result.top_device = prepared.stack->top_path();

  // With report_overhead, the module counts its probes' hits (stap -t) and reports them at its
  // end, into the output: taken out here (stap/hit_report.h).
  TracedScript script = asked;
  script.stap_options = stap_options_for_target(asked.stap_options, prepared);
  TracedRunSinks sinks = asked_sinks;
  std::optional<stap::HitReport> hit_report;
  if (script.report_overhead && asked_sinks.output) {
    script.stap_options.probe_timing = true;
    hit_report.emplace(asked_sinks.output);
    sinks.output = [&hit_report](std::string_view bytes) { hit_report->feed(bytes); };
  }

  TempDir work("iotap-run");
  stap::StapStderr stderr_filter(
      [&sinks, &result](std::string_view line) {
        if (const auto skipped = skipped_probes_in(line)) result.skipped_probes = *skipped;
        if (sinks.diagnostic) {
          sinks.diagnostic(line);
        } else {
          std::fwrite(line.data(), 1, line.size(), stderr);
        }
      },
      [prefix = program_output_prefix(prepared.markers.exe.value_or(""))](std::string_view line) {
        print_program_line(prefix, line);  // the program's stderr (session/program_output.h)
      });
  const auto compile = [&] {
    const stap::CompiledModule module =
        compile_script(script, prepared, options, work, result, sinks);
    // The module's run-time errors name the script as it was compiled.
    stderr_filter.name_script(module.compiled_script_path, script.path);
    if (!options.save_module_path.empty()) save_module(module.path, options, result.kernel_release);
    return module.path;
  };
  const auto run_start = Clock::now();
  run_on_target(compile, script, options, prepared, stderr_filter, result, sinks);
  stderr_filter.flush();
  result.run_seconds = seconds_since(run_start);
  result.target_exit_status = stderr_filter.target_exit_status();
  result.program_last_stderr_line = stderr_filter.last_program_line();
  if (hit_report) {
    hit_report->finish();
    // A module that never reached its end (the guest killed) printed no report: nothing to say.
    if (const std::optional<uint64_t> hits = hit_report->hits()) {
      result.overhead = report::overhead(*hits, result.skipped_probes, result.traced_seconds,
                                         measured_ns_per_hit(options));
      std::fputs(("iotap: " + report::overhead_line(*result.overhead)).c_str(), stderr);
    }
  }
  settle_exit_status(result, sinks);
  return result;
}

}  // namespace iotap::session
