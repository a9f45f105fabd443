#pragma once
// iotap doctor: what this machine can trace, and what is missing, each with its fix. The facts
// are gathered once (machine_facts.cpp) and judged by a pure function (checks.cpp), so that the
// judgement is tested on any machine's facts, not only on the one the tests run on.
#include <optional>
#include <string>
#include <vector>

#include "iotap/guest/guest_kernels.h"
#include "iotap/guest/guest_memory.h"
#include "iotap/guest/guest_requirements.h"
#include "iotap/remote/ssh_target.h"
#include "iotap/stap/module_name.h"
#include "iotap/util/json_text.h"

namespace iotap::doctor {

enum class Status {
  kOk,
  kNote,     // works, with a limit worth knowing (no KVM: slower; no debuginfo: fewer probes)
  kMissing,  // the target cannot trace until it is fixed
};

struct Check {
  std::string name;  // "qemu", "kernel modules"
  Status status = Status::kOk;
  std::string found;  // what is there (a version, a path), or what is wrong
  std::string fix;    // what to do about it; empty when ok
};

struct TargetReport {
  std::string target;  // "vm", "local": the --target value
  std::string title;   // what the target is, for the heading
  std::vector<Check> checks;
  [[nodiscard]] bool ready() const;  // nothing missing
};

struct MachineFacts {
  // SystemTap on this host (both targets compile here).
  std::string stap_version;  // `stap -V`'s first line; empty: stap not installed
  std::string staprun_path;
  // --target vm
  std::string qemu_path;
  std::string qemu_version;
  std::string guest_kernel;                  // the release iotap was configured with; empty: none
  std::string guest_kernel_problem;          // why it cannot boot; empty: it can
  std::string runtime_dir;                   // SystemTap's runtime adapted to the guest kernel
  std::vector<std::string> runtime_changes;  // the changes it has (stap/runtime_changes.cpp)
  std::string runtime_problem;               // why it could not be adapted; empty: it was
  std::string guest_debuginfo;               // its vmlinux with DWARF; empty: not installed
  std::string guest_debuginfo_hint;          // how to install it
  // Every kernel installed here, newest first: what --guest-kernel can name.
  std::vector<guest::InstalledKernel> installed_kernels;
  std::vector<guest::HostProgram> guest_programs;
  std::string postgres_server;  // PostgreSQL 15's, for --postgres; empty: not installed
  std::optional<unsigned long> memory_available_mib;  // /proc/meminfo's MemAvailable
  std::string temp_dir_problem;                       // what is wrong with $TMPDIR; empty: fine
  unsigned guest_memory_mib = guest::kDefaultMemoryMib;
  bool guest_headers = false;    // /lib/modules/RELEASE/build
  bool runtime_adapted = false;  // it was made, with its iotap-compat.txt
  bool kvm = false;
  // --target local
  bool proc_modules = false;   // CONFIG_MODULES
  bool local_headers = false;  // /lib/modules/RELEASE/build
  bool root = false;
  std::string kernel_release;
  std::string lockdown;         // none, integrity, confidentiality; empty: no LSM
  std::string local_debuginfo;  // vmlinux with DWARF; empty: not found
  std::string local_debuginfo_hint;
  std::optional<bool> modules_disabled;  // kernel.modules_disabled
  std::optional<bool> kprobes;           // from /proc/kallsyms; nullopt: unreadable
  std::optional<bool> uprobes;
  std::optional<bool> tracepoints;
  std::vector<stap::LoadedRunModule> run_modules;  // iotap runs' modules loaded now
};

// --target ssh://HOST: what the host said of itself, or why it could not be asked, and what this
// machine has for its kernel.
struct SshHostFacts {
  std::string target;       // ssh://root@db7
  std::string name;         // root@db7
  std::string login_hint;   // "ssh-copy-id -p 2222 root@db7"
  std::string unreachable;  // why ssh could not ask it; empty when it answered
  remote::HostFacts host;
  std::string this_machine;    // uname -m here
  bool headers_here = false;   // /lib/modules/RELEASE/build here
  std::string debuginfo_here;  // the release's vmlinux with DWARF here; empty: none
  std::string debuginfo_hint;  // how to install it
};

// Asks the host over ssh (one connection) and looks here for its kernel's files.
SshHostFacts gather_ssh_facts(const remote::SshHost& host);

// The checks of an ssh host: stap here, the host reached, its architecture, its kernel's headers
// (and debuginfo) here, staprun and the privilege to load modules there, iotap's modules left
// there.
TargetReport ssh_report(const MachineFacts& machine, const SshHostFacts& facts);

// This machine's facts. Runs `stap -V` and `qemu-system-x86_64 --version`, reads /proc and
// /sys; boots and loads nothing.
MachineFacts gather_machine_facts();

// The checks of each target, --target vm first.
std::vector<TargetReport> examine(const MachineFacts& facts);

// A table a person reads at a glance: per target a heading with its verdict, a line per check,
// the fix under each one that is not ok.
std::string doctor_text(const std::vector<TargetReport>& reports);

// {"schema": "iotap.doctor/1", "targets": [{"target", "ready", "checks": [{"name", "status":
// "ok"|"note"|"missing", "found", "fix"}]}]}
Json doctor_json(const std::vector<TargetReport>& reports);

}  // namespace iotap::doctor
