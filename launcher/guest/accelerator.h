#pragma once
// Which qemu accelerator runs the guest: KVM when the host has hardware virtualization, else TCG
// (software emulation). A /dev/kvm that opens is not enough: some sandboxes offer kvm-pvm, a
// paravirtual KVM that runs only guests built for it; a stock kernel stops at its first
// privileged instruction there, and the guest hangs without a line on its console.
#include <string_view>

namespace iotap::guest {

enum class Accelerator { kKvm, kTcg };

// From /proc/cpuinfo's text and whether /dev/kvm opened read-write: KVM only when both hold
// and a "flags" line names vmx (Intel VT-x) or svm (AMD-V).
Accelerator choose_accelerator(std::string_view cpuinfo, bool kvm_device_opens);

// The same, for this host.
Accelerator host_accelerator();

}  // namespace iotap::guest
