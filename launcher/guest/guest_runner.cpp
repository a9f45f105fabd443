#include "iotap/guest/guest_runner.h"

#include <algorithm>
#include <utility>

#include "iotap/config.h"
#include "iotap/guest/guest_modules.h"
#include "iotap/guest/postgres_cluster.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"

namespace iotap::guest {

std::string GuestRunner::kernel_release() const {
  return release_;
}

void GuestRunner::check_programs(const std::vector<std::string>& programs,
                                 const std::vector<std::string>& files) const {
  check_vm_run(release_, memory_mib_, programs, files);
}

// -d MODULE and --all-modules: the guest kernel's own module files (stap -d PATH). stap,
// compiling on this host, would look a name up among this kernel's modules and read this host's
// /proc/modules for --all-modules, and the guest's md and dm modules would get no unwind data
// ("Missing unwind data for a module", frames below them "(inexact)").
void GuestRunner::resolve_unwind_modules(std::vector<std::string>& modules,
                                         bool& all_modules) const {
  for (auto& module : modules) {
    // A path is the user's file; "kernel" is stap's name for vmlinux.
    if (module.find('/') != std::string::npos || module == "kernel") continue;
    try {
      module = guest_module_file(release_, module);
    } catch (const UserError& error) {
      throw UserError("-d " + module + ": " + error.what());
    }
  }
  if (!all_modules) return;
  // stap's --all-modules: every module in /proc/modules, and the kernel.
  all_modules = false;
  std::vector<std::string> files = guest_loaded_module_files(release_, stack_);
  files.emplace_back("kernel");
  for (auto& file : files) {
    if (std::ranges::find(modules, file) == modules.end()) modules.push_back(std::move(file));
  }
}

std::string harvest_guest_kallsyms(const std::string& release, const runner::StatusSink& status) {
  status("reading guest kernel " + release +
         "'s symbol table for stap (once: it is kept in build/cache)");
  VmRun harvest;
  harvest.kernel_release = release;
  harvest.kernel_symbols = true;
  std::string kallsyms;
  VmEvents events;
  events.stdout_data = [](std::string_view) {};
  events.stderr_data = [](std::string_view) {};
  events.status = [](std::string_view) {};
  events.device = [](const StackDevice&) {};
  events.kernel_symbols = [&kallsyms](std::string text) { kallsyms = std::move(text); };
  run_in_vm(harvest, events);
  if (kallsyms.empty())
    throw UserError("the guest did not send its symbol table (see the console lines above)");
  return kallsyms;
}

std::string GuestRunner::compile_kernel(bool symbols, const runner::StatusSink& status) {
  return runner::guest_compile_kernel(
      release_, symbols, [&] { return harvest_guest_kallsyms(release_, status); },
      runner::guest_kernel_trees_dir());
}

// PostgreSQL's files go on the tools image; its programs (psql, pgbench) are there, bind-mounted
// at their host paths, and are not copied into the run's files too.
void GuestRunner::add_postgres(VmRun& run) const {
  PostgresFiles files = postgres_files(postgres_->install);
  run.postgres = postgres_;
  run.postgres->library_dirs = files.library_dirs;
  run.postgres->cluster = postgres_cluster(postgres_->install, data_paths().cache);
  files.files.push_back(run.postgres->cluster);
  run.tools_image = postgres_tools_image(files, data_paths().cache);
  const std::string bin_dir = postgres_->install.bin_dir + "/";
  std::erase_if(run.programs,
                [&bin_dir](const std::string& program) { return program.starts_with(bin_dir); });
}

runner::RunResult GuestRunner::run(const runner::ModuleBuilder& build_module,
                                   const runner::RunRequest& request,
                                   const runner::RunEvents& events) {
  VmRun run;
  run.build_module = build_module;
  run.kernel_symbols = request.kernel_symbols;
  run.stack = stack_;
  run.memory_mib = memory_mib_;
  run.kernel_release = release_;
  run.timeout = request.timeout;
  run.staprun_options = request.staprun_options;
  run.module_options = request.module_options;
  run.program_stdout_to_stderr = request.program_stdout_to_stderr;
  run.command = request.command;
  run.programs = request.programs;
  run.files = request.files;
  if (postgres_) add_postgres(run);
  VmEvents vm_events;
  vm_events.stdout_data = events.stdout_data;
  vm_events.stderr_data = events.stderr_data;
  vm_events.status = events.status;
  vm_events.device = events.device;
  vm_events.kernel_symbols = [&events](std::string text) {
    auto table = std::make_shared<const symbols::KernelSymbols>(
        symbols::KernelSymbols::parse(std::move(text)));
    events.status("kernel symbol table: " + std::to_string(table->size()) + " functions");
    events.kernel_symbols(std::move(table));
  };
  const VmResult result = run_in_vm(run, vm_events);
  return {.exit_status = result.exit_status,
          .interrupted = result.interrupted,
          .timed_out = result.timed_out,
          .kernel_stats = result.kernel_stats,
          .traced_seconds = result.traced_seconds,
          .postgres = result.postgres};
}

}  // namespace iotap::guest
