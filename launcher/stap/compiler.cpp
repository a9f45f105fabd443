#include "iotap/stap/compiler.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "iotap/config.h"
#include "iotap/stap/build_failure.h"
#include "iotap/stap/module_cache.h"
#include "iotap/stap/script.h"
#include "iotap/stap/stap_cache.h"
#include "iotap/stap/stap_stderr.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"

namespace iotap::stap {

std::string script_copy_path(const std::string& work_dir) {
  return work_dir + "/iotap.stp";
}

std::vector<std::string> tapset_dirs() {
  return {data_paths().tapsets};
}

std::vector<std::string> tapset_dirs(const CompileRequest& request) {
  if (request.iotap_tapset_dir.empty()) return tapset_dirs();
  return {request.iotap_tapset_dir};
}

std::string tapset_paths_dir(const std::string& work_dir) {
  return work_dir + "/tapset-paths";
}

std::vector<std::string> stap_argv(const CompileRequest& request) {
  std::vector<std::string> argv{"stap", "-p4", "-m", request.module_name};
  if (!request.kernel_release.empty()) argv.insert(argv.end(), {"-r", request.kernel_release});
  if (!request.runtime_dir.empty()) argv.insert(argv.end(), {"-R", request.runtime_dir});
  for (const auto& variable : request.kbuild_variables) argv.insert(argv.end(), {"-B", variable});
  for (const auto& dir : tapset_dirs(request)) argv.insert(argv.end(), {"-I", dir});
  argv.insert(argv.end(), {"-I", tapset_paths_dir(request.work_dir)});
  // stap 4.x runs handlers with interrupts enabled (INTERRUPTIBLE=1). A probe hit from an
  // interrupt (a disk's completion in its hardirq or softirq) that lands while another handler
  // runs on that CPU is then dropped, and counted nowhere (only STP_TIMING counts it): 2% to
  // 15% of null_blk's completions went missing that way. With interrupts off in handlers, the
  // interrupt waits the microseconds a handler takes and its probe runs after; any probe still
  // skipped is counted in "skipped probes". iotap's own scripts need every completion, so they
  // get that. A user's script does not: in stap 4.8's generated code INTERRUPTIBLE=0 also
  // gives begin, end, init and tracepoint handlers MAXACTION (1,000 statements) instead of
  // MAXACTION_INTERRUPTIBLE (10,000), and syscall_any's init alone runs 1,660 ("MAXACTION
  // exceeded" before the script's begin probe, where stap runs it). A -D INTERRUPTIBLE of the
  // user's own wins either way.
  const bool user_sets_interruptible =
      std::ranges::any_of(request.stap_options, [](const std::string& word) {
        return word == "INTERRUPTIBLE" || word.starts_with("INTERRUPTIBLE=");
      });
  if (request.interrupts_off && !user_sets_interruptible)
    argv.insert(argv.end(), {"-D", "INTERRUPTIBLE=0"});
  // A probe that finds a global locked by another CPU's handler tries MAXTRYLOCK times, 10 us
  // apart, then is skipped: a lost event (a callgraph --trigger entry: a whole thread's tree).
  // A handler holds a lock for microseconds unless its CPU stops running, as a vCPU does when
  // the host deschedules it (TCG on a busy host, an overcommitted cloud VM: 10-42 ms measured
  // here, docs/engine.md). stap's 100 (1 ms) skipped 6 and 11 of ~29k hits of PostgreSQL's
  // backends; 1000 (10 ms) lost a callgraph worker's tree in a CI run on a loaded host. 1 s:
  // a wait that long never happens unless the holder is stalled, and stays far inside the
  // kernel's lockup watchdogs (10 s and more). The user's own -D MAXTRYLOCK wins.
  const bool user_sets_trylock =
      std::ranges::any_of(request.stap_options,
                          [](const std::string& word) { return word.starts_with("MAXTRYLOCK="); });
  if (request.interrupts_off && !user_sets_trylock)
    argv.insert(argv.end(), {"-D", "MAXTRYLOCK=100000"});
  argv.insert(argv.end(), request.stap_options.begin(), request.stap_options.end());
  argv.insert(argv.end(), {"--", script_copy_path(request.work_dir)});
  argv.insert(argv.end(), request.script_args.begin(), request.script_args.end());
  return argv;
}

// The tapsets name programs by macro (@block_hasher_exe, @io_replayer_exe), written per compile
// from what this run traces, so that no path is fixed where iotap was built. The directory is one
// of its own (passed with -I), since stap would read the script copy in work_dir as a tapset too.
std::string tapset_paths_text(const CompileRequest& request) {
  const std::string exe = request.block_hasher_exe.empty()
                              ? data_paths().workloads + "/block_hasher/block_hasher"
                              : request.block_hasher_exe;
  const std::string replayer = request.io_replayer_exe.empty()
                                   ? data_paths().workloads + "/io_replayer/io_replayer"
                                   : request.io_replayer_exe;
  return "@define block_hasher_exe %( \"" + string_literal_body(exe) + "\" %)\n" +
         "@define io_replayer_exe %( \"" + string_literal_body(replayer) + "\" %)\n";
}

namespace {

void write_tapset_paths(const CompileRequest& request) {
  std::string dir = tapset_paths_dir(request.work_dir);
  std::filesystem::create_directories(dir);
  write_file(dir + "/iotap_paths.stpm", tapset_paths_text(request));
}

std::string module_path_in(const CompileRequest& request) {
  return request.work_dir + "/" + request.module_name + ".ko";
}

// stap says nothing when a signal ends it: killed outright, or stopped between two of its steps
// (its handler only counts the signal there, and stap exits 1 at its next check).
std::string silent_failure(const ExitStatus& status) {
  if (status.signaled) {
    const int sig = status.code - 128;
    const char* name = ::sigabbrev_np(sig);
    return "stap was killed by " +
           (name != nullptr ? "SIG" + std::string(name) : "signal " + std::to_string(sig)) +
           " before it finished: run again";
  }
  return "stap exited with status " + std::to_string(status.code) +
         " without a message, as it does when a signal (`pkill stap`, a shutdown) stops it: run "
         "again";
}

}  // namespace

std::string stap_version() {
  const Captured result = capture({"stap", "-V"});
  // SystemTap 4.8 prints it on stdout; older ones did on stderr.
  const std::string_view text = result.out.empty() ? result.err : result.out;
  return std::string(text.substr(0, text.find('\n')));
}

std::string module_key(const CompileRequest& request) {
  if (request.module_cache_dir.empty() ||
      std::ranges::find(request.stap_options, "-v") != request.stap_options.end() ||
      find_in_path("stap").empty())
    return {};
  std::vector<std::string> argv = stap_argv(request);
  // The work dir is new each run; the module does not depend on where it was.
  for (auto& word : argv) {
    if (word.starts_with(request.work_dir)) word = "@work" + word.substr(request.work_dir.size());
  }
  // Named by content (shared_runtime.h), like the runtime: the path is the tapsets' identity.
  if (!request.tapset_dir.empty()) argv.push_back("SYSTEMTAP_TAPSET=" + request.tapset_dir);
  return module_cache_key({stap_version(), argv, request.script_name, request.script_text,
                           tapset_paths_text(request), tapset_dirs(request), request.runtime_dir,
                           request.kernel_release});
}

std::optional<CompiledModule> cached_module(const CompileRequest& request, const std::string& key) {
  if (key.empty()) return std::nullopt;
  const std::optional<CachedModule> cached = ModuleCache(request.module_cache_dir).find(key);
  if (!cached) return std::nullopt;
  // A link, not the entry's own path: eviction by another run may remove the entry meanwhile.
  const std::string module = module_path_in(request);
  std::error_code error;
  std::filesystem::create_hard_link(cached->module_path, module, error);
  if (error) std::filesystem::copy_file(cached->module_path, module, error);
  if (error) return std::nullopt;
  if (!cached->warnings.empty()) std::fputs(cached->warnings.c_str(), stderr);
  return CompiledModule{module, cached->compiled_script_path, true};
}

CompiledModule compile_module(const CompileRequest& request, const std::string& key) {
  if (find_in_path("stap").empty())
    throw UserError(
        std::string("stap is not installed (apt-get install systemtap; ./setup.sh does; ") +
        kDoctorHint + ")");
  const std::string script = script_copy_path(request.work_dir);
  write_file(script, request.script_text);
  write_tapset_paths(request);
  const std::vector<std::string> argv = stap_argv(request);
  SpawnOptions options;
  options.cwd = request.work_dir;
  // stap's own build dir (and gcc's temp files) go inside iotap's private dir, so that whatever
  // stops the compile, removing that one dir removes them too.
  options.extra_env = {"TMPDIR=" + request.work_dir};
  if (!request.tapset_dir.empty())
    options.extra_env.push_back("SYSTEMTAP_TAPSET=" + request.tapset_dir);
  // stap runs make and gcc: in a group of their own they can be stopped together
  // (util/stop_signal.h), and a Ctrl-C on the terminal reaches iotap alone.
  options.new_process_group = true;
  options.die_with_parent = true;
  options.activity = "while compiling " + request.script_name + " (nothing ran)";
  const auto started = std::filesystem::file_time_type::clock::now();
  const Captured result = capture(argv, options);
  // stap stopped by a signal of its own (not iotap's stop, which kills its whole group at once)
  // ends its kbuild and caches the queries it cut short as empty (stap_cache.h).
  if (!result.status.ok() && result.err.find("kbuild exited with signal") != std::string::npos)
    forget_unfinished_tracepoint_queries(stap_cache_dir(), started);
  std::string diagnostics;
  StapStderr filter([&](std::string_view line) { diagnostics += line; });
  // stap names the file it was given, in errors and warnings alike; the user knows it by its
  // own name.
  filter.name_script(script, request.script_name);
  filter.feed(result.err);
  filter.flush();
  if (!result.status.ok()) {
    // A runtime that does not build is not the script's fault, and kbuild's hundreds of lines
    // hide the one that says so.
    // Not when the user's -D or guru-mode C could have broken the runtime's build instead.
    const bool user_changed_build =
        std::ranges::any_of(request.stap_options, [](const std::string& word) {
          return word.starts_with("-D") || word == "-g" || word == "--guru-mode";
        });
    const std::string runtime_failure =
        user_changed_build ? std::string() : explain_runtime_build_failure(diagnostics);
    if (!runtime_failure.empty())
      throw UserError("stap could not compile " + request.script_name + ": " + runtime_failure);
    if (diagnostics.empty())
      throw UserError("stap could not compile " + request.script_name + ": " +
                      silent_failure(result.status));
    throw UserError("stap could not compile " + request.script_name + ":\n" + diagnostics);
  }
  if (!diagnostics.empty()) std::fputs(diagnostics.c_str(), stderr);  // stap's warnings
  CompiledModule compiled{module_path_in(request), script, false};
  if (!key.empty()) {
    try {
      ModuleCache(request.module_cache_dir).store(key, {compiled.path, script, diagnostics});
    } catch (const UserError& error) {
      // The run goes on; only the next one is slower.
      std::fprintf(stderr, "iotap: the module is not cached: %s\n", error.what());
    }
  }
  return compiled;
}

}  // namespace iotap::stap
