#include "iotap/guest/shared_guest.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "guest_channels.h"
#include "initramfs.h"
#include "iotap/guest/guest_kernels.h"
#include "iotap/guest/guest_logs.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "qemu_command.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Boot and the ports, under TCG on a loaded host: seconds, 300 s means it hangs.
constexpr auto kReadyDeadline = std::chrono::seconds(300);
constexpr auto kStopGrace = std::chrono::seconds(10);

// Every file a guest's directory may hold: nothing else is removed with it.
std::vector<std::string> guest_files() {
  std::vector<std::string> names{"console.log", "qemu.log", "qemu.pid", "guest.conf", "lock"};
  for (const PortSocket& port : kPortSockets) names.emplace_back(port.socket);
  return names;
}

bool is_guest_file(std::string_view name) {
  const std::vector<std::string> names = guest_files();
  return std::ranges::find(names, name) != names.end();
}

// The guest's files but its lock (held by whoever removes them: removed, another start could
// make a new one and lock that).
void remove_guest_files(const std::string& dir) {
  for (const auto& name : guest_files()) {
    if (name == "lock") continue;
    ::unlink((std::filesystem::path(dir) / name).c_str());
  }
}

void remove_guest_dir(const std::string& dir) {
  remove_guest_files(dir);
  ::unlink((dir + "/lock").c_str());
  ::rmdir(dir.c_str());
}

// Whether `dir` is a private directory of this user's (mode 0700) that holds nothing but a
// guest's files: the only kind start reuses and stop removes. (`guest stop --dir /etc` once
// unlinked any /etc/lock there and said /etc was removed.) `some` asks for one such file at
// least: an empty directory was never a guest's.
bool is_guest_dir(const std::string& dir, bool some) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() ||
      (st.st_mode & 077) != 0)
    return false;
  std::error_code error;
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (!is_guest_file(entry.path().filename().string())) return false;
    ++files;
  }
  return !error && (files > 0 || !some);
}

// A private directory for the guest: made 0700, or an existing one of ours holding nothing but
// a guest's files.
void make_guest_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno != EEXIST)
      throw UserError("cannot make the guest's directory '" + dir + "': " + std::strerror(errno));
    if (!is_guest_dir(dir, false))
      throw UserError("'" + dir +
                      "' is not a guest's directory (a private one of yours, mode 0700, holding "
                      "only a guest's files); name another with --dir (iotap makes it)");
  }
  const std::string longest = dir + "/" + kPortSockets[0].socket;
  if (longest.size() >= sizeof(sockaddr_un::sun_path))
    throw UserError("the guest's directory '" + dir +
                    "' is too long for its sockets; name a shorter one with --dir");
}

[[noreturn]] void already_there(const std::string& dir, const std::string& what) {
  throw UserError("a guest already runs at " + dir + " (" + what +
                  "); stop it first: iotap guest stop --dir " + dir);
}

// The guest's lock (the one a run holds while it uses the guest), held by a start from before
// it looks for a guest there until it returns: of two starts at once, one boots and the other
// says a guest is there. Unlocked when the start's process ends.
class StartLock {
 public:
  explicit StartLock(const std::string& dir)
      : fd_(::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) {
    if (fd_ < 0)
      throw UserError("cannot make the guest's lock '" + dir + "/lock': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      already_there(dir, "it is starting, or a run is using it");
    }
  }
  ~StartLock() { ::close(fd_); }
  StartLock(const StartLock&) = delete;
  StartLock& operator=(const StartLock&) = delete;
  StartLock(StartLock&&) = delete;
  StartLock& operator=(StartLock&&) = delete;

 private:
  int fd_;
};

bool is_guest_of(pid_t pid, const std::string& dir) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find("path=" + dir + "/ctl,server=on") != std::string::npos;
}

// Waits until the guest says it waits for a run, or fails saying why.
void wait_until_ready(const std::string& dir, pid_t pid) {
  GuestPort ctl = GuestPort::connect(dir + "/ctl");
  // The guest may have said it before this connected: an empty line makes it say it again.
  [[maybe_unused]] const ssize_t written = ctl.send("\n");
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  const auto deadline = Clock::now() + kReadyDeadline;
  LineSplitter lines;
  std::string error;
  bool ready = false;
  while (!ready && error.empty()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      error = "it had not come up after " + std::to_string(kReadyDeadline.count()) + " s";
      break;
    }
    std::array<pollfd, 2> fds{{{ctl.connection_fd(), POLLIN, 0}, {pidfd, POLLIN, 0}}};
    if (::poll(fds.data(), pidfd >= 0 ? 2 : 1, static_cast<int>(left)) < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) {
      error = "qemu exited";
      break;
    }
    if (fds[0].revents == 0) continue;
    std::array<char, 4096> buffer{};
    const ssize_t n = ::read(ctl.connection_fd(), buffer.data(), buffer.size());
    if (n <= 0) {
      error = "its control port closed";
      break;
    }
    lines.feed(std::string_view(buffer.data(), static_cast<size_t>(n)), [&](std::string_view line) {
      if (line.ends_with('\r')) line.remove_suffix(1);
      const runner::ControlLine parsed = runner::parse_control_line(line);
      if (parsed.kind == runner::ControlLine::Kind::kError) error = parsed.text;
      if (parsed.kind == runner::ControlLine::Kind::kStatus && parsed.text == "waiting for a run")
        ready = true;
    });
  }
  if (pidfd >= 0) ::close(pidfd);
  if (!ready)
    throw UserError("the guest did not come up: " + error + "\n  last console lines:\n" +
                    last_lines(dir + "/console.log", 8));
}

}  // namespace

std::string default_shared_guest_dir() {
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != '\0')
    return std::string(runtime) + "/iotap-guest";
  return "/tmp/iotap-guest-" + std::to_string(::getuid());
}

std::optional<SharedGuestInfo> find_shared_guest(const std::string& dir) {
  SharedGuestInfo info;
  info.dir = dir;
  {
    std::ifstream pid_file(dir + "/qemu.pid");
    if (!(pid_file >> info.pid)) return std::nullopt;
  }
  if (!is_guest_of(info.pid, dir)) return std::nullopt;
  std::ifstream conf(dir + "/guest.conf");
  std::string name;
  while (conf >> name) {
    if (name == "memory_mib") conf >> info.memory_mib;
    if (name == "cpus") conf >> info.cpus;
    if (name == "idle_minutes") {
      long minutes = 0;
      conf >> minutes;
      info.idle = std::chrono::minutes(minutes);
    }
    if (name == "initrd") conf >> info.initrd;
    if (name == "kernel") conf >> info.kernel_release;
  }
  if (info.initrd.empty()) return std::nullopt;  // still starting, or not ours
  return info;
}

namespace {

// Boots a guest in `dir` (made, locked and emptied by the caller) and returns once it waits for
// its first run; nothing is left running when it throws.
SharedGuestInfo boot_shared_guest(const std::string& dir, const SharedGuestOptions& options,
                                  const std::function<void(std::string_view)>& status) {
  QemuGuest guest;
  guest.dir = dir;
  guest.memory_mib = options.memory_mib;
  guest.cpus = options.cpus;
  guest.serve = true;
  guest.idle = options.idle;
  try {
    guest.qemu = find_qemu();
    guest.kernel = GuestKernel::find(resolve_guest_kernel(options.kernel_release));
    status("preparing the guest image");
    guest.initrd = base_initramfs(guest.kernel, data_paths().cache).path;
  } catch (...) {
    remove_guest_dir(dir);
    throw;
  }
  std::vector<std::string> argv = qemu_command(guest);
  argv.insert(argv.end(), {"-daemonize", "-pidfile", dir + "/qemu.pid"});

  const int log =
      ::open((dir + "/qemu.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  SpawnOptions spawn_options;
  spawn_options.stdout_fd = log;
  spawn_options.stderr_fd = log;
  spawn_options.activity = "while qemu started the guest";
  status("booting the guest");
  ExitStatus daemonized;
  try {
    daemonized = wait_for(spawn(argv, spawn_options));
  } catch (...) {
    ::close(log);
    remove_guest_dir(dir);
    throw;
  }
  ::close(log);
  SharedGuestInfo info;
  info.dir = dir;
  std::ifstream pid_file(dir + "/qemu.pid");
  if (!daemonized.ok() || !(pid_file >> info.pid)) {
    const std::string said = last_lines(dir + "/qemu.log", 8);
    remove_guest_dir(dir);
    throw UserError("qemu could not start the guest; it said:\n" + said);
  }
  try {
    wait_until_ready(dir, info.pid);
  } catch (...) {
    ::kill(info.pid, SIGKILL);
    remove_guest_dir(dir);
    throw;
  }
  info.memory_mib = options.memory_mib;
  info.cpus = options.cpus;
  info.idle = options.idle;
  info.initrd = guest.initrd;
  info.kernel_release = guest.kernel.release;
  write_file(dir + "/guest.conf",
             "memory_mib " + std::to_string(info.memory_mib) + "\ncpus " +
                 std::to_string(info.cpus) + "\nidle_minutes " + std::to_string(info.idle.count()) +
                 "\ninitrd " + info.initrd + "\nkernel " + info.kernel_release + "\n",
             0600);
  return info;
}

// Sends qemu `sig` and waits up to kStopGrace for it to go; whether it went in that time.
bool signal_and_wait(pid_t pid, int sig) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  ::kill(pid, sig);
  if (pidfd < 0) return false;
  pollfd exited{pidfd, POLLIN, 0};
  const bool gone = ::poll(&exited, 1, static_cast<int>(kStopGrace.count() * 1000)) > 0;
  ::close(pidfd);
  return gone;
}

}  // namespace

SharedGuestInfo start_shared_guest(const SharedGuestOptions& options,
                                   const std::function<void(std::string_view)>& status) {
  const std::string dir = fs::absolute(options.dir).lexically_normal().string();
  make_guest_dir(dir);
  const StartLock lock(dir);
  if (const auto running = find_shared_guest(dir))
    already_there(dir, "qemu pid " + std::to_string(running->pid));
  remove_guest_files(dir);  // a guest's that went without its stop
  return boot_shared_guest(dir, options, status);
}

SharedGuestInfo restart_shared_guest(const SharedGuestInfo& info,
                                     const std::function<void(std::string_view)>& status) {
  signal_and_wait(info.pid, SIGKILL);
  remove_guest_files(info.dir);
  SharedGuestOptions options;
  options.dir = info.dir;
  options.memory_mib = info.memory_mib;
  options.cpus = info.cpus;
  options.idle = info.idle;
  return boot_shared_guest(info.dir, options, status);
}

void stop_shared_guest(const std::string& dir_option) {
  const std::string dir = fs::absolute(dir_option).lexically_normal().string();
  std::ifstream pid_file(dir + "/qemu.pid");
  pid_t pid = -1;
  if (!(pid_file >> pid) || !is_guest_of(pid, dir)) {
    std::string what;
    std::error_code error;
    if (is_guest_dir(dir, true)) {
      remove_guest_dir(dir);
      if (!fs::exists(dir, error)) what = " (its directory is removed)";
    } else if (fs::exists(dir, error) || fs::is_symlink(dir, error)) {
      what = " (and '" + dir + "' is not a guest's directory: left as it is)";
    }
    throw UserError("no guest runs at " + dir + what +
                    "; `iotap guest status` lists the one at the default place");
  }
  if (!signal_and_wait(pid, SIGTERM)) ::kill(pid, SIGKILL);
  remove_guest_dir(dir);
}

}  // namespace iotap::guest
