#pragma once
#include <unistd.h>

#include <memory>
#include <string>

#include "guest_channels.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {

// How this run reaches its guest: the four ports, qemu's pid, and where the guest's console
// log is. A guest booted for the run is iotap's child and powers off after it; a shared guest
// (shared_guest.h) is neither, and the run ends when the guest has said "exit" and both streams
// have ended.
struct GuestLink {
  GuestPort ctl;
  GuestPort in;
  GuestPort out;
  GuestPort err;
  std::string log_dir;
  pid_t pid = -1;
  bool shared = false;
  int lock_fd = -1;  // a shared guest's, held for the run

  GuestLink(GuestPort ctl_port, GuestPort in_port, GuestPort out_port, GuestPort err_port)
      : ctl(std::move(ctl_port)),
        in(std::move(in_port)),
        out(std::move(out_port)),
        err(std::move(err_port)) {}
  ~GuestLink() {
    if (lock_fd >= 0) ::close(lock_fd);
  }
  GuestLink(const GuestLink&) = delete;
  GuestLink& operator=(const GuestLink&) = delete;
  GuestLink(GuestLink&&) = delete;
  GuestLink& operator=(GuestLink&&) = delete;
};

// A guest booted for this run: its ports listen in `dir`.
std::unique_ptr<GuestLink> private_link(const TempDir& dir);

// The shared guest IOTAP_GUEST names, when it can take this run; else nullptr, with a status
// line saying why this run boots its own.
std::unique_ptr<GuestLink> shared_link(const VmRun& run, const std::string& initrd,
                                       const VmEvents& events);

}  // namespace iotap::guest
