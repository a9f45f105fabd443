// iotap doctor: what this machine can trace, and what is missing, with the fix for each.
#include "iotap/doctor/doctor.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "iotap/session/parse_options.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/json_text.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::parse_options;

namespace {

namespace po = boost::program_options;

constexpr const char* kHelp =
    R"(usage: iotap doctor [--target vm|local|ssh://[USER@]HOST[:PORT]]... [--json]

Says what this machine can trace and what is missing, each with its fix; run it first when
anything fails, or on a new machine. It boots nothing and loads nothing: it reads /proc and
/sys and asks stap and qemu their versions, so it takes well under a second.

For --target vm (a qemu guest iotap boots, where the stacks are built): stap, the guest kernel
and its headers, the stap runtime adapted to it, its debuginfo (optional: kernel.function
probes), the programs the guest's image is made of (busybox, staprun, stapio, mdadm, dmsetup),
qemu, KVM or TCG, free memory for a guest, and the temporary directory.
For --target local (this machine's own kernel): stap and staprun, whether the kernel loads
modules (CONFIG_MODULES, kernel.modules_disabled, lockdown), uprobes, tracepoints and kprobes
(from /proc/kallsyms), its headers and debuginfo, root, and iotap modules left loaded (a run
killed before it could unload its own: their probes still fire; `rmmod` them).
For --target ssh://HOST (a machine iotap reaches with ssh; checked only when named, one
connection each): stap here, the host reached without a prompt, its architecture, its kernel's
headers (and debuginfo) here, staprun there, the right to load modules there (root, stapdev or
passwordless sudo), and iotap modules left loaded there. Runs in progress are fine: each
loads a module of its own.

Each line is ok, note (works, with a limit worth knowing) or missing (that target cannot trace
until it is fixed); every line that is not ok says what to do under it.

example (this project's CI machine: a small VM kernel without modules, no /dev/kvm):
  $ iotap doctor
  --target vm: a qemu guest iotap boots, with md, dm and the probes: ready
    ok       stap                    Systemtap translator/driver (version 4.8/0.188, ...)
    ok       guest kernel            6.1.0-56-cloud-amd64 (/boot/vmlinuz-6.1.0-56-cloud-amd64)
    ...
    note     accelerator             TCG: no usable /dev/kvm, so the guest is emulated (...)
                                     fix: for KVM: bare metal or a VM with nested ...
  --target local: this machine's own kernel, 6.18.0: not ready: 2 missing
    missing  kernel modules          this kernel cannot load modules (no /proc/modules: ...)
                                     fix: use --target vm
  ...
  iotap can trace here with --target vm.

--json prints {"schema": "iotap.doctor/1", "targets": [{"target", "title", "ready", "checks":
[{"name", "status": "ok"|"note"|"missing", "found", "fix"}]}]}.

)";

}  // namespace

int doctor(Args args) {
  std::vector<std::string> targets;
  bool json = false;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "target", po::value(&targets)->value_name("vm|local|ssh://HOST")->composing(),
      "check these targets only (default: vm and local; ssh:// hosts only when named, and "
      "several may be); the exit status follows them")("json", po::bool_switch(&json),
                                                       "print the checks as JSON");
  if (!parse_options(args, visible, kHelp, nullptr, nullptr, exit_status::Verb::kDoctor)) return 0;
  std::vector<remote::SshHost> hosts;
  for (const auto& target : targets) {
    if (target.starts_with("ssh://")) {
      hosts.push_back(remote::parse_ssh_target(target));
    } else if (target != "vm" && target != "local") {
      throw UserError("--target is vm, local or ssh://[USER@]HOST[:PORT], not '" + target + "'");
    }
  }
  const doctor::MachineFacts machine = doctor::gather_machine_facts();
  std::vector<doctor::TargetReport> reports = doctor::examine(machine);
  if (!targets.empty())
    std::erase_if(reports, [&targets](const doctor::TargetReport& report) {
      return std::ranges::find(targets, report.target) == targets.end();
    });
  for (const auto& host : hosts)
    reports.push_back(doctor::ssh_report(machine, doctor::gather_ssh_facts(host)));
  const std::string text =
      json ? to_text(doctor::doctor_json(reports)) : doctor::doctor_text(reports);
  std::fputs(text.c_str(), stdout);
  const bool any_ready = std::ranges::any_of(
      reports, [](const doctor::TargetReport& report) { return report.ready(); });
  return any_ready ? 0 : exit_status::kNotReady;
}

}  // namespace iotap::verbs
