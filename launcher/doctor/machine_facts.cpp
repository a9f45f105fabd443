// The facts, read from this machine: /proc, /sys, and two --version runs.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "iotap/config.h"
#include "iotap/doctor/doctor.h"
#include "iotap/guest/guest_kernels.h"
#include "iotap/guest/guest_requirements.h"
#include "iotap/guest/postgres_guest.h"
#include "iotap/guest/shared_guest.h"
#include "iotap/local/local_runner.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/module_name.h"
#include "iotap/stap/runtime_adaptation.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap::doctor {
namespace {

namespace fs = std::filesystem;

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Which of three kernel facilities /proc/kallsyms has a symbol of; nullopt when it is unreadable.
struct KernelFacilities {
  std::optional<bool> kprobes;
  std::optional<bool> uprobes;
  std::optional<bool> tracepoints;
};

KernelFacilities kernel_facilities() {
  std::ifstream in("/proc/kallsyms");
  if (!in) return {};
  KernelFacilities found{false, false, false};
  // "ffffffff81234560 T register_kprobe": the name is the third word.
  for (std::string line; std::getline(in, line);) {
    const size_t name_at = line.find(' ', line.find(' ') + 1);
    if (name_at == std::string::npos) continue;
    const std::string_view name = std::string_view(line).substr(name_at + 1);
    if (name == "register_kprobe") found.kprobes = true;
    if (name == "uprobe_register") found.uprobes = true;
    if (name == "tracepoint_probe_register") found.tracepoints = true;
  }
  return found;
}

// The bracketed word of /sys/kernel/security/lockdown ("[none] integrity confidentiality").
std::string lockdown_mode() {
  std::ifstream in("/sys/kernel/security/lockdown");
  std::string text;
  std::getline(in, text);
  const size_t open = text.find('[');
  const size_t close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  return text.substr(open + 1, close - open - 1);
}

std::optional<bool> modules_disabled() {
  std::ifstream in("/proc/sys/kernel/modules_disabled");
  int value = 0;
  if (!(in >> value)) return std::nullopt;
  return value != 0;
}

std::optional<unsigned long> memory_available_mib() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    unsigned long kib = 0;
    if (!(in >> kib)) return std::nullopt;
    if (key == "MemAvailable:") return kib / 1024;
    in.ignore(64, '\n');
  }
  return std::nullopt;
}

bool exists(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error);
}

}  // namespace

SshHostFacts gather_ssh_facts(const remote::SshHost& host) {
  SshHostFacts facts;
  facts.target = host.text;
  facts.name = host.name();
  facts.login_hint = remote::ssh_command_hint(host, "ssh-copy-id");
  facts.this_machine = remote::this_machine();
  try {
    facts.host = remote::ask_host(host, std::nullopt, std::nullopt);
  } catch (const UserError& error) {
    facts.unreachable = error.what();
    return facts;
  }
  const std::string& release = facts.host.release;
  facts.headers_here = remote::kernel_headers_problem(host, release).empty();
  if (const auto debuginfo = runner::find_kernel_debuginfo(release))
    facts.debuginfo_here = debuginfo->vmlinux;
  facts.debuginfo_hint = runner::debuginfo_install_hint(release);
  return facts;
}

MachineFacts gather_machine_facts() {
  MachineFacts facts;
  if (!find_in_path("stap").empty()) facts.stap_version = stap::stap_version();
  facts.staprun_path = find_in_path("staprun");

  facts.qemu_path = find_in_path("qemu-system-x86_64");
  if (!facts.qemu_path.empty())
    facts.qemu_version = first_line(capture({facts.qemu_path, "--version"}).out);
  facts.guest_kernel = config::kGuestKernel;
  facts.guest_kernel_problem = guest::guest_kernel_problem(facts.guest_kernel);
  if (!facts.guest_kernel.empty()) {
    facts.guest_headers = exists("/lib/modules/" + facts.guest_kernel + "/build/Makefile");
    try {
      facts.runtime_dir = stap::adapted_runtime_dir(facts.guest_kernel);
      facts.runtime_adapted = exists(facts.runtime_dir + "/iotap-compat.txt");
      if (facts.runtime_adapted)
        for_each_line(read_file(facts.runtime_dir + "/iotap-compat.txt"),
                      [&](std::string_view line) { facts.runtime_changes.emplace_back(line); });
    } catch (const std::exception& error) {
      facts.runtime_problem = error.what();
    }
    if (const auto debuginfo = runner::find_kernel_debuginfo(facts.guest_kernel))
      facts.guest_debuginfo = debuginfo->vmlinux;
    facts.guest_debuginfo_hint = runner::debuginfo_install_hint(facts.guest_kernel);
  }
  facts.installed_kernels = guest::installed_kernels();
  facts.guest_programs = guest::guest_host_programs();
  if (const auto postgres = guest::find_postgres_install())
    facts.postgres_server = postgres->server();
  facts.kvm = guest::guest_has_kvm();
  facts.memory_available_mib = memory_available_mib();
  facts.guest_memory_mib = guest::SharedGuestOptions{}.memory_mib;
  try {
    (void)temp_base();
  } catch (const UserError& error) {
    facts.temp_dir_problem = error.what();
  }

  facts.kernel_release = local::local_kernel_release();
  facts.proc_modules = exists("/proc/modules");
  if (facts.proc_modules) facts.run_modules = stap::loaded_run_modules(read_file("/proc/modules"));
  facts.modules_disabled = modules_disabled();
  facts.lockdown = lockdown_mode();
  const KernelFacilities facilities = kernel_facilities();
  facts.kprobes = facilities.kprobes;
  facts.uprobes = facilities.uprobes;
  facts.tracepoints = facilities.tracepoints;
  facts.local_headers = exists("/lib/modules/" + facts.kernel_release + "/build/Makefile");
  if (const auto debuginfo = runner::find_kernel_debuginfo(facts.kernel_release))
    facts.local_debuginfo = debuginfo->vmlinux;
  facts.local_debuginfo_hint = runner::debuginfo_install_hint(facts.kernel_release);
  facts.root = ::geteuid() == 0;
  return facts;
}

}  // namespace iotap::doctor
