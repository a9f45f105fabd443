#pragma once
// What the guest benches (overhead/, pgbench/) share: their options' numbers; their script's
// module, compiled as iotap compiles it; their rounds run in one guest boot, the guest's stderr
// and status shown as they come, its stdout (one line per round) kept for the report and echoed
// whole on stderr for the record; their main.
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "iotap/guest/guest_kernels.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/module_cache.h"
#include "iotap/stap/runtime_adaptation.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::bench {

// An option's value that must be a positive whole number (--rounds 3).
inline unsigned parse_number(const std::string& name, const std::string& text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0)
    throw UserError(name + " takes a positive whole number; got '" + text + "'");
  return value;
}

// A request for `script_text` (named `script_name` in messages) compiled as iotap compiles its
// own scripts for the guest: the same kernel tree, runtime and module cache, so the same stap
// cache entries, for `release`: the kernel the guest boots (guest::resolve_guest_kernel(""), as
// run_in_vm resolves it: `IOTAP_GUEST_KERNEL=6.12 overhead_bench`). The script needs no kernel
// symbol table: without the -dbg package this is the bare release, and no guest is booted for
// kallsyms.
inline stap::CompileRequest guest_compile_request(std::string script_text,
                                                  const std::string& script_name,
                                                  const std::string& release,
                                                  const std::string& work_dir) {
  const std::string kernel = runner::guest_compile_kernel(
      release, false,
      [&script_name]() -> std::string {
        throw UserError(script_name + " should need no kernel symbol table");
      },
      runner::guest_kernel_trees_dir());
  stap::CompileRequest request;
  request.script_text = std::move(script_text);
  request.script_name = script_name;
  request.kernel_release = kernel;
  stap::KernelAdaptation adaptation = stap::adapt_for_kernel(release);
  request.runtime_dir = std::move(adaptation.runtime_dir);
  request.kbuild_variables = std::move(adaptation.kbuild_variables);
  request.tapset_dir = std::move(adaptation.tapset_dir);
  request.work_dir = work_dir;
  request.module_cache_dir = stap::module_cache_dir(data_paths().cache + "/modules");
  return request;
}

// The request's module (for `release`) from iotap's module cache, or compiled (and cached) now;
// `say` tells which.
template <typename Say>
std::string guest_module(const stap::CompileRequest& request, const std::string& name,
                         const std::string& release, Say say) {
  const std::string key = stap::module_key(request);
  if (auto cached = stap::cached_module(request, key)) {
    say(name + ": module from cache");
    return cached->path;
  }
  say("compiling " + name + " for " + release + " (about 2 minutes the first time)");
  return stap::compile_module(request, key).path;
}

// bpftrace's script `bt` with `placeholder` (BLOCK_HASHER, POSTGRES) replaced by `program`, the
// binary its USDT probes name by path, written into `dir`; returns its path there.
inline std::string bpftrace_script(const std::string& bt, std::string_view placeholder,
                                   const std::string& program, const TempDir& dir) {
  std::string script = read_file(bt);
  for (size_t at = 0; (at = script.find(placeholder, at)) != std::string::npos;)
    script.replace(at, placeholder.size(), program);
  const std::string path = dir / "events.bt";
  write_file(path, script);
  return path;
}

// `bench` names the bench in its status lines ("pgbench_bench: booting the guest").
inline std::string run_rounds_in_guest(const guest::VmRun& run, const std::string& bench) {
  std::string output;
  guest::VmEvents events;
  events.stdout_data = [&output](std::string_view bytes) { output.append(bytes); };
  events.stderr_data = [](std::string_view bytes) {
    std::fwrite(bytes.data(), 1, bytes.size(), stderr);
  };
  events.status = [&bench](std::string_view phrase) {
    std::fprintf(stderr, "%s: %.*s\n", bench.c_str(), static_cast<int>(phrase.size()),
                 phrase.data());
  };
  events.device = [](const StackDevice&) {};
  const guest::VmResult result = guest::run_in_vm(run, events);
  if (result.exit_status != 0)
    throw UserError("the guest's rounds exited with status " + std::to_string(result.exit_status));
  std::fputs(output.c_str(), stderr);  // every round's raw line, for the record
  return output;
}

// A bench's main: its run, and a user's error as one line and status 2.
template <typename Run>
int bench_main(const char* bench, Run run) {
  try {
    return run();
  } catch (const UserError& error) {
    std::fprintf(stderr, "%s: %s\n", bench, error.what());
    return 2;
  }
}

}  // namespace iotap::bench
