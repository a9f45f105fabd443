#pragma once
// The qemu command line of a guest: the machine, the kernel with init.sh's mode on its command
// line, the console log and the four ports (guest/init.sh lists them), and the run's disks.
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "iotap/guest/guest_memory.h"
#include "iotap/stack_spec/stack_plan.h"
#include "kernel.h"

namespace iotap::guest {

// The sockets the ports' chardevs use, in `QemuGuest::dir`, and their names in the guest.
struct PortSocket {
  const char* socket;      // the file name in the guest's directory
  const char* guest_name;  // the virtio-serial port's name (empty: the ttyS1 UART)
};
inline constexpr std::array<PortSocket, 4> kPortSockets{
    {{"ctl", ""}, {"in", "org.iotap.in"}, {"out", "org.iotap.out"}, {"err", "org.iotap.err"}}};

struct QemuGuest {
  std::string qemu;
  GuestKernel kernel;
  std::string initrd;
  std::string dir;  // the sockets, console.log (and a served guest's pid file)
  unsigned memory_mib = kDefaultMemoryMib;
  unsigned cpus = 2;
  // A guest kept for many runs (init.sh's iotap.mode=serve): qemu listens on the sockets, runs
  // connect; it powers itself off after `idle` without a run. Otherwise iotap listens and the
  // guest powers off after its one run.
  bool serve = false;
  std::chrono::seconds idle{0};
  std::vector<stack_spec::VirtioDisk> virtio_disks;  // made sparse in dir
  std::string tools_image;                           // read-only, serial iotap-tools
  uint16_t ssh_port = 0;  // non-zero: 127.0.0.1:ssh_port -> the guest's port 22
};

std::vector<std::string> qemu_command(const QemuGuest& guest);

// qemu-system-x86_64 from PATH; throws UserError saying how to install it.
std::string find_qemu();

}  // namespace iotap::guest
