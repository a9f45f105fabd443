#include "verbs/traced_run.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "iotap/config.h"
#include "stap/compiler.h"
#include "stap/script.h"
#include "stap/stap_cache.h"
#include "stap/stap_stderr.h"
#include "target/local_runner.h"
#include "target/vm/kernel_tree.h"
#include "target/vm/stack_spec.h"
#include "util/error.h"
#include "util/files.h"
#include "util/stop_signal.h"
#include "util/temp_dir.h"
#include "verbs/program_output.h"
#include "verbs/traced_program.h"

namespace iotap::verbs {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The local kernel's table: /proc/kallsyms shows addresses only to root (kptr_restrict).
std::shared_ptr<const symbols::KernelSymbols> local_kernel_symbols() {
  const std::string text = read_file("/proc/kallsyms");
  if (symbols::addresses_hidden(text))
    throw UserError(
        "/proc/kallsyms hides kernel addresses from this user (kernel.kptr_restrict): run iotap "
        "as root to name kernel functions");
  return std::make_shared<const symbols::KernelSymbols>(symbols::KernelSymbols::parse(text));
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

TracedRunResult traced_run(const TracedScript& script, const TargetOptions& options,
                           const TracedRunSinks& sinks) {
  const std::string& script_path = script.path;
  check_target_options(options);
  // Missing, unreadable, empty, a directory or a FIFO: said now, before anything slow.
  const std::string script_text = stap::read_script(script_path);
  const bool vm = options.target == Target::kVm;
  if (!vm) {
    const std::string problem = local_kernel_problem();
    if (!problem.empty()) throw UserError(problem);
  }

  const std::optional<vm::StackPlan> stack = plan_target_stack(options);
  std::optional<ResolvedCommand> command;
  if (!options.command_line.empty()) command = resolve_command(options.command_line, stack);
  // What would otherwise fail only after minutes of compiling: TMPDIR, the guest's sockets
  // and memory.
  temp_base();
  if (vm)
    vm::check_vm_run(options.memory_mib,
                     command ? std::vector{command->program} : std::vector<std::string>{});

  stap::Markers markers;
  if (command) markers.exe = command->program;
  if (options.pid) {
    markers.pid = *options.pid;
    markers.exe = pid_executable(*options.pid);
  }

  // A marker without a value (__PID__ without -x) is said before anything slow, too.
  const std::string prepared = stap::substitute_markers(script_text, markers, script_path);

  TracedRunResult result;
  result.kernel_release = target_kernel_release(options);
  if (stack) result.top_device = stack->top_path();

  std::string compile_kernel = result.kernel_release;
  if (vm && script.compile_kernel_symbols) {
    compile_kernel = vm::guest_kernel_tree(config::kGuestKernel, config::kCacheDir, [&sinks] {
      sinks.status(
          "reading the guest kernel's symbol table for stap (once: it is kept in build/cache)");
      vm::VmRun harvest;
      harvest.kernel_symbols = true;
      std::string kallsyms;
      vm::VmEvents events;
      events.stdout_data = [](std::string_view) {};
      events.stderr_data = [](std::string_view) {};
      events.status = [](std::string_view) {};
      events.device = [](const StackDevice&) {};
      events.kernel_symbols = [&kallsyms](std::string text) { kallsyms = std::move(text); };
      vm::run_in_vm(harvest, events);
      if (kallsyms.empty())
        throw UserError("the guest did not send its symbol table (see the console lines above)");
      return kallsyms;
    });
  }

  TempDir work("iotap-run");
  const auto compile_start = Clock::now();
  const std::string runtime_dir = vm ? config::kStapRuntimeDir : "";
  const bool cold = !stap::stap_cache_is_warm(stap::stap_cache_dir(), compile_kernel, runtime_dir);
  sinks.status("compiling " + std::filesystem::path(script_path).filename().string() +
               " for kernel " + result.kernel_release +
               (cold ? " (the first compile for a kernel takes about 2 minutes; later ones are "
                       "cached)"
                     : ""));
  const std::string module = stap::compile_module(
      {prepared, script_path, compile_kernel, runtime_dir, work.path(), script.args});
  result.compile_seconds = seconds_since(compile_start);
  std::array<char, 32> took{};
  std::snprintf(took.data(), took.size(), "%.1f", result.compile_seconds);
  sinks.status(std::string("compiled in ") + took.data() + " s");

  stap::StapStderr stderr_filter(
      [&sinks](std::string_view line) {
        if (sinks.diagnostic) {
          sinks.diagnostic(line);
        } else {
          std::fwrite(line.data(), 1, line.size(), stderr);
        }
      },
      [prefix = program_output_prefix(markers.exe.value_or(""))](std::string_view line) {
        print_program_line(prefix, line);  // the program's stderr (verbs/program_output.h)
      });
  // The module's run-time errors name the script as it was compiled.
  stderr_filter.name_script(stap::script_copy_path(work.path()), script_path);
  const auto run_start = Clock::now();
  if (vm) {
    vm::VmRun run;
    run.module_path = module;
    run.kernel_symbols = script.kernel_symbols;
    run.stack = stack;
    run.memory_mib = options.memory_mib;
    run.timeout = std::chrono::seconds(options.timeout_seconds);
    if (command) {
      run.command = command->argv;
      run.programs = {command->program};
    }
    vm::VmEvents events;
    events.stdout_data = sinks.output;
    events.stderr_data = [&](std::string_view bytes) { stderr_filter.feed(bytes); };
    events.status = [&](std::string_view phrase) {
      if (phrase == "running") {
        for (const auto& line : describe_stack(result.devices)) sinks.status(line);
        if (sinks.stack) sinks.stack(result.devices);
      }
      if (phrase == "running" && command) {
        std::string shown;
        for (const auto& word : command->argv) shown += (shown.empty() ? "" : " ") + word;
        sinks.status("running " + shown);
      } else {
        sinks.status(phrase);
      }
    };
    events.device = [&](const StackDevice& device) { result.devices.push_back(device); };
    events.kernel_symbols = [&](std::string text) {
      result.kernel_symbols = std::make_shared<const symbols::KernelSymbols>(
          symbols::KernelSymbols::parse(std::move(text)));
      sinks.status("kernel symbol table: " + std::to_string(result.kernel_symbols->size()) +
                   " functions");
      if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
    };
    const vm::VmResult vm_result = run_in_vm(run, events);
    result.staprun_status = vm_result.exit_status;
    result.interrupted = vm_result.interrupted;
    result.timed_out = vm_result.timed_out;
  } else {
    if (script.kernel_symbols) {
      result.kernel_symbols = local_kernel_symbols();
      if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
    }
    LocalRun run;
    run.module_path = module;
    run.pid = options.pid;
    run.timeout = std::chrono::seconds(options.timeout_seconds);
    if (command) run.command = command->argv;
    result.staprun_status =
        run_local(run, {sinks.output, [&](std::string_view bytes) { stderr_filter.feed(bytes); }});
    result.interrupted = stop_signal() != 0;
  }
  stderr_filter.flush();
  result.run_seconds = seconds_since(run_start);
  result.target_exit_status = stderr_filter.target_exit_status();
  result.program_last_stderr_line = stderr_filter.last_program_line();

  // stapio exits 1 when the -c program failed, and says how it failed: that is the status to
  // pass on. Otherwise a failing staprun is the failure.
  if (result.interrupted) {
    result.exit_status = 128 + stop_signal();  // 130 after Ctrl-C, 143 after SIGTERM
  } else if (result.target_exit_status) {
    result.exit_status = *result.target_exit_status;
  } else if (result.staprun_status != 0 && !result.timed_out) {
    result.exit_status = result.staprun_status;
    sinks.status("staprun exited with status " + std::to_string(result.staprun_status));
  }
  return result;
}

}  // namespace iotap::verbs
