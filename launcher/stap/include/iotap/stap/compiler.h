#pragma once
// stap, pass 4 only: a script becomes a kernel module, compiled on this host for the kernel
// that will load it. stap keeps its own cache (~/.systemtap/cache): the first compile for a
// kernel takes about two minutes, later ones seconds. iotap's module cache (module_cache.h),
// looked up before stap runs, makes a module compiled before ready in milliseconds.
#include <optional>
#include <string>
#include <vector>

namespace iotap::stap {

struct CompileRequest {
  std::string script_text;
  std::string script_name;     // how messages name the script
  std::string kernel_release;  // for `stap -r`; empty: the running kernel
  std::string runtime_dir;     // for `stap -R`; empty: SystemTap's own
  std::string work_dir;        // private; the module is written here
  // The script's own arguments, read in the script as $1/@1, $2/@2, ... (SystemTap's
  // classic way to pass a probe point or an interval, as para-callgraph.stp does).
  std::vector<std::string> script_args;
  // The block_hasher binary the block_hasher tapset probes (its @block_hasher_exe macro);
  // empty: the workload next to this iotap.
  std::string block_hasher_exe;
  // The user's stap options for the compile (StapOptions' compile_words: -D, -g, -v, ...),
  // already checked; they go before the script.
  std::vector<std::string> stap_options{};
  // iotap's module cache (module_cache_dir()); empty: none.
  std::string module_cache_dir{};
  // stap -m: "iotap", or a stamped name for a module made for another machine (module_stamp.h).
  std::string module_name = "iotap";
  // The io_replayer binary the io_replayer tapset probes (@io_replayer_exe), as
  // block_hasher_exe. Set by name, after the positional fields above.
  std::string io_replayer_exe{};
  // iotap's own scripts (the verbs', the bundled examples): handlers run with interrupts off
  // (-D INTERRUPTIBLE=0, unless stap_options set INTERRUPTIBLE), so that no interrupt's probe hit
  // is dropped uncounted. Off (a user's script): stap's own default, and its statement budgets.
  bool interrupts_off = false;
  // Make variables for `stap -B` that kernel's kbuild needs for 4.8's generated C
  // (runtime_adaptation.h's kbuild_variables); empty for a kernel 4.8 knows.
  std::vector<std::string> kbuild_variables{};
  // SystemTap's tapsets adapted to that kernel (runtime_adaptation.h's adapt_for_kernel), for
  // stap's SYSTEMTAP_TAPSET; empty: stap's own.
  std::string tapset_dir{};
  // iotap's tapsets, for -I; empty: the bundled ones (data_paths().tapsets). Another tree's, for
  // bench/overhead's --compare-tree.
  std::string iotap_tapset_dir{};
};

struct CompiledModule {
  std::string path;  // in the request's work dir
  // The script copy stap compiled: the module's run-time errors name that path.
  std::string compiled_script_path;
  bool from_cache = false;
};

// Where compile_module writes the script it hands stap: the file stap's messages name.
std::string script_copy_path(const std::string& work_dir);

// The bundled tapset directories passed with -I (besides a directory in the work dir where
// compile_module writes iotap_paths.stpm: the macros that say where this run's programs are).
std::vector<std::string> tapset_dirs();
// The request's: its iotap_tapset_dir instead of the bundled one, when it names one.
std::vector<std::string> tapset_dirs(const CompileRequest& request);

// The directory in the work dir that holds iotap_paths.stpm (see tapset_dirs).
std::string tapset_paths_dir(const std::string& work_dir);

// The macros file's text: @block_hasher_exe and @io_replayer_exe, the programs this run's
// tapsets probe by path.
std::string tapset_paths_text(const CompileRequest& request);

// The stap command compile_module runs: `stap -p4 -m NAME [-r] [-R] -I... OPTIONS -- SCRIPT
// ARGS...`. The `--` keeps a script argument that starts with '-' from being read as an option.
std::vector<std::string> stap_argv(const CompileRequest& request);

// `stap -V`'s first line ("Systemtap translator/driver (version 4.8/0.188, Debian version
// 4.8-2)"): a new SystemTap (its tapsets, its translator) makes new modules.
std::string stap_version();

// The request's key in the module cache (module_cache.h), computed once per run: it runs
// `stap -V` and reads the tapsets. Empty when the module cache is not used: no cache dir, stap's
// -v (it asks to see stap's passes), or no stap.
std::string module_key(const CompileRequest& request);

// The module compiled earlier under `key`, linked into the work dir, when the module cache has
// it; stap's warnings from then are printed again. None for an empty key.
std::optional<CompiledModule> cached_module(const CompileRequest& request, const std::string& key);

// Runs stap and, under a non-empty `key`, keeps the module in the module cache; throws UserError
// with stap's own diagnostics.
CompiledModule compile_module(const CompileRequest& request, const std::string& key = {});

}  // namespace iotap::stap
