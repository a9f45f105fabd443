#include "guest_link.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "iotap/guest/shared_guest.h"

namespace iotap::guest {

namespace {

namespace fs = std::filesystem;

GuestPort listen_port(const TempDir& dir, const char* name) {
  return GuestPort::listen(dir / name);
}

}  // namespace

std::unique_ptr<GuestLink> private_link(const TempDir& dir) {
  auto link = std::make_unique<GuestLink>(listen_port(dir, "ctl"), listen_port(dir, "in"),
                                          listen_port(dir, "out"), listen_port(dir, "err"));
  link->log_dir = dir.path();
  return link;
}

std::unique_ptr<GuestLink> shared_link(const VmRun& run, const std::string& initrd,
                                       const VmEvents& events) {
  const char* env = std::getenv("IOTAP_GUEST");
  if (env == nullptr || *env == '\0') return nullptr;
  const std::string dir = fs::absolute(env).lexically_normal().string();
  const auto info = find_shared_guest(dir);
  std::string why;
  if (!info) {
    why = "no guest runs there (iotap guest start boots one)";
  } else if (info->memory_mib != run.memory_mib) {
    why = "it has " + std::to_string(info->memory_mib) + " MiB, the run asks for " +
          std::to_string(run.memory_mib);
  } else if (info->cpus != run.cpus) {
    why = "it has " + std::to_string(info->cpus) + " CPUs, the run asks for " +
          std::to_string(run.cpus);
  } else if (run.stack && !run.stack->virtio_disks.empty()) {
    why = "the stack has virtio disks, which a guest gets at boot";
  } else if (!run.tools_image.empty()) {
    why = "the run needs the tools disk, which a guest gets at boot";
  } else if (run.ssh_port != 0) {
    why = "the run needs a network, which a guest gets at boot";
  } else if (info->initrd != initrd) {
    why = "it booted another guest image (iotap changed since it started)";
  }
  const auto decline = [&](const std::string& reason) {
    events.status("the guest at " + dir + " (IOTAP_GUEST) cannot take this run: " + reason +
                  "; booting one for it");
    return nullptr;
  };
  if (!why.empty()) return decline(why);
  const int lock_fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (lock_fd >= 0) ::close(lock_fd);
    return decline("another run is using it");
  }
  try {
    auto link = std::make_unique<GuestLink>(
        GuestPort::connect(dir + "/ctl"), GuestPort::connect(dir + "/in"),
        GuestPort::connect(dir + "/out"), GuestPort::connect(dir + "/err"));
    link->log_dir = dir;
    link->pid = info->pid;
    link->shared = true;
    link->lock_fd = lock_fd;
    events.status("running in the guest at " + dir + " (IOTAP_GUEST)");
    return link;
  } catch (const std::system_error& error) {
    ::close(lock_fd);
    return decline(error.what());
  }
}

}  // namespace iotap::guest
