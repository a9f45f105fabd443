#pragma once
// What --target vm needs of this host, found without booting anything: for `iotap doctor`, and
// for the errors a run gives when one is missing.
#include <string>
#include <vector>

namespace iotap::guest {

// A program the guest's image takes from the host.
struct HostProgram {
  std::string name;
  std::string path;     // where it was found; empty: not installed
  std::string package;  // the Debian package that has it
};

// busybox, staprun, stapio, mdadm, dmsetup, nice: what the guest's image is made of.
std::vector<HostProgram> guest_host_programs();

// Why the guest kernel `release` cannot boot (its image or modules missing, or none configured),
// with the package to install; empty when it can.
std::string guest_kernel_problem(const std::string& release);

// Whether qemu runs the guest with KVM (hardware virtualization) rather than TCG (emulation).
bool guest_has_kvm();

}  // namespace iotap::guest
