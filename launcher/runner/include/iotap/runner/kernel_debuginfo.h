#pragma once
// Where a kernel's DWARF is on this host: Debian's linux-image-RELEASE-dbg package, which puts
// vmlinux with DWARF, the real System.map and every module's debuginfo under /usr/lib/debug.
// stap needs it for kernel.function() and module().function() probes, $variables and @cast to
// kernel types (the standard tapsets ioblock, vfs, scheduler and nd_syscall use them too).
#include <optional>
#include <string>

namespace iotap::runner {

struct KernelDebuginfo {
  std::string vmlinux;     // /usr/lib/debug/boot/vmlinux-RELEASE
  std::string system_map;  // /usr/lib/debug/boot/System.map-RELEASE
  std::string modules;     // /usr/lib/debug/lib/modules/RELEASE/kernel; empty when absent
};

// The package's files for `release` under `debug_root`; nullopt without vmlinux or System.map.
std::optional<KernelDebuginfo> find_kernel_debuginfo(
    const std::string& release, const std::string& debug_root = "/usr/lib/debug");

// Debian's package name for it: linux-image-RELEASE-dbg.
std::string debuginfo_package(const std::string& release);

// What to run to install it, for messages: "apt-get install linux-image-RELEASE-dbg (...)".
std::string debuginfo_install_hint(const std::string& release);

}  // namespace iotap::runner
