#include "iotap/remote/ssh_runner.h"

#include <utility>

#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/stap/module_name.h"
#include "iotap/symbols/kernel_symbols.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"

namespace iotap::remote {
SshRunner::SshRunner(SshHost host, HostFacts facts)
    : host_(std::move(host)), facts_(std::move(facts)) {
  // stap compiles here for the host's kernel: its headers must be on this machine.
  const std::string problem = kernel_headers_problem(host_, facts_.release);
  if (!problem.empty()) throw UserError(problem);
}

// The -c program runs on the host from its own copy, at the path it has here: the probes are
// compiled from this machine's copy.
void SshRunner::check_programs(const std::vector<std::string>& programs,
                               const std::vector<std::string>& /*files*/) const {
  for (const auto& program : programs) {
    if (const std::string problem = program_problem(host_, facts_, program); !problem.empty())
      throw UserError(problem);
    warn_if_copies_differ(host_.name() + "'s " + program, facts_.program_sha256, program);
  }
}

// -x on a host: the probes on its program are placed from this machine's copy at the same path.
void SshRunner::check_pid_program(pid_t pid, const std::string& program) const {
  const std::string host = host_.name();
  if (!is_executable_file(program))
    throw UserError("-x " + std::to_string(pid) + " runs " + program + " on " + host +
                    ", which this machine lacks: iotap places the probes from a copy at the same "
                    "path here (copy it here)");
  warn_if_copies_differ("the program of -x " + std::to_string(pid) + " on " + host,
                        facts_.pid_exe_sha256, program);
}

// The host's /proc/kallsyms, refused when it hides the addresses (a login that is not root:
// kernel.kptr_restrict), which would make a System.map of zeros.
std::string SshRunner::kallsyms() const {
  std::string text = read_host_kallsyms(host_, facts_);
  if (symbols::addresses_hidden(text))
    throw UserError(host_.name() + "'s /proc/kallsyms hides kernel addresses from " + facts_.user +
                    " (kernel.kptr_restrict): log in as root or with passwordless sudo, or "
                    "install the kernel's debuginfo here (" +
                    runner::debuginfo_install_hint(facts_.release) + ")");
  return text;
}

// The tree for the host's release, its System.map (when the script needs one and the -dbg
// package is not here) from the host's own /proc/kallsyms.
std::string SshRunner::compile_kernel(bool symbols, const runner::StatusSink& status) {
  return runner::guest_compile_kernel(
      facts_.release, symbols,
      [&] {
        status("reading " + host_.name() +
               "'s kernel symbol table for stap (once per kernel release)");
        return kallsyms();
      },
      runner::guest_kernel_trees_dir());
}

runner::RunResult SshRunner::run(const runner::ModuleBuilder& build_module,
                                 const runner::RunRequest& request,
                                 const runner::RunEvents& events) {
  SshRun run;
  // A name of its own, so that other runs on the host (from here or elsewhere) load theirs
  // beside it.
  run.module_path = stap::module_for_this_run(build_module());
  if (request.kernel_symbols)
    events.kernel_symbols(
        std::make_shared<const symbols::KernelSymbols>(symbols::KernelSymbols::parse(kallsyms())));
  run.pid = request.pid;
  run.timeout = request.timeout;
  run.staprun_options = request.staprun_options;
  run.module_options = request.module_options;
  run.program_stdout_to_stderr = request.program_stdout_to_stderr;
  run.command = request.command;
  run.postgres_client = request.postgres_client;
  const SshResult result = run_over_ssh(
      host_, facts_, run, {events.stdout_data, events.stderr_data, events.status, events.device});
  return {.exit_status = result.exit_status,
          .interrupted = result.interrupted && !result.timed_out,
          .timed_out = result.timed_out,
          .kernel_stats = result.kernel_stats,
          .traced_seconds = result.traced_seconds,
          .postgres = result.postgres};
}

}  // namespace iotap::remote
