#include "guest_link.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "iotap/guest/shared_guest.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/error.h"
#include "iotap/util/lines.h"

namespace iotap::guest {

namespace {

namespace fs = std::filesystem;

using Clock = std::chrono::steady_clock;

// How long a guest left inside a run has to end it when asked: its end probes, then the stack's
// teardown, about 5 s under TCG on a loaded host.
constexpr auto kSettleDeadline = std::chrono::seconds(30);

GuestPort listen_port(const TempDir& dir, const char* name) {
  return GuestPort::listen(dir / name);
}

std::unique_ptr<GuestLink> connect_link(const std::string& dir) {
  return std::make_unique<GuestLink>(
      GuestPort::connect(dir + "/ctl"), GuestPort::connect(dir + "/in"),
      GuestPort::connect(dir + "/out"), GuestPort::connect(dir + "/err"));
}

// What settle() found: whether the guest waits for a run, and what it said before it did.
struct Settled {
  bool waits = false;
  bool was_in_a_run = false;  // it said something of a run first: one whose iotap is gone
  std::string said;           // what holds the run: blocked tasks, what its teardown could not undo
};

void add(std::string& said, std::string_view what) {
  if (!said.empty()) said += "; ";
  said += what;
}

// A run whose iotap died without a word (SIGKILL; a test's time limit) leaves the guest inside
// that run, its listener reading the next run's request as that run's own: the next run would
// wait for a start that never comes, then kill the guest (a CI run lost four tests so). So the
// guest is first asked to stop whatever it runs ("stop" is nothing to a guest between runs)
// and must say it waits for a run; what the old run still writes is read and dropped.
Settled settle(GuestLink& link) {
  Settled settled;
  [[maybe_unused]] const ssize_t sent = link.ctl.send("stop\n");
  const auto deadline = Clock::now() + kSettleDeadline;
  LineSplitter ctl_lines;
  LineSplitter err_lines;
  while (!settled.waits) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    std::array<pollfd, 3> fds{{{link.ctl.connection_fd(), POLLIN, 0},
                               {link.out.connection_fd(), POLLIN, 0},
                               {link.err.connection_fd(), POLLIN, 0}}};
    if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      std::array<char, 4096> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n <= 0) return settled;  // the guest went (qemu ended, or it powered off)
      const std::string_view bytes(buffer.data(), static_cast<size_t>(n));
      if (i == 1) continue;  // the old run's events
      if (i == 2) {
        err_lines.feed(bytes, [&](std::string_view line) {
          constexpr std::string_view kPrefix = "iotap guest: ";
          if (line.starts_with("iotap guest: blocked"))
            add(settled.said, line.substr(kPrefix.size()));
        });
        continue;
      }
      ctl_lines.feed(bytes, [&](std::string_view line) {
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty()) return;  // says nothing of a run
        const runner::ControlLine parsed = runner::parse_control_line(line);
        const bool status = parsed.kind == runner::ControlLine::Kind::kStatus;
        if (status && parsed.text == "waiting for a run") {
          settled.waits = true;
          return;
        }
        settled.was_in_a_run = true;
        // Its teardown's account of what it could not undo, and what holds it.
        constexpr std::string_view kStops = "the guest stops: ";
        if (status && parsed.text.starts_with(kStops))
          add(settled.said, parsed.text.substr(kStops.size()));
      });
    }
  }
  return settled;
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
  } else if (!info->kernel_release.empty() && !run.kernel_release.empty() &&
             info->kernel_release != run.kernel_release) {
    why = "it runs kernel " + info->kernel_release + ", the run asks for " + run.kernel_release;
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
    auto link = connect_link(dir);
    Settled settled = settle(*link);
    pid_t pid = info->pid;
    if (!settled.waits) {
      // Wedged (a task blocked in the kernel) or gone: the guest is booted anew, as it was.
      events.status("the guest at " + dir + " did not end a run left by an iotap that is gone" +
                    (settled.said.empty() ? "" : " (" + settled.said + ")") + "; restarting it");
      link.reset();
      pid = restart_shared_guest(*info, [&](std::string_view text) {
              events.status(std::string(text));
            }).pid;
      link = connect_link(dir);
      settled = settle(*link);
      if (!settled.waits) {
        ::close(lock_fd);
        return decline("it did not come back after a restart");
      }
    } else if (settled.was_in_a_run) {
      events.status("the guest at " + dir +
                    " was inside a run left by an iotap that is gone: ended it");
    }
    link->log_dir = dir;
    link->pid = pid;
    link->shared = true;
    link->lock_fd = lock_fd;
    events.status("running in the guest at " + dir + " (IOTAP_GUEST)");
    return link;
  } catch (const std::system_error& error) {
    ::close(lock_fd);
    return decline(error.what());
  } catch (const UserError& error) {  // its restart failed
    ::close(lock_fd);
    return decline(error.what());
  }
}

}  // namespace iotap::guest
