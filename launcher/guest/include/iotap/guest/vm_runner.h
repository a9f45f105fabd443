#pragma once
// --target vm: boots a throwaway qemu guest with the project's kernel, builds the --stack in
// it, runs the compiled module under staprun (with the command, if any), streams the output
// back and powers the guest off. Nothing is left behind: the guest, its sockets and its
// images live in a private temp directory that goes with the run.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/guest/guest_memory.h"
#include "iotap/guest/postgres_guest.h"
#include "iotap/runner/postgres_stats.h"
#include "iotap/stack.h"
#include "iotap/stack/disk_stats.h"
#include "iotap/stack_spec/stack_plan.h"

namespace iotap::guest {

struct VmRun {
  // The kernel the guest boots; empty: the default (guest_kernels.h's resolve_guest_kernel).
  std::string kernel_release;
  std::string module_path;  // the .ko compiled for the guest kernel; empty: only kernel_symbols
  // When set, it makes module_path, called once a guest booted for the run is on its way: the
  // compile overlaps the boot. What it throws ends the run, and the guest goes.
  std::function<std::string()> build_module;
  std::optional<stack_spec::StackPlan> stack;
  std::vector<std::string> command;   // argv staprun -c runs; empty: run until stopped
  std::vector<std::string> programs;  // host programs the guest needs, with their libraries
  std::vector<std::string> files;     // host files the program reads, at the same paths
  // staprun's options (-v) and the module's parameters (NAME=VALUE, from stap -G). Words of
  // letters, digits and _.=- only (stap/stap_options.h checks them): the guest's shell splits
  // them at spaces.
  std::vector<std::string> staprun_options;
  std::vector<std::string> module_options;
  unsigned memory_mib = kDefaultMemoryMib;
  unsigned cpus = 2;
  // 0: none. Else the whole guest run, from the moment its files are ready (the module
  // compiled; the boot may have overlapped the compile): when it runs out before the module runs
  // (boot, stack), the guest is killed and the run fails; after, the run is stopped as Ctrl-C
  // would stop it. Without it, a guest that has not started the run 300 s after that is taken
  // for hung.
  std::chrono::seconds timeout{0};
  // Send the guest's /proc/kallsyms (text symbols) before the run's output, to name kernel
  // addresses on the host (see symbols/kernel_symbols.h).
  bool kernel_symbols = false;
  // Run `command` as it is (sh -c), without staprun; the module, when there is one, is at
  // /iotap/iotap.ko in the guest for the command's own use. The benchmarks run their rounds so.
  bool plain_command = false;
  // The command's stdout goes where its stderr goes (the err port), not into the module's
  // output stream: a block-buffered stdout written mid-line would split the stream's lines.
  bool program_stdout_to_stderr = false;
  // A read-only ext4 image (vm/tools_image.h) attached as a virtio disk and mounted at /tools
  // before the command runs, tracefs mounted too: programs too big for the initramfs.
  std::string tools_image;
  // Non-zero: the guest gets a network (qemu's user networking, no other way in or out) whose
  // TCP port 22 is forwarded from 127.0.0.1:ssh_port on this host, lo and eth0 up before the
  // command runs. The ssh tests' hosts (tests/vm/ssh_test_host.cpp) run an ssh server on it.
  uint16_t ssh_port = 0;
  // --postgres: PostgreSQL started on the stack before the command, which runs as its user
  // (guest/postgres_guest.h); its files on tools_image, which must then hold them.
  std::optional<PostgresRun> postgres;
};

struct VmEvents {
  std::function<void(std::string_view)> stdout_data;
  std::function<void(std::string_view)> stderr_data;
  std::function<void(std::string_view)> status;    // progress, one short phrase at a time
  std::function<void(const StackDevice&)> device;  // the stack, top first, once built
  // With VmRun::kernel_symbols: the guest's /proc/kallsyms, before any stdout_data.
  std::function<void(std::string)> kernel_symbols;
};

struct VmResult {
  int exit_status = 0;  // staprun's, inside the guest
  bool interrupted = false;
  bool timed_out = false;
  std::vector<StackDevice> devices;  // the stack the guest built, top first
  // The kernel's disk statistics over the run (after - before), for the devices that keep them.
  KernelDiskStats kernel_stats;
  // From "running" (the module about to load) to staprun's exit, as the host saw the guest's
  // two lines arrive; unset when the run never got there.
  std::optional<double> traced_seconds;
  // With VmRun::postgres: pg_stat_database's counters over the run (after - before).
  std::optional<runner::PostgresStats> postgres;
};

// Checks, before anything slow, what would otherwise fail only at boot: qemu and guest kernel
// `release` are installed, the sockets' paths under TMPDIR fit in a unix socket address, and
// memory_mib holds the initramfs with `programs` (and a compiled module) in it. Throws UserError.
void check_vm_run(const std::string& release, unsigned memory_mib,
                  const std::vector<std::string>& programs,
                  const std::vector<std::string>& files = {});

// Whether the guest runs under software emulation (TCG): no usable /dev/kvm on this host.
bool guest_is_emulated();

// Boots the guest and runs. A stop signal (util/stop_signal.h) before the module runs kills the
// guest and throws Stopped; once it runs, the first one stops the run after its end probes
// (VmResult::interrupted) and a second one kills the guest.
VmResult run_in_vm(const VmRun& run, const VmEvents& events);

}  // namespace iotap::guest
