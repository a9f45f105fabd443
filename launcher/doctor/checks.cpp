// The judgement: facts in, checks out, nothing read from the machine here.
#include <algorithm>
#include <string>
#include <vector>

#include "iotap/doctor/doctor.h"

namespace iotap::doctor {
namespace {

std::string comma_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

Check ok(std::string name, std::string found) {
  return {std::move(name), Status::kOk, std::move(found), {}};
}
Check note(std::string name, std::string found, std::string fix) {
  return {std::move(name), Status::kNote, std::move(found), std::move(fix)};
}
Check missing(std::string name, std::string found, std::string fix) {
  return {std::move(name), Status::kMissing, std::move(found), std::move(fix)};
}

// iotap's modules loaded on a machine (`where` and `on_host` are "" here; " there" and " on HOST"
// for an ssh host): those with no run attached were left by a run killed before it could unload
// them, and their probes go on firing. Runs attached now are fine: each has its own module.
Check run_modules_check(const std::vector<stap::LoadedRunModule>& modules, const std::string& where,
                        const std::string& on_host) {
  const std::string name = "iotap modules" + where;
  std::vector<std::string> left;
  std::vector<std::string> in_use;
  for (const auto& module : modules) (module.users == 0 ? left : in_use).push_back(module.name);
  const std::string running =
      in_use.empty()
          ? ""
          : std::to_string(in_use.size()) + " in use by runs now (" + comma_list(in_use) + ")";
  if (left.empty()) return ok(name, running.empty() ? "none loaded" : running);
  std::string remove = "rmmod";
  for (const auto& module : left) remove += " " + module;
  return note(name,
              comma_list(left) +
                  " loaded with no run attached (left by a run killed before it could unload its "
                  "module): " +
                  (left.size() == 1 ? "its" : "their") + " probes still fire" +
                  (running.empty() ? "" : "; " + running),
              remove + " as root" + on_host);
}

Check stap_check(const MachineFacts& facts) {
  if (facts.stap_version.empty())
    return missing("stap", "not installed: nothing can be compiled",
                   "apt-get install systemtap (./setup.sh does)");
  return ok("stap", facts.stap_version);
}

Check guest_programs_check(const MachineFacts& facts) {
  std::string absent;
  std::vector<std::string> packages;
  std::string names;
  for (const auto& program : facts.guest_programs) {
    names += (names.empty() ? "" : ", ") + program.name;
    if (!program.path.empty()) continue;
    absent += (absent.empty() ? "" : ", ") + program.name;
    if (std::ranges::find(packages, program.package) == packages.end())
      packages.push_back(program.package);
  }
  if (absent.empty()) return ok("guest's programs", names + " (copied from this host)");
  std::string install = "apt-get install";
  for (const auto& package : packages) install += " " + package;
  return missing("guest's programs", absent + " not installed (the guest's image is made of them)",
                 install + " (./setup.sh does)");
}

Check memory_check(const MachineFacts& facts) {
  const std::string guest = "a guest takes " + std::to_string(facts.guest_memory_mib) + " MiB";
  if (!facts.memory_available_mib)
    return note("memory", "unknown (/proc/meminfo unreadable); " + guest, {});
  const unsigned long available = *facts.memory_available_mib;
  const std::string found = std::to_string(available) + " MiB available; " + guest;
  if (available < facts.guest_memory_mib)
    return missing("memory", found,
                   "free memory (each running guest holds its own: `iotap guest status`)");
  return ok("memory", found);
}

// One line a kernel installed here: ready for --guest-kernel, or what it lacks.
void installed_kernel_checks(const MachineFacts& facts, std::vector<Check>& checks) {
  for (const guest::InstalledKernel& kernel : facts.installed_kernels) {
    const std::string name = "kernel " + kernel.release;
    const std::string role = kernel.release == facts.guest_kernel
                                 ? "--target vm (the default)"
                                 : "--target vm --guest-kernel " + kernel.release;
    std::string install;
    for (const std::string& package : kernel.missing_packages()) install += " " + package;
    if (!kernel.ready()) {
      checks.push_back(note(name, "not ready for " + role, "apt-get install" + install));
    } else if (!kernel.debuginfo) {
      checks.push_back(note(
          name, "ready for " + role + ", without debuginfo (kernel.function probes, $vars, @cast)",
          "apt-get install" + install));
    } else {
      checks.push_back(ok(name, "ready for " + role + ", with debuginfo"));
    }
  }
}

TargetReport vm_report(const MachineFacts& facts) {
  TargetReport report{
      "vm", "--target vm: a qemu guest iotap boots, with md, dm and the probes", {}};
  auto& checks = report.checks;
  checks.push_back(stap_check(facts));
  if (facts.guest_kernel.empty()) {
    checks.push_back(missing("guest kernel", facts.guest_kernel_problem,
                             "apt-get install linux-image-cloud-amd64 linux-headers-cloud-amd64, "
                             "then rebuild (./setup.sh does both)"));
  } else if (!facts.guest_kernel_problem.empty()) {
    checks.push_back(missing("guest kernel", facts.guest_kernel_problem,
                             "apt-get install linux-image-" + facts.guest_kernel));
  } else {
    checks.push_back(
        ok("guest kernel", facts.guest_kernel + " (/boot/vmlinuz-" + facts.guest_kernel + ")"));
  }
  if (!facts.guest_kernel.empty()) {
    checks.push_back(
        facts.guest_headers
            ? ok("guest kernel headers", "/lib/modules/" + facts.guest_kernel + "/build")
            : missing("guest kernel headers", "not installed: stap compiles against them",
                      "apt-get install linux-headers-" + facts.guest_kernel));
    checks.push_back(
        facts.runtime_adapted
            ? ok("stap runtime", "adapted to the guest kernel (" +
                                     comma_list(facts.runtime_changes) + "): " + facts.runtime_dir)
            : missing("stap runtime",
                      "cannot be adapted to the guest kernel: " +
                          (facts.runtime_problem.empty() ? "SystemTap's runtime or the kernel's "
                                                           "headers are missing"
                                                         : facts.runtime_problem),
                      "apt-get install --reinstall systemtap linux-headers-" + facts.guest_kernel +
                          " (iotap adapts Debian 12's SystemTap 4.8)"));
    checks.push_back(
        facts.guest_debuginfo.empty()
            ? note("guest kernel debuginfo",
                   "not installed: kernel.function probes, $vars and @cast cannot compile for "
                   "the guest (tracepoints, USDT and iotap's verbs do not need it)",
                   facts.guest_debuginfo_hint)
            : ok("guest kernel debuginfo", facts.guest_debuginfo));
  }
  installed_kernel_checks(facts, checks);
  checks.push_back(guest_programs_check(facts));
  // Optional: only --postgres needs it.
  checks.push_back(facts.postgres_server.empty()
                       ? note("PostgreSQL",
                              "not installed: --postgres cannot start a server in the guest",
                              "apt-get install postgresql-15 (./setup.sh does)")
                       : ok("PostgreSQL", "15, for --postgres (" + facts.postgres_server + ")"));
  checks.push_back(
      facts.qemu_path.empty()
          ? missing("qemu", "qemu-system-x86_64 is not installed",
                    "apt-get install qemu-system-x86 (./setup.sh does)")
          : ok("qemu", facts.qemu_version.empty() ? facts.qemu_path : facts.qemu_version));
  checks.push_back(
      facts.kvm
          ? ok("accelerator", "KVM (/dev/kvm opens, the CPU has virtualization)")
          : note("accelerator",
                 "TCG: no usable /dev/kvm, so the guest is emulated (a boot takes seconds, runs "
                 "are slower; the timings iotap reports are the guest's own)",
                 "for KVM: bare metal or a VM with nested virtualization, and /dev/kvm "
                 "read-write for this user (the kvm group)"));
  checks.push_back(memory_check(facts));
  checks.push_back(facts.temp_dir_problem.empty()
                       ? ok("temporary directory", "writable")
                       : missing("temporary directory", facts.temp_dir_problem,
                                 "set TMPDIR to a writable directory"));
  return report;
}

// A kernel facility read from /proc/kallsyms: missing, or unknown when it could not be read.
Check facility_check(const std::string& name, std::optional<bool> present, bool required,
                     const std::string& what_needs_it, const std::string& config) {
  if (!present)
    return note(name, "unknown: /proc/kallsyms could not be read",
                "run iotap doctor as root to check");
  if (*present) return ok(name, "built in (" + config + ")");
  const std::string found = "this kernel has none (" + config + " off): " + what_needs_it;
  const std::string fix = "a kernel built with " + config + ", or --target vm";
  return required ? missing(name, found, fix) : note(name, found, fix);
}

TargetReport local_report(const MachineFacts& facts) {
  TargetReport report{
      "local", "--target local: this machine's own kernel, " + facts.kernel_release, {}};
  auto& checks = report.checks;
  checks.push_back(stap_check(facts));
  checks.push_back(facts.staprun_path.empty()
                       ? missing("staprun", "not installed: it loads the module",
                                 "apt-get install systemtap-runtime")
                       : ok("staprun", facts.staprun_path));
  if (!facts.proc_modules) {
    checks.push_back(missing("kernel modules",
                             "this kernel cannot load modules (no /proc/modules: built without "
                             "CONFIG_MODULES), and SystemTap's probes are a module",
                             "use --target vm"));
  } else if (facts.modules_disabled.value_or(false)) {
    checks.push_back(missing("kernel modules",
                             "loading is switched off (kernel.modules_disabled = 1), until reboot",
                             "reboot (the switch cannot be turned back), or use --target vm"));
  } else {
    checks.push_back(ok("kernel modules", "can be loaded"));
  }
  if (facts.lockdown == "integrity" || facts.lockdown == "confidentiality") {
    checks.push_back(missing("lockdown",
                             "kernel lockdown (" + facts.lockdown +
                                 ") refuses unsigned modules (Secure Boot turns it on)",
                             "sign the module (stap --sign with an enrolled key), turn Secure Boot "
                             "off, or use --target vm"));
  } else {
    checks.push_back(ok("lockdown", facts.lockdown.empty() ? "no lockdown" : facts.lockdown));
  }
  checks.push_back(facility_check("uprobes", facts.uprobes, true,
                                  "USDT probes in the traced program cannot fire",
                                  "CONFIG_UPROBES"));
  checks.push_back(facility_check("tracepoints", facts.tracepoints, true,
                                  "the block layer's events cannot be seen", "CONFIG_TRACEPOINTS"));
  checks.push_back(facility_check("kprobes", facts.kprobes, false,
                                  "kernel.function and kprobe probes cannot attach (iotap's own "
                                  "verbs need them only for md/dm internals and callgraph "
                                  "--kernel)",
                                  "CONFIG_KPROBES"));
  checks.push_back(facts.local_headers
                       ? ok("kernel headers", "/lib/modules/" + facts.kernel_release + "/build")
                       : missing("kernel headers",
                                 "not installed: stap compiles the module against them",
                                 "apt-get install linux-headers-" + facts.kernel_release +
                                     ", or run modules saved for this kernel on a machine that "
                                     "has them (--save-module there, --module here)"));
  checks.push_back(
      facts.local_debuginfo.empty()
          ? note("kernel debuginfo",
                 "not found: kernel.function probes, $vars and @cast cannot compile (tracepoints "
                 "and USDT do not need it)",
                 facts.local_debuginfo_hint)
          : ok("kernel debuginfo", facts.local_debuginfo));
  checks.push_back(facts.root ? ok("privileges", "root")
                              : missing("privileges", "not root: loading a module needs it",
                                        "run iotap as root (sudo), or use --target vm"));
  if (facts.proc_modules) checks.push_back(run_modules_check(facts.run_modules, "", ""));
  return report;
}

}  // namespace

bool TargetReport::ready() const {
  return std::ranges::none_of(checks,
                              [](const Check& check) { return check.status == Status::kMissing; });
}

TargetReport ssh_report(const MachineFacts& machine, const SshHostFacts& facts) {
  TargetReport report{facts.target, "--target " + facts.target + ": compiled here, run there", {}};
  auto& checks = report.checks;
  checks.push_back(stap_check(machine));
  if (!facts.unreachable.empty()) {
    checks.push_back(missing("ssh", facts.unreachable,
                             "log in with a key, without a prompt (" + facts.login_hint +
                                 "; iotap runs ssh with BatchMode=yes)"));
    return report;
  }
  const remote::HostFacts& host = facts.host;
  if (host.release.empty()) {
    checks.push_back(missing("ssh", "reached, but iotap's agent said nothing there",
                             "iotap's agent needs a POSIX login shell there (sh, bash, dash, "
                             "zsh), with uname and coreutils or busybox"));
    return report;
  }
  checks.push_back(
      ok("ssh", "reached as " + host.user + "; kernel " + host.release + ", " + host.machine));
  if (host.machine != facts.this_machine)
    checks.push_back(missing("architecture",
                             host.machine + " there, " + facts.this_machine + " here",
                             "trace it from a machine of its architecture (the module is built "
                             "here)"));
  checks.push_back(facts.headers_here
                       ? ok("kernel headers here", "/lib/modules/" + host.release + "/build")
                       : missing("kernel headers here",
                                 "not installed for " + host.release + " (stap compiles here)",
                                 "apt-get install linux-headers-" + host.release));
  checks.push_back(facts.debuginfo_here.empty()
                       ? note("kernel debuginfo here",
                              "not installed: kernel.function probes, $vars and @cast cannot "
                              "compile for " +
                                  host.release,
                              facts.debuginfo_hint)
                       : ok("kernel debuginfo here", facts.debuginfo_here));
  checks.push_back(host.staprun.empty()
                       ? missing("staprun there", "not installed on " + facts.name,
                                 "apt-get install systemtap-runtime on " + facts.name)
                       : ok("staprun there", host.staprun));
  if (host.privilege == "none") {
    checks.push_back(missing("module loading there",
                             host.user + " is not root, not in stapdev, has no passwordless sudo",
                             "log in as root, or add " + host.user + " to the stapdev group"));
  } else {
    checks.push_back(ok("module loading there", "as " + host.user + " (" + host.privilege + ")"));
  }
  checks.push_back(run_modules_check(host.run_modules, " there", " on " + facts.name));
  return report;
}

std::vector<TargetReport> examine(const MachineFacts& facts) {
  return {vm_report(facts), local_report(facts)};
}

}  // namespace iotap::doctor
