// iotap doctor's judgement, on facts made up for each case (a machine that can do everything,
// then one thing taken away at a time), and its reading of this machine against what the
// machine says about itself in other ways.
#include "iotap/doctor/doctor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "iotap/config.h"

namespace iotap::doctor {
namespace {

// A machine where both targets can trace.
MachineFacts able_machine() {
  MachineFacts facts;
  facts.stap_version = "Systemtap translator/driver (version 4.8/0.188, Debian version 4.8-2)";
  facts.staprun_path = "/usr/bin/staprun";
  facts.qemu_path = "/usr/bin/qemu-system-x86_64";
  facts.qemu_version = "QEMU emulator version 7.2.11";
  facts.guest_kernel = "6.1.0-56-cloud-amd64";
  facts.guest_headers = true;
  facts.runtime_dir = "/build/stap-runtime";
  facts.runtime_adapted = true;
  facts.guest_debuginfo = "/usr/lib/debug/boot/vmlinux-6.1.0-56-cloud-amd64";
  facts.guest_programs = {{"busybox", "/bin/busybox", "busybox-static"},
                          {"mdadm", "/sbin/mdadm", "mdadm"},
                          {"dmsetup", "/sbin/dmsetup", "dmsetup"}};
  facts.postgres_server = "/usr/lib/postgresql/15/bin/postgres";
  facts.kvm = true;
  facts.memory_available_mib = 8000;
  facts.kernel_release = "6.1.0-56-amd64";
  facts.proc_modules = true;
  facts.modules_disabled = false;
  facts.lockdown = "none";
  facts.kprobes = facts.uprobes = facts.tracepoints = true;
  facts.local_headers = true;
  facts.local_debuginfo = "/usr/lib/debug/boot/vmlinux-6.1.0-56-amd64";
  facts.root = true;
  return facts;
}

const TargetReport& target(const std::vector<TargetReport>& reports, const std::string& name) {
  const auto it = std::ranges::find(reports, name, &TargetReport::target);
  if (it == reports.end()) throw std::runtime_error("no target " + name);
  return *it;
}

const Check& check(const TargetReport& report, const std::string& name) {
  const auto it = std::ranges::find(report.checks, name, &Check::name);
  if (it == report.checks.end()) throw std::runtime_error(report.target + " has no check " + name);
  return *it;
}

// The checks of `report` that are missing, by name.
std::vector<std::string> missing(const TargetReport& report) {
  std::vector<std::string> names;
  for (const auto& item : report.checks)
    if (item.status == Status::kMissing) names.push_back(item.name);
  return names;
}

// One piece of an able machine taken away: the check that must then be missing, and its fix.
struct Case {
  void (*take_away)(MachineFacts&);
  const char* check;
  const char* fix;
};

TEST(Doctor, AnAbleMachineIsReadyForBothTargetsAndSaysSo) {
  const auto reports = examine(able_machine());
  ASSERT_EQ(reports.size(), 2U);
  EXPECT_EQ(reports[0].target, "vm") << "the target most users need comes first";
  EXPECT_TRUE(reports[0].ready());
  EXPECT_TRUE(reports[1].ready());
  for (const auto& report : reports)
    for (const auto& item : report.checks) EXPECT_EQ(item.status, Status::kOk) << item.name;
  const std::string text = doctor_text(reports);
  EXPECT_NE(text.find("iotap can trace here with --target vm and --target local."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("fix:"), std::string::npos) << "nothing to fix: " << text;
}

TEST(Doctor, EachMissingPieceOfTheGuestNamesItsPackage) {
  const std::vector<Case> cases = {
      {[](MachineFacts& f) { f.stap_version.clear(); }, "stap", "apt-get install systemtap"},
      {[](MachineFacts& f) { f.qemu_path.clear(); }, "qemu", "apt-get install qemu-system-x86"},
      {[](MachineFacts& f) { f.guest_headers = false; }, "guest kernel headers",
       "apt-get install linux-headers-6.1.0-56-cloud-amd64"},
      {[](MachineFacts& f) { f.guest_kernel_problem = "guest kernel /boot/vmlinuz-x is missing"; },
       "guest kernel", "apt-get install linux-image-6.1.0-56-cloud-amd64"},
      {[](MachineFacts& f) { f.runtime_adapted = false; }, "stap runtime", "reinstall systemtap"},
      {[](MachineFacts& f) {
         f.guest_programs[1].path.clear();
         f.guest_programs[2].path.clear();
       },
       "guest's programs", "apt-get install mdadm dmsetup"},
      {[](MachineFacts& f) { f.memory_available_mib = 512; }, "memory", "free memory"},
      {[](MachineFacts& f) { f.temp_dir_problem = "TMPDIR '/nope' does not exist"; },
       "temporary directory", "set TMPDIR"},
  };
  for (const auto& each : cases) {
    MachineFacts facts = able_machine();
    each.take_away(facts);
    const auto reports = examine(facts);
    const TargetReport& vm = target(reports, "vm");
    EXPECT_FALSE(vm.ready()) << each.check;
    EXPECT_EQ(missing(vm), std::vector<std::string>{each.check});
    EXPECT_NE(check(vm, each.check).fix.find(each.fix), std::string::npos)
        << each.check << ": " << check(vm, each.check).fix;
    EXPECT_NE(doctor_text(reports).find("--target vm: a qemu guest iotap boots, with md, dm and "
                                        "the probes: not ready: 1 missing"),
              std::string::npos)
        << doctor_text(reports);
  }
}

TEST(Doctor, NoKvmAndNoDebuginfoAreNotesNotBlockers) {
  MachineFacts facts = able_machine();
  facts.kvm = false;
  facts.guest_debuginfo.clear();
  facts.guest_debuginfo_hint = "apt-get install linux-image-6.1.0-56-cloud-amd64-dbg";
  const auto reports = examine(facts);
  const TargetReport& vm = target(reports, "vm");
  EXPECT_TRUE(vm.ready());
  EXPECT_EQ(check(vm, "accelerator").status, Status::kNote);
  EXPECT_NE(check(vm, "accelerator").found.find("TCG"), std::string::npos);
  EXPECT_EQ(check(vm, "guest kernel debuginfo").status, Status::kNote);
  EXPECT_EQ(check(vm, "guest kernel debuginfo").fix, facts.guest_debuginfo_hint);
}

TEST(Doctor, PostgreSQLIsForPostgresOnlyANoteWhenMissing) {
  MachineFacts facts = able_machine();
  facts.postgres_server = "/usr/lib/postgresql/15/bin/postgres";
  EXPECT_EQ(check(target(examine(facts), "vm"), "PostgreSQL").status, Status::kOk);
  EXPECT_NE(check(target(examine(facts), "vm"), "PostgreSQL").found.find(facts.postgres_server),
            std::string::npos);
  facts.postgres_server.clear();
  const auto reports = examine(facts);
  const TargetReport& vm = target(reports, "vm");
  EXPECT_TRUE(vm.ready()) << "the guest traces without it";
  EXPECT_EQ(check(vm, "PostgreSQL").status, Status::kNote);
  EXPECT_EQ(check(vm, "PostgreSQL").fix, "apt-get install postgresql-15 (./setup.sh does)");
}

TEST(Doctor, AKernelWithoutModulesCannotTraceLocallyAndIsToldToUseTheGuest) {
  MachineFacts facts = able_machine();
  facts.proc_modules = false;
  facts.kprobes = false;
  const auto reports = examine(facts);
  const TargetReport& local = target(reports, "local");
  EXPECT_EQ(missing(local), std::vector<std::string>{"kernel modules"});
  EXPECT_EQ(check(local, "kernel modules").fix, "use --target vm");
  EXPECT_EQ(check(local, "kprobes").status, Status::kNote) << "only some probes need kprobes";
  EXPECT_NE(doctor_text(reports).find("iotap can trace here with --target vm.\n"),
            std::string::npos);
}

TEST(Doctor, EveryLocalBlockerIsMissingWithItsOwnFix) {
  const std::vector<Case> cases = {
      {[](MachineFacts& f) { f.modules_disabled = true; }, "kernel modules", "reboot"},
      {[](MachineFacts& f) { f.lockdown = "integrity"; }, "lockdown", "stap --sign"},
      {[](MachineFacts& f) { f.lockdown = "confidentiality"; }, "lockdown", "Secure Boot"},
      {[](MachineFacts& f) { f.uprobes = false; }, "uprobes", "CONFIG_UPROBES"},
      {[](MachineFacts& f) { f.tracepoints = false; }, "tracepoints", "CONFIG_TRACEPOINTS"},
      {[](MachineFacts& f) { f.local_headers = false; }, "kernel headers",
       "apt-get install linux-headers-6.1.0-56-amd64, or run modules saved for this kernel on a "
       "machine that has them (--save-module there, --module here)"},
      {[](MachineFacts& f) { f.root = false; }, "privileges", "sudo"},
      {[](MachineFacts& f) { f.staprun_path.clear(); }, "staprun", "systemtap-runtime"},
  };
  for (const auto& each : cases) {
    MachineFacts facts = able_machine();
    each.take_away(facts);
    const auto reports = examine(facts);
    const TargetReport& local = target(reports, "local");
    EXPECT_EQ(missing(local), std::vector<std::string>{each.check}) << each.check;
    EXPECT_NE(check(local, each.check).fix.find(each.fix), std::string::npos)
        << each.check << ": " << check(local, each.check).fix;
  }
}

TEST(Doctor, NeitherTargetReadySaysSoAndTheJsonCarriesEveryCheck) {
  MachineFacts facts = able_machine();
  facts.stap_version.clear();
  const auto reports = examine(facts);
  const std::string text = doctor_text(reports);
  EXPECT_NE(text.find("iotap cannot trace on this machine yet"), std::string::npos) << text;
  const Json json = doctor_json(reports);
  EXPECT_EQ(json["schema"], "iotap.doctor/1");
  ASSERT_EQ(json["targets"].size(), 2U);
  size_t checks = 0;
  for (const auto& report : reports) checks += report.checks.size();
  size_t json_checks = 0;
  for (const auto& each : json["targets"]) {
    EXPECT_FALSE(each["ready"].get<bool>());
    json_checks += each["checks"].size();
  }
  EXPECT_EQ(json_checks, checks);
  EXPECT_EQ(json["targets"][0]["checks"][0]["name"], "stap");
  EXPECT_EQ(json["targets"][0]["checks"][0]["status"], "missing");
}

// This machine, read by the doctor, against what the machine says in other ways.
TEST(DoctorOnThisMachine, AgreesWithWhatTheMachineSaysOfItself) {
  const MachineFacts facts = gather_machine_facts();
  EXPECT_EQ(facts.root, ::geteuid() == 0);
  EXPECT_EQ(facts.guest_kernel, config::kGuestKernel);
  EXPECT_EQ(facts.proc_modules, std::filesystem::exists("/proc/modules"));
  // The setup script installs everything the guest needs: on a machine the tests run on, the
  // guest is ready (the vm tier would fail otherwise).
  const auto reports = examine(facts);
  const TargetReport& vm = target(reports, "vm");
  EXPECT_TRUE(vm.ready()) << doctor_text({vm});
  EXPECT_NE(check(vm, "stap").found.find("Systemtap translator/driver"), std::string::npos)
      << "stap -V's own words";
  EXPECT_EQ(check(vm, "accelerator").status,
            std::filesystem::exists("/dev/kvm") && facts.kvm ? Status::kOk : Status::kNote);
}

// An ssh host that can trace, then one thing taken away at a time.
SshHostFacts able_host() {
  SshHostFacts facts;
  facts.target = "ssh://root@db7";
  facts.name = "root@db7";
  facts.login_hint = "ssh-copy-id root@db7";
  facts.host.release = "6.1.0-57-amd64";
  facts.host.machine = "x86_64";
  facts.host.staprun = "/usr/bin/staprun";
  facts.host.privilege = "root";
  facts.host.user = "root";
  facts.this_machine = "x86_64";
  facts.headers_here = true;
  facts.debuginfo_here = "/usr/lib/debug/boot/vmlinux-6.1.0-57-amd64";
  return facts;
}

TEST(Doctor, AnSshHostIsCheckedThereAndHere) {
  const TargetReport able = ssh_report(able_machine(), able_host());
  EXPECT_TRUE(able.ready());
  EXPECT_EQ(able.target, "ssh://root@db7");
  EXPECT_EQ(check(able, "ssh").found, "reached as root; kernel 6.1.0-57-amd64, x86_64");

  SshHostFacts facts = able_host();
  facts.unreachable = "root@db7: ssh could not run iotap's agent there (ssh: ...)";
  const TargetReport unreachable = ssh_report(able_machine(), facts);
  EXPECT_EQ(missing(unreachable), std::vector<std::string>{"ssh"});
  EXPECT_NE(check(unreachable, "ssh").fix.find("ssh-copy-id root@db7"), std::string::npos);

  facts = able_host();
  facts.host.staprun.clear();
  facts.headers_here = false;
  facts.host.privilege = "none";
  facts.host.machine = "aarch64";
  const TargetReport lacking = ssh_report(able_machine(), facts);
  EXPECT_EQ(missing(lacking), (std::vector<std::string>{"architecture", "kernel headers here",
                                                        "staprun there", "module loading there"}));
  EXPECT_EQ(check(lacking, "kernel headers here").fix,
            "apt-get install linux-headers-6.1.0-57-amd64");
  EXPECT_EQ(check(lacking, "staprun there").fix, "apt-get install systemtap-runtime on root@db7");

  facts = able_host();
  facts.debuginfo_here.clear();
  facts.debuginfo_hint = "apt-get install linux-image-6.1.0-57-amd64-dbg";
  const TargetReport no_debuginfo = ssh_report(able_machine(), facts);
  EXPECT_TRUE(no_debuginfo.ready()) << "debuginfo is a note: tracepoints and USDT need none";
  EXPECT_EQ(check(no_debuginfo, "kernel debuginfo here").status, Status::kNote);

  facts = able_host();
  facts.host.run_modules = {{"iotap_0123456789ab", 0}};
  const TargetReport left = ssh_report(able_machine(), facts);
  EXPECT_TRUE(left.ready()) << "a run's own module cannot collide with it";
  EXPECT_EQ(check(left, "iotap modules there").status, Status::kNote);
  EXPECT_EQ(check(left, "iotap modules there").fix, "rmmod iotap_0123456789ab as root on root@db7");
  EXPECT_EQ(check(able, "iotap modules there").found, "none loaded");
}

TEST(Doctor, AModuleNoRunIsAttachedToIsNamedWithItsRemovalAndOnesInUseAreNot) {
  MachineFacts facts = able_machine();
  const Check none = check(target(examine(facts), "local"), "iotap modules");
  EXPECT_EQ(none.status, Status::kOk);
  EXPECT_EQ(none.found, "none loaded");

  facts.run_modules = {{"iotap_0123456789ab", 1}};
  const Check running = check(target(examine(facts), "local"), "iotap modules");
  EXPECT_EQ(running.status, Status::kOk);
  EXPECT_EQ(running.found, "1 in use by runs now (iotap_0123456789ab)");

  facts.run_modules = {
      {"iotap_0123456789ab", 1}, {"iotap_aaaaaaaaaaaa", 0}, {"iotap_bbbbbbbbbbbb", 0}};
  const auto reports = examine(facts);
  const Check left = check(target(reports, "local"), "iotap modules");
  EXPECT_TRUE(target(reports, "local").ready());
  EXPECT_EQ(left.status, Status::kNote);
  EXPECT_EQ(left.found,
            "iotap_aaaaaaaaaaaa, iotap_bbbbbbbbbbbb loaded with no run attached (left by a run "
            "killed before it could unload its module): their probes still fire; 1 in use by "
            "runs now (iotap_0123456789ab)");
  EXPECT_EQ(left.fix, "rmmod iotap_aaaaaaaaaaaa iotap_bbbbbbbbbbbb as root");

  // A kernel without modules has none to list.
  facts.proc_modules = false;
  const TargetReport without = target(examine(facts), "local");
  EXPECT_TRUE(std::ranges::none_of(without.checks,
                                   [](const Check& c) { return c.name == "iotap modules"; }));
}

}  // namespace
}  // namespace iotap::doctor
