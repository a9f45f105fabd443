#pragma once
// The options every tracing verb shares: what to trace (-c / -x), where (--target, --stack),
// and where the output goes (-o, --json).
#include <sys/types.h>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/guest/guest_memory.h"
#include "iotap/remote/ssh_target.h"
#include "iotap/session/number_option.h"
#include "iotap/stack_spec/stack_plan.h"

namespace iotap::session {

enum class Target { kLocal, kVm, kSsh };

// --postgres and its companions (session/postgres_options.h).
struct PostgresOptions {
  bool start = false;             // --postgres
  bool command_from_sql = false;  // -c was made from --sql
  uint64_t rows = 0;              // --postgres-rows; 0: the default
  bool keep_page_cache = false;   // --keep-page-cache
  uint64_t pgbench_scale = 0;     // --pgbench-scale; 0: pgbench's tables are not made
};

struct TargetOptions {
  std::string command_line;  // -c, as typed
  std::optional<pid_t> pid;  // -x
  std::string output_path;   // -o
  bool json = false;
  Target target = Target::kLocal;
  std::optional<remote::SshHost> ssh_host;  // --target ssh://...
  // What the host said of itself, asked once (host_facts()), shared by the options' copies.
  std::shared_ptr<std::optional<remote::HostFacts>> ssh_facts =
      std::make_shared<std::optional<remote::HostFacts>>();
  std::string stack_text;  // --stack, as typed
  unsigned timeout_seconds = 0;
  unsigned memory_mib = guest::kDefaultMemoryMib;
  // --guest-kernel as typed: a release or a prefix of an installed one; empty: the default
  // (config::kGuestKernel). guest_kernel_release() resolves it.
  std::string guest_kernel;
  // A module made on another machine (--save-module there), run here instead of compiling.
  std::string module_path;       // --module
  std::string save_module_path;  // --save-module: compile only, write the module there
  std::string save_for_kernel;   // --for-kernel: the release --save-module compiles for
  PostgresOptions postgres;
  // Neither -c nor -x: the provider's program, followed wherever it runs on the target
  // (session/attribution_run.h sets these): the path its probes name, and for a PostgreSQL
  // server its psql, which reads the server's counters (runner::RunRequest::postgres_client).
  std::string attached_program;
  std::string attached_postgres_client;
};

inline constexpr NumberOption kTimeoutOption{"--timeout", "a positive number of seconds", "seconds",
                                             UINT32_MAX};
inline constexpr NumberOption kMemoryOption{"--memory", "a positive number of MiB", "MiB",
                                            1ULL << 20};
inline constexpr NumberOption kPidOption{"-x", "a process id (a positive number)", "",
                                         4'194'304};  // the kernel's PID_MAX_LIMIT

// Adds -c, -x, -o, --json, --target, --stack, --guest-kernel, --timeout, --memory, --module,
// --save-module,
// --for-kernel and the --postgres options (session/postgres_options.h) to `description`.
void add_target_options(boost::program_options::options_description& description,
                        TargetOptions& options, const std::string& default_target);

// Checks combinations the parser cannot: --stack only with --target vm, -x not with vm, ...
void check_target_options(const TargetOptions& options);

// The release of the kernel the run traces: the guest's with --target vm, the host's with
// --target ssh://, --for-kernel's with --save-module, else this machine's.
std::string target_kernel_release(const TargetOptions& options);

// The kernel a --target vm guest boots: --guest-kernel resolved among the installed kernels
// (guest/guest_kernels.h), else the default. UserError when it names none, several, or one not
// ready.
std::string guest_kernel_release(const TargetOptions& options);
// --target as it was given: "local", "vm" or "ssh://...".
std::string target_text(const TargetOptions& options);

// With --target ssh://: what the host says of itself (kernel, staprun, privilege; the -x
// process's executable and the digest of the -c program or the attached one), asked over ssh the
// first time and kept.
// Throws UserError when the host cannot be reached or cannot trace.
const remote::HostFacts& host_facts(const TargetOptions& options);

// --target values naming ssh:// hosts, in order, from a verb's raw arguments (--target X and
// --target=X): more than one makes the run a fleet's (session/fleet_run.h).
std::vector<std::string> ssh_targets_in(std::span<const std::string> args);

// For verbs that follow one program: exactly one of -c and -x, or a UserError that says
// "give the program <purpose>: -c '...' or -x PID<hint>" (none) or that they exclude each other.
void require_one_program(const TargetOptions& options, std::string_view purpose,
                         std::string_view hint = "");

// Whether the run attaches to a provider's program wherever it runs: neither -c nor -x, and
// --requests usdt:NAME|FILE. Every process running the program the provider declares is then
// probed, the ones started after the module loads included (a PostgreSQL server's backends,
// forked per connection), until --timeout or Ctrl-C. UserError with --target vm (a guest iotap
// boots has no server running: --postgres -c starts one there) and with --postgres.
bool attaches_to_provider_program(const TargetOptions& options, std::string_view requests);

// With --target vm and --stack: the stack parsed, planned and checked against --memory, so a
// bad spec fails before anything is compiled or booted. Empty otherwise.
std::optional<stack_spec::StackPlan> plan_target_stack(const TargetOptions& options);

// With --target vm, a device named by `option` (replay's --device) must be one of --stack's in
// the guest (its top or a member): anything else is refused before the guest boots, as is a
// device without --stack. Nothing to check for other targets.
void check_guest_device(const TargetOptions& options, const std::string& device,
                        std::string_view option);

// A -c command resolved for running: argv with the program's absolute path first and
// __DEV__ replaced by the stack's top device.
struct ResolvedCommand {
  std::vector<std::string> argv;
  std::string program;  // absolute host path of argv[0]
  // The arguments that name regular files on the host (a recording for io_replayer, a job file
  // for fio), as absolute paths: argv has them so, and --target vm copies them into the guest
  // at those paths.
  std::vector<std::string> files;
};

// Bare names are the programs of `program_dir` (with --postgres: PostgreSQL's bindir) first,
// then the project's workloads (block_hasher), then programs in PATH.
ResolvedCommand resolve_command(const std::string& command_line,
                                const std::optional<stack_spec::StackPlan>& stack,
                                const std::string& program_dir = "");

}  // namespace iotap::session
