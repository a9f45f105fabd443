#include <chrono>
#include <filesystem>
#include <utility>

#include "iotap/config.h"
#include "iotap/local/local_runner.h"
#include "iotap/local/local_stack.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/stap/module_info.h"
#include "iotap/stap/module_name.h"
#include "iotap/symbols/kernel_symbols.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/stop_signal.h"

namespace iotap::local {
namespace {

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

LocalRunner::LocalRunner(LocalOptions options) : options_(std::move(options)) {
  if (options_.save_module) {
    const std::string& release = options_.release;
    if (!std::filesystem::exists("/lib/modules/" + release + "/build"))
      throw UserError("compiling for kernel " + release + " needs its headers on this machine (" +
                      "/lib/modules/" + release + "/build): apt-get install linux-headers-" +
                      release);
    return;
  }
  if (!options_.module_path.empty()) {
    const stap::ModuleInfo info = stap::read_module_info(options_.module_path);
    const std::string release = local_kernel_release();
    if (info.release() != release)
      throw UserError(options_.module_path + " was compiled for kernel " + info.release() +
                      ", but this machine runs " + release + ": save it again with --for-kernel " +
                      release);
  }
  const std::string problem =
      options_.module_path.empty() ? local_kernel_problem() : local_load_problem();
  if (!problem.empty()) throw UserError(problem);
}

// This kernel's own tree; for --save-module --for-kernel, that release's, with its symbol table
// when the script needs one: the guest's for the guest's release, another kernel's is not here.
std::string LocalRunner::compile_kernel(bool symbols, const runner::StatusSink& status) {
  const std::string& release = options_.release;
  if (!options_.save_module || release == local_kernel_release()) return release;
  return runner::guest_compile_kernel(
      release, symbols,
      [&]() -> std::string {
        std::error_code error;
        if (std::filesystem::exists("/boot/vmlinuz-" + release, error))
          return options_.guest_kallsyms(release, status);
        throw UserError("compiling this script for kernel " + release +
                        " needs that kernel's symbols: install its debuginfo here (" +
                        runner::debuginfo_install_hint(release) +
                        "), or compile and run it in one go with --target ssh://HOST");
      },
      runner::guest_kernel_trees_dir());
}

runner::RunResult LocalRunner::run(const runner::ModuleBuilder& build_module,
                                   const runner::RunRequest& request,
                                   const runner::RunEvents& events) {
  LocalRun run;
  // A name of its own, so that other runs on this machine load theirs beside it.
  run.module_path = stap::module_for_this_run(build_module());
  if (request.kernel_symbols) events.kernel_symbols(local_kernel_symbols());
  // The stacks and the kernel's counts, as a host reports them (local/local_stack.h).
  LocalStack stack;
  for (const auto& device : stack.devices()) events.device(device);
  LocalEvents local_events{
      .stdout_data = events.stdout_data, .stderr_data = events.stderr_data, .before_stop = {}};
  // Attached to a PostgreSQL server: its counters before the module loads and after it goes, and
  // a connection at the stop while the probes are still on (remote/agent.sh's
  // iotap_pg_counters says why).
  const std::string& psql = request.postgres_client;
  if (!psql.empty()) {
    if (stack.read_postgres_counters("before", psql)) events.status(runner::kPostgresCountersRead);
    local_events.before_stop = [&] { stack.connect_postgres(psql); };
  }
  events.status("running");
  run.pid = request.pid;
  run.timeout = request.timeout;
  run.staprun_options = request.staprun_options;
  run.module_options = request.module_options;
  run.command = request.command;
  const auto start = std::chrono::steady_clock::now();
  const LocalResult local = run_local(run, local_events);
  runner::RunResult result;
  result.exit_status = local.exit_status;
  result.timed_out = local.timed_out;
  result.traced_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.interrupted = stop_signal() != 0;
  result.kernel_stats = stack.after_run();
  if (!psql.empty()) {
    stack.read_postgres_counters("after", psql);
    result.postgres = stack.postgres_stats();
  }
  return result;
}

}  // namespace iotap::local
