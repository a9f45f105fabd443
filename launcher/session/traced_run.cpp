#include "iotap/session/traced_run.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>

#include "iotap/config.h"
#include "iotap/guest/guest_modules.h"
#include "iotap/interval/skipped_probes.h"
#include "iotap/local/local_runner.h"
#include "iotap/local/local_stack.h"
#include "iotap/remote/ssh_target.h"
#include "iotap/report/overhead.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/session/program_output.h"
#include "iotap/session/request_source.h"
#include "iotap/session/traced_program.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/hit_report.h"
#include "iotap/stap/module_cache.h"
#include "iotap/stap/module_info.h"
#include "iotap/stap/module_stamp.h"
#include "iotap/stap/probe_failure.h"
#include "iotap/stap/script.h"
#include "iotap/stap/shared_runtime.h"
#include "iotap/stap/stap_cache.h"
#include "iotap/stap/stap_stderr.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/sha256.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

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
  bool vm = false;
  bool ssh = false;  // --target ssh://: compiled here for the host's kernel, run there
  std::optional<stack_spec::StackPlan> stack;
  std::optional<ResolvedCommand> command;
  stap::Markers markers;
  std::string script_text;  // markers substituted
};

// A program on the host whose digest (`there`; empty: unknown) is not this machine's copy's:
// its USDT probes are placed from this copy, so they may miss there. Said, not refused.
void warn_if_copies_differ(const std::string& what, const std::string& there,
                           const std::string& program) {
  if (there.empty() || there == Sha256().update_file(program).hex()) return;
  std::fprintf(stderr,
               "iotap: warning: %s differs from this machine's %s: probes in it (USDT) are "
               "placed from this copy and may miss or misfire there\n",
               what.c_str(), program.c_str());
}

// stap compiles here for the host's kernel: its headers must be on this machine.
void check_host_kernel_here(const TargetOptions& options) {
  const std::string problem =
      remote::kernel_headers_problem(*options.ssh_host, host_facts(options).release);
  if (!problem.empty()) throw UserError(problem);
}

// The -c program runs on the host from its own copy, at the path it has here: the probes are
// compiled from this machine's copy.
void check_program_on_host(const TargetOptions& options, const std::string& program) {
  const remote::HostFacts& facts = host_facts(options);
  if (const std::string problem = remote::program_problem(*options.ssh_host, facts, program);
      !problem.empty())
    throw UserError(problem);
  warn_if_copies_differ(options.ssh_host->name() + "'s " + program, facts.program_sha256, program);
}

// -x on a host: the probes on its program are placed from this machine's copy at the same path.
void check_pid_program_here(const TargetOptions& options, const std::string& program) {
  const std::string host = options.ssh_host->name();
  if (!is_executable_file(program))
    throw UserError("-x " + std::to_string(*options.pid) + " runs " + program + " on " + host +
                    ", which this machine lacks: iotap places the probes from a copy at the same "
                    "path here (copy it here)");
  warn_if_copies_differ("the program of -x " + std::to_string(*options.pid) + " on " + host,
                        host_facts(options).pid_exe_sha256, program);
}

// --target local: this machine compiles and runs (its headers, modules, root), runs a module
// saved elsewhere (no headers needed), or only compiles, for --for-kernel's release.
void check_local_machine(const TargetOptions& options) {
  if (!options.save_module_path.empty()) {
    const std::string release = target_kernel_release(options);
    if (!std::filesystem::exists("/lib/modules/" + release + "/build"))
      throw UserError("compiling for kernel " + release + " needs its headers on this machine (" +
                      "/lib/modules/" + release + "/build): apt-get install linux-headers-" +
                      release);
    return;
  }
  if (!options.module_path.empty()) {
    const stap::ModuleInfo info = stap::read_module_info(options.module_path);
    const std::string release = local::local_kernel_release();
    if (info.release() != release)
      throw UserError(options.module_path + " was compiled for kernel " + info.release() +
                      ", but this machine runs " + release + ": save it again with --for-kernel " +
                      release);
  }
  const std::string problem =
      options.module_path.empty() ? local::local_kernel_problem() : local::local_load_problem();
  if (!problem.empty()) throw UserError(problem);
}

PreparedRun prepare_run(const std::string& script_path, const TargetOptions& options) {
  check_target_options(options);
  PreparedRun prepared;
  // Missing, unreadable, empty, a directory or a FIFO: said now, before anything slow.
  const std::string script_text = stap::read_script(script_path);
  prepared.vm = options.target == Target::kVm;
  prepared.ssh = options.target == Target::kSsh;
  if (options.target == Target::kLocal) check_local_machine(options);
  if (prepared.ssh) check_host_kernel_here(options);

  prepared.stack = plan_target_stack(options);
  auto& command = prepared.command;
  if (!options.command_line.empty())
    command = resolve_command(options.command_line, prepared.stack);
  // What would otherwise fail only after minutes of compiling: TMPDIR, the guest's sockets
  // and memory.
  temp_base();
  if (prepared.vm)
    guest::check_vm_run(options.memory_mib,
                        command ? std::vector{command->program} : std::vector<std::string>{},
                        command ? command->files : std::vector<std::string>{});

  if (command) prepared.markers.exe = command->program;
  if (command && prepared.ssh) check_program_on_host(options, command->program);
  if (options.pid) {
    prepared.markers.pid = *options.pid;
    prepared.markers.exe = target_pid_executable(options);
    if (prepared.ssh) check_pid_program_here(options, *prepared.markers.exe);
  }
  // A marker without a value (__PID__ without -x) is said before anything slow, too.
  prepared.script_text = stap::substitute_markers(script_text, prepared.markers, script_path);
  return prepared;
}

// -d MODULE and --all-modules for a --target vm run: the guest kernel's own module files (stap
// -d PATH). stap, compiling on this host, would look a name up among this kernel's modules and
// read this host's /proc/modules for --all-modules, and the guest's md and dm modules would get
// no unwind data ("Missing unwind data for a module", frames below them "(inexact)"). Said before
// anything slow; other targets get stap's own reading of them.
stap::StapOptions stap_options_for_target(stap::StapOptions options, const PreparedRun& prepared) {
  if (!prepared.vm) return options;
  for (auto& module : options.unwind_modules) {
    // A path is the user's file; "kernel" is stap's name for vmlinux.
    if (module.find('/') != std::string::npos || module == "kernel") continue;
    try {
      module = guest::guest_module_file(config::kGuestKernel, module);
    } catch (const UserError& error) {
      throw UserError("-d " + module + ": " + error.what());
    }
  }
  if (options.all_modules) {
    // stap's --all-modules: every module in /proc/modules, and the kernel.
    options.all_modules = false;
    std::vector<std::string> files =
        guest::guest_loaded_module_files(config::kGuestKernel, prepared.stack);
    files.emplace_back("kernel");
    for (auto& file : files) {
      if (std::ranges::find(options.unwind_modules, file) == options.unwind_modules.end())
        options.unwind_modules.push_back(std::move(file));
    }
  }
  return options;
}

// The guest kernel's symbol table, read by booting the guest once without a module.
std::string harvest_guest_kallsyms(const TracedRunSinks& sinks) {
  sinks.status(
      "reading the guest kernel's symbol table for stap (once: it is kept in build/cache)");
  guest::VmRun harvest;
  harvest.kernel_symbols = true;
  std::string kallsyms;
  guest::VmEvents events;
  events.stdout_data = [](std::string_view) {};
  events.stderr_data = [](std::string_view) {};
  events.status = [](std::string_view) {};
  events.device = [](const StackDevice&) {};
  events.kernel_symbols = [&kallsyms](std::string text) { kallsyms = std::move(text); };
  guest::run_in_vm(harvest, events);
  if (kallsyms.empty())
    throw UserError("the guest did not send its symbol table (see the console lines above)");
  return kallsyms;
}

// What stap compiles against for --target vm (runner/kernel_tree.h).
std::string vm_compile_kernel(const TracedScript& script, const TracedRunSinks& sinks) {
  return runner::guest_compile_kernel(
      config::kGuestKernel, script.compile_kernel_symbols,
      [&sinks] { return harvest_guest_kallsyms(sinks); }, runner::guest_kernel_trees_dir());
}

// The host's /proc/kallsyms, refused when it hides the addresses (a login that is not root:
// kernel.kptr_restrict), which would make a System.map of zeros.
std::string host_kallsyms(const TargetOptions& options) {
  std::string text = remote::read_host_kallsyms(*options.ssh_host, host_facts(options));
  if (symbols::addresses_hidden(text))
    throw UserError(options.ssh_host->name() + "'s /proc/kallsyms hides kernel addresses from " +
                    host_facts(options).user +
                    " (kernel.kptr_restrict): log in as root or with passwordless sudo, or "
                    "install the kernel's debuginfo here (" +
                    runner::debuginfo_install_hint(host_facts(options).release) + ")");
  return text;
}

// The same for an ssh host: the tree for its release, its System.map (when the script needs
// one and the -dbg package is not here) from the host's own /proc/kallsyms.
std::string ssh_compile_kernel(const TracedScript& script, const TargetOptions& options,
                               const TracedRunSinks& sinks) {
  const remote::HostFacts& facts = host_facts(options);
  return runner::guest_compile_kernel(
      facts.release, script.compile_kernel_symbols,
      [&] {
        sinks.status("reading " + options.ssh_host->name() +
                     "'s kernel symbol table for stap (once per kernel release)");
        return host_kallsyms(options);
      },
      runner::guest_kernel_trees_dir());
}

// iotap's adapted runtime is made for the guest kernel (cmake/StapRuntimeCompat.cmake): any
// module for that release gets it (a host or a --save-module for a machine running it), any other
// SystemTap's own.
std::string runtime_for(const PreparedRun& prepared, const std::string& release) {
  if (prepared.vm || release == config::kGuestKernel) return stap::guest_runtime_dir();
  return "";
}

// --save-module --for-kernel R (not this machine's) for a script that needs kernel symbols to
// compile: the guest's table for the guest's release; another kernel's is not here.
std::string saved_module_kallsyms(const std::string& release, const TracedRunSinks& sinks) {
  if (release == config::kGuestKernel) return harvest_guest_kallsyms(sinks);
  throw UserError("compiling this script for kernel " + release +
                  " needs that kernel's symbols: install its debuginfo here (" +
                  runner::debuginfo_install_hint(release) +
                  "), or compile and run it in one go with --target ssh://HOST");
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
  const bool here = !prepared.vm && !prepared.ssh;
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
  std::string compile_kernel = result.kernel_release;
  if (prepared.vm) compile_kernel = vm_compile_kernel(script, sinks);
  if (prepared.ssh) compile_kernel = ssh_compile_kernel(script, options, sinks);
  const bool saving = !options.save_module_path.empty();
  if (saving && result.kernel_release != local::local_kernel_release()) {
    compile_kernel = runner::guest_compile_kernel(
        result.kernel_release, script.compile_kernel_symbols,
        [&] { return saved_module_kallsyms(result.kernel_release, sinks); },
        runner::guest_kernel_trees_dir());
  }
  const auto compile_start = Clock::now();
  const std::string runtime_dir = runtime_for(prepared, result.kernel_release);
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
  if (!options.module_path.empty()) return saved_module(request, options, work, sinks);
  if (saving) request.module_name = stap::stamped_module_name(stap::module_stamp(request));
  const std::string key = stap::module_key(request);
  if (auto cached = stap::cached_module(request, key)) {
    sinks.status(script_name + ": module from cache (kernel " + result.kernel_release + ")");
    return *std::move(cached);
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

void run_on_vm(const std::function<std::string()>& build_module, const TracedScript& script,
               const TargetOptions& options, const PreparedRun& prepared,
               stap::StapStderr& stderr_filter, TracedRunResult& result,
               const TracedRunSinks& sinks) {
  guest::VmRun run;
  run.build_module = build_module;
  run.kernel_symbols = script.kernel_symbols;
  run.stack = prepared.stack;
  run.memory_mib = options.memory_mib;
  run.timeout = std::chrono::seconds(options.timeout_seconds);
  run.staprun_options = stap::staprun_words(script.stap_options);
  run.module_options = stap::module_words(script.stap_options);
  run.program_stdout_to_stderr = !script.program_stdout_in_stream;
  if (prepared.command) {
    run.command = prepared.command->argv;
    run.programs = {prepared.command->program};
    run.files = prepared.command->files;
  }
  guest::VmEvents events;
  events.stdout_data = sinks.output;
  events.stderr_data = [&](std::string_view bytes) { stderr_filter.feed(bytes); };
  events.status = [&](std::string_view phrase) {
    show_guest_status(phrase, prepared, result, sinks);
  };
  events.device = [&](const StackDevice& device) { result.devices.push_back(device); };
  events.kernel_symbols = [&](std::string text) {
    result.kernel_symbols = std::make_shared<const symbols::KernelSymbols>(
        symbols::KernelSymbols::parse(std::move(text)));
    sinks.status("kernel symbol table: " + std::to_string(result.kernel_symbols->size()) +
                 " functions");
    if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
  };
  const guest::VmResult vm_result = run_in_vm(run, events);
  result.staprun_status = vm_result.exit_status;
  result.interrupted = vm_result.interrupted;
  result.timed_out = vm_result.timed_out;
  result.kernel_stats = vm_result.kernel_stats;
  result.traced_seconds = vm_result.traced_seconds;
}

void run_locally(const std::string& module, const TracedScript& script,
                 const TargetOptions& options, const PreparedRun& prepared,
                 stap::StapStderr& stderr_filter, TracedRunResult& result,
                 const TracedRunSinks& sinks) {
  if (script.kernel_symbols) {
    result.kernel_symbols = local_kernel_symbols();
    if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
  }
  // The stacks and the kernel's counts, as a host reports them (local/local_stack.h).
  local::LocalStack stack;
  result.devices = stack.devices();
  show_guest_status("running", prepared, result, sinks);
  local::LocalRun run;
  run.module_path = module;
  run.pid = options.pid;
  run.timeout = std::chrono::seconds(options.timeout_seconds);
  run.staprun_options = stap::staprun_words(script.stap_options);
  run.module_options = stap::module_words(script.stap_options);
  if (prepared.command) run.command = prepared.command->argv;
  const auto start = Clock::now();
  const local::LocalResult local = local::run_local(
      run, {sinks.output, [&](std::string_view bytes) { stderr_filter.feed(bytes); }});
  result.staprun_status = local.exit_status;
  result.timed_out = local.timed_out;
  result.traced_seconds = seconds_since(start);
  result.interrupted = stop_signal() != 0;
  result.kernel_stats = stack.after_run();
}

void run_on_ssh_host(const std::string& module, const TracedScript& script,
                     const TargetOptions& options, const PreparedRun& prepared,
                     stap::StapStderr& stderr_filter, TracedRunResult& result,
                     const TracedRunSinks& sinks) {
  const remote::SshHost& host = *options.ssh_host;
  const remote::HostFacts& facts = host_facts(options);
  if (script.kernel_symbols) {
    result.kernel_symbols = std::make_shared<const symbols::KernelSymbols>(
        symbols::KernelSymbols::parse(host_kallsyms(options)));
    if (sinks.kernel_symbols) sinks.kernel_symbols(result.kernel_symbols);
  }
  remote::SshRun run;
  run.module_path = module;
  run.pid = options.pid;
  run.timeout = std::chrono::seconds(options.timeout_seconds);
  run.staprun_options = stap::staprun_words(script.stap_options);
  run.module_options = stap::module_words(script.stap_options);
  run.program_stdout_to_stderr = !script.program_stdout_in_stream;
  if (prepared.command) run.command = prepared.command->argv;
  remote::SshEvents events;
  events.stdout_data = sinks.output;
  events.stderr_data = [&](std::string_view bytes) { stderr_filter.feed(bytes); };
  events.status = [&](std::string_view phrase) {
    show_guest_status(phrase, prepared, result, sinks);
  };
  events.device = [&](const StackDevice& device) { result.devices.push_back(device); };
  const remote::SshResult ssh_result = remote::run_over_ssh(host, facts, run, events);
  result.staprun_status = ssh_result.exit_status;
  result.interrupted = ssh_result.interrupted && !ssh_result.timed_out;
  result.timed_out = ssh_result.timed_out;
  result.kernel_stats = ssh_result.kernel_stats;
  result.traced_seconds = ssh_result.traced_seconds;
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
  result.kernel_release = target_kernel_release(options);
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
    return module.path;
  };
  const auto run_start = Clock::now();
  if (prepared.vm) {
    // A guest booted for the run boots while the script compiles.
    run_on_vm(compile, script, options, prepared, stderr_filter, result, sinks);
  } else if (prepared.ssh) {
    const std::string module = compile();
    run_on_ssh_host(module, script, options, prepared, stderr_filter, result, sinks);
  } else {
    const std::string module = compile();
    if (!options.save_module_path.empty()) save_module(module, options, result.kernel_release);
    run_locally(module, script, options, prepared, stderr_filter, result, sinks);
  }
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

}  // namespace iotap::verbs
