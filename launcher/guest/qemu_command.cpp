#include "qemu_command.h"

#include <filesystem>
#include <fstream>

#include "accelerator.h"
#include "iotap/util/error.h"
#include "iotap/util/process.h"

namespace iotap::guest {

namespace fs = std::filesystem;

namespace {

// The channels' sockets: the control line on a serial port, the others on virtio-serial ports.
void add_ports(std::vector<std::string>& argv, const fs::path& dir, bool serve) {
  // A served guest's sockets are qemu's, and stay for the runs that connect one after another.
  const std::string server = serve ? ",server=on,wait=off" : "";
  int port_number = 1;
  for (const PortSocket& port : kPortSockets) {
    const std::string id = port.socket;
    std::string chardev = "socket,id=" + id;
    chardev += ",path=";
    chardev += (dir / id).string();
    chardev += server;
    argv.insert(argv.end(), {"-chardev", chardev});
    if (*port.guest_name == '\0') {
      argv.insert(argv.end(), {"-serial", "chardev:" + id});
      // The run's files and output go over virtio-serial: a UART is far too slow for them.
      argv.insert(argv.end(), {"-device", "virtio-serial-pci,id=vser"});
    } else {
      argv.insert(argv.end(),
                  {"-device", "virtserialport,bus=vser.0,nr=" + std::to_string(port_number++) +
                                  ",chardev=" + id + ",name=" + port.guest_name});
    }
  }
}

// The stack's virtio disks: sparse images in `dir`, throttled as the stack says.
void add_virtio_disks(std::vector<std::string>& argv, const fs::path& dir,
                      const std::vector<stack_spec::VirtioDisk>& disks) {
  for (const auto& disk : disks) {
    const std::string image = dir / (disk.drive_id + ".img");
    { std::ofstream create(image, std::ios::binary); }
    fs::resize_file(image, disk.size_bytes);  // sparse: costs no disk until written
    std::string drive = "file=" + image + ",if=none,id=" + disk.drive_id + ",format=raw";
    if (disk.iops != 0) drive += ",throttling.iops-total=" + std::to_string(disk.iops);
    if (disk.bps != 0) drive += ",throttling.bps-total=" + std::to_string(disk.bps);
    argv.insert(argv.end(), {"-drive", drive, "-device", "virtio-blk-pci,drive=" + disk.drive_id});
  }
}

// Software emulation runs every vCPU in one host thread. qemu 7.2's multi-threaded TCG hangs the
// guest when the kernel patches its code (a static key: each stap module's load and unload turns
// the sys_enter tracepoint on and off) while another vCPU makes system calls: that vCPU stays at
// the patched instruction, as if it kept executing the int3 the patch placed, which the kernel's
// int3 handler, finding the byte gone, rewinds to ("CPU#0 stuck ... [stapio]", RIP
// syscall_trace_enter+0xe9, the jump label: CI's soft lockups). Toggling raw_syscalls' events
// 300 times beside two syscall loops hung the guest in 5 runs of 5 within 10 s, and 1000 toggles
// passed 3 runs of 3 with one thread. The suite got faster, not slower (docs/performance.md):
// two guests keep two host threads busy, not four vCPU threads on two CPUs.
constexpr const char* kTcgOneThread = "tcg,thread=single";

// Software emulation's CPU: all it can emulate, but fast string copies. A guest CPU that says it
// has them (ERMS, FSRM) has its kernel and glibc copy with `rep movsb`, which qemu 7.2 runs a
// byte at a time, each byte a pass through the translated block; without, they copy 8 or more
// bytes a step. Measured: a guest's boot 8.2-8.7 s -> 7.1-7.6 s, and stapio's CPU time in a
// bench/overhead run 0.165 -> 0.12 s (docs/performance.md). A real CPU's `rep movsb` is as fast
// as its other copies, so this brings the guest nearer to one.
constexpr const char* kTcgCpu = "max,-erms,-fsrm";

}  // namespace

std::vector<std::string> qemu_command(const QemuGuest& guest) {
  const bool kvm = host_accelerator() == Accelerator::kKvm;
  const fs::path dir = guest.dir;
  // no_timer_check: on a loaded host, software emulation can miss the IO-APIC timer check's
  // deadline and panic the boot. softlockup_panic: a CPU stuck in the kernel panics the guest,
  // and the run fails with the console's last lines (the CPU's RIP and its callers) instead of
  // hanging until someone kills it; watchdog_thresh=60 makes "stuck" 120 s, not 20, because under
  // software emulation on a loaded host a CPU can spend tens of seconds in a long kernel path.
  std::string append =
      "console=ttyS0 quiet panic=-1 no_timer_check softlockup_panic=1 watchdog_thresh=60";
  append += guest.serve ? " iotap.mode=serve iotap.idle=" + std::to_string(guest.idle.count())
                        : " iotap.mode=once";
  std::vector<std::string> argv{guest.qemu,
                                "-machine",
                                "q35",
                                "-accel",
                                kvm ? "kvm" : kTcgOneThread,
                                "-cpu",
                                kvm ? "host" : kTcgCpu,
                                "-smp",
                                std::to_string(guest.cpus),
                                "-m",
                                std::to_string(guest.memory_mib),
                                "-nodefaults",
                                "-no-user-config",
                                "-display",
                                "none",
                                "-no-reboot",
                                "-kernel",
                                guest.kernel.image,
                                "-initrd",
                                guest.initrd,
                                "-append",
                                append,
                                "-serial",
                                "file:" + (dir / "console.log").string()};
  add_ports(argv, dir, guest.serve);
  add_virtio_disks(argv, dir, guest.virtio_disks);
  if (!guest.tools_image.empty()) {
    argv.insert(argv.end(),
                {"-drive", "file=" + guest.tools_image + ",if=none,id=tools,format=raw,readonly=on",
                 "-device", "virtio-blk-pci,drive=tools,serial=iotap-tools"});
  }
  if (guest.ssh_port != 0) {
    // User networking: the guest reaches nothing but what qemu forwards, and the forward
    // listens on the loopback address only.
    argv.insert(
        argv.end(),
        {"-netdev", "user,id=net0,hostfwd=tcp:127.0.0.1:" + std::to_string(guest.ssh_port) + "-:22",
         "-device", "virtio-net-pci,netdev=net0"});
  }
  return argv;
}

std::string find_qemu() {
  std::string qemu = find_in_path("qemu-system-x86_64");
  if (qemu.empty())
    throw UserError(
        std::string("--target vm needs qemu-system-x86_64 (apt-get install qemu-system-x86; "
                    "./setup.sh does; ") +
        kDoctorHint + ")");
  return qemu;
}

}  // namespace iotap::guest
