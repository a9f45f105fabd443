#pragma once
// A guest kept for many runs: `iotap guest start` boots it once, and every --target vm run
// with IOTAP_GUEST naming its directory runs in it instead of booting its own, one run at a
// time; between runs the guest tears the stack down and unloads what the run loaded
// (guest/init.sh, iotap.mode=serve). Runs it cannot take (other memory or CPUs, virtio disks,
// the tools disk, a different guest image) boot their own guest as before.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "iotap/guest/guest_memory.h"

namespace iotap::guest {

struct SharedGuestOptions {
  std::string dir;  // its sockets, console log, pid file; made private (0700)
  unsigned memory_mib = kDefaultMemoryMib;
  unsigned cpus = 2;
  // It powers itself off after this long without a run: a forgotten guest does not hold its
  // memory for ever.
  std::chrono::minutes idle{30};
  std::string kernel_release;  // the kernel it boots (guest_kernels.h); empty: the default
};

struct SharedGuestInfo {
  std::string dir;
  pid_t pid = -1;  // qemu's
  unsigned memory_mib = 0;
  unsigned cpus = 0;
  std::chrono::minutes idle{30};
  std::string initrd;          // the base image it booted: a run needs the same one
  std::string kernel_release;  // the kernel it booted: a run needs the same one
};

// $XDG_RUNTIME_DIR/iotap-guest, else /tmp/iotap-guest-UID.
std::string default_shared_guest_dir();

// Boots the guest and returns once it waits for its first run. Throws UserError (a guest
// already runs there, it did not come up: nothing is left running then).
SharedGuestInfo start_shared_guest(const SharedGuestOptions& options,
                                   const std::function<void(std::string_view)>& status);

// Boots the guest of `info` anew, as it was started, in its directory, whose lock the caller
// holds (a run that found it wedged: guest_link.cpp). Throws UserError as start does.
SharedGuestInfo restart_shared_guest(const SharedGuestInfo& info,
                                     const std::function<void(std::string_view)>& status);

// The guest running at `dir`; nullopt when none does (never started, stopped, or gone).
std::optional<SharedGuestInfo> find_shared_guest(const std::string& dir);

// Powers it off and removes its directory. Throws UserError when no guest runs there.
void stop_shared_guest(const std::string& dir);

}  // namespace iotap::guest
