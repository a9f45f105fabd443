#pragma once
// --target ssh://[USER@]HOST[:PORT]: a real machine. The module is compiled here for the
// host's kernel (stap -r RELEASE, with that release's headers on this machine), copied there
// and run under the host's staprun; the output streams back over the same connection.
//
// Everything happens over the user's own ssh (their keys, their ~/.ssh/config, their
// known_hosts): each step is one `ssh HOST sh -c AGENT REQUEST ARGS...`, AGENT the text of
// remote/agent.sh, so the host needs nothing of iotap's installed, only staprun. Three
// connections a run: probe (facts), upload (the module into a private directory), run (staprun,
// its output back; "stop" on its stdin). The directory and the module go with the run; a
// connection that drops stops staprun there (the agent's stdin ends).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/runner/postgres_stats.h"
#include "iotap/stack.h"
#include "iotap/stack/disk_stats.h"
#include "iotap/stap/module_name.h"

namespace iotap::remote {

struct SshHost {
  std::string user;  // empty: ssh's default (~/.ssh/config, the local user)
  std::string host;
  uint16_t port = 0;  // 0: ssh's default
  std::string text;   // as typed: "ssh://root@db7:2222"

  // The name messages and the fleet summary use: "root@db7:2222".
  [[nodiscard]] std::string name() const;
};

// How a user would reach the host with `program` (ssh, ssh-copy-id): "ssh -p 2222 root@db7".
std::string ssh_command_hint(const SshHost& host, std::string_view program);

// Parses "ssh://[USER@]HOST[:PORT]" (HOST a name, an IPv4 address, or an IPv6 one in
// brackets). Throws UserError saying what is wrong.
SshHost parse_ssh_target(std::string_view text);

// What the agent's probe said of the host.
struct HostFacts {
  std::string release;         // uname -r
  std::string machine;         // uname -m
  std::string staprun;         // its path there; empty when missing
  std::string privilege;       // root, stapdev, sudo (passwordless) or none
  std::string user;            // who iotap logged in as
  std::string pid_exe;         // -x: the process's executable; empty when there is no such pid
  std::string pid_exe_sha256;  // -x: its digest
  std::string program_sha256;  // -c: the program's digest there; empty when it is not there
  std::string asked_program;   // the program the facts were asked about; empty for none
  std::vector<stap::LoadedRunModule> run_modules;  // iotap runs' modules loaded there now
};

// The agent's shell text (remote/agent.sh, with runner/device_lines.sh ahead of it)
// as sent to a host: `sh -c TEXT iotap-agent REQUEST ARGS...` runs one request.
std::string agent_text();

// Parses the probe's "fact NAME VALUE" lines; other lines are ignored.
HostFacts parse_host_facts(std::string_view text);

// Empty when iotap can run on the host as it is; else one line: what is missing there, on it or
// here, and what to do. `this_machine` is uname -m here.
std::string host_problem(const SshHost& host, const HostFacts& facts,
                         const std::string& this_machine);

// Empty when this machine has the headers of the host's kernel `release` under
// `modules_root`/RELEASE/build (stap compiles there); else what to install.
std::string kernel_headers_problem(const SshHost& host, const std::string& release,
                                   const std::string& modules_root = "/lib/modules");

// Empty when the host has the -c `program` at the path it has here; else what to do.
std::string program_problem(const SshHost& host, const HostFacts& facts,
                            const std::string& program);

// Prints a warning when the host's copy of `program` (its digest `there`; empty: unknown) is not
// this machine's: its USDT probes are placed from this copy, so they may miss there. Said, not
// refused (the same build stripped another way differs too). `what` names the host's copy.
void warn_if_copies_differ(const std::string& what, const std::string& there,
                           const std::string& program);

// Attaching on the host (no -c, no -x: every process running a provider's `program` there),
// from the facts asked about that program. A UserError when the host has no executable at that
// path; the digest warning when its copy is not this machine's.
void check_attached_program(const SshHost& host, const HostFacts& facts,
                            const std::string& program);

// Asks the host (one ssh connection). `pid` for -x, `program` for -c (its absolute path). Throws
// UserError naming the host when ssh cannot reach it, with ssh's own last line.
HostFacts ask_host(const SshHost& host, std::optional<pid_t> pid,
                   const std::optional<std::string>& program);

// ask_host(), then host_problem() with this machine's architecture: a host that cannot trace
// is a UserError too.
HostFacts probe_host(const SshHost& host, std::optional<pid_t> pid,
                     const std::optional<std::string>& program);

// uname -m here.
std::string this_machine();

// The host's /proc/kallsyms (for a System.map, and to name kernel addresses).
std::string read_host_kallsyms(const SshHost& host, const HostFacts& facts);

struct SshRun {
  std::string module_path;
  std::vector<std::string> command;  // argv for staprun -c there; empty with -x or for none
  std::optional<pid_t> pid;
  std::vector<std::string> staprun_options;  // words checked as for the guest (stap_options.h)
  std::vector<std::string> module_options;
  std::chrono::seconds timeout{0};
  bool program_stdout_to_stderr = false;  // as VmRun's
  std::string postgres_client;            // as RunRequest's
};

struct SshEvents {
  std::function<void(std::string_view)> stdout_data;
  std::function<void(std::string_view)> stderr_data;
  std::function<void(std::string_view)> status;    // progress phrases
  std::function<void(const StackDevice&)> device;  // the host's stacks, once, before "running"
};

struct SshResult {
  int exit_status = 0;  // staprun's, there
  bool interrupted = false;
  bool timed_out = false;
  std::vector<StackDevice> devices;
  KernelDiskStats kernel_stats;
  std::optional<double> traced_seconds;
  std::optional<runner::PostgresStats> postgres;  // with SshRun::postgres_client
};

// Uploads the module and runs it. A stop signal stops staprun there (its end probes still
// report); a second one drops the connection, which stops it too. Throws TargetLost when the
// connection ends before the agent said how staprun ended.
SshResult run_over_ssh(const SshHost& host, const HostFacts& facts, const SshRun& run,
                       const SshEvents& events);

}  // namespace iotap::remote
