#include "iotap/guest/vm_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "accelerator.h"
#include "guest_channels.h"
#include "guest_logs.h"
#include "initramfs.h"
#include "iotap/config.h"
#include "iotap/guest/elf_dependencies.h"
#include "iotap/guest/shared_guest.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"
#include "kernel.h"
#include "leading_block.h"
#include "qemu_command.h"
#include "stream_end.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A guest that was asked to stop but has not powered off by then is killed.
constexpr auto kStopGrace = std::chrono::seconds(20);

// A guest that has not started the run by then (boot, modules, stack) is taken for hung and
// killed, with or without --timeout. Under TCG on a loaded host, boot and stack take 5-30 s.
constexpr auto kStartDeadline = std::chrono::seconds(300);

constexpr const char* kTempPrefix = "iotap-vm";

// Guest memory, measured with this kernel under TCG: the kernel and its tables take about 64 MiB,
// unpacking the initramfs needs it twice (the archive and the files it holds, until the archive
// is freed), and the run itself needs some room: 88 MiB fails to unpack a 14 MiB initramfs,
// 96 MiB boots. kMemoryOverheadMib covers the kernel and a margin for staprun and the program.
constexpr uint64_t kMemoryOverheadMib = 80;
// The compiled module is not known before the compile; scripts on the bundled tapsets compile
// to well under this.
constexpr uint64_t kModuleAllowanceBytes = 4ULL << 20;

uint64_t memory_needed_mib(uint64_t initrd_bytes) {
  constexpr uint64_t kMib = 1ULL << 20;
  return kMemoryOverheadMib + (2 * initrd_bytes + kMib - 1) / kMib;
}

void check_memory(unsigned memory_mib, uint64_t initrd_bytes, bool estimated) {
  const uint64_t needed = memory_needed_mib(initrd_bytes);
  if (memory_mib >= needed) return;
  throw UserError("--memory " + std::to_string(memory_mib) +
                  " MiB is too small for the guest: its initramfs is " +
                  (estimated ? "about " : "") + std::to_string((initrd_bytes + (1 << 19)) >> 20) +
                  " MiB, and the kernel needs twice that plus " +
                  std::to_string(kMemoryOverheadMib) + " MiB to unpack it and run; use --memory " +
                  std::to_string(needed) + " or more");
}

uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

// Why the guest's kernel stopped, when it said so on the console ("Kernel panic - not syncing:
// softlockup: hung tasks", after "BUG: soft lockup - CPU#0 stuck for 22s! [stapio:158]"); the
// backtrace after it fills the console's last lines.
std::string kernel_failure(const std::string& console_log) {
  std::ifstream in(console_log);
  std::string bug;
  std::string panic;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t at = line.find("] ");
    const std::string text = at == std::string::npos ? line : line.substr(at + 2);
    if (bug.empty() && text.find("BUG: ") != std::string::npos) bug = text;
    if (panic.empty() && text.starts_with("Kernel panic")) panic = text;
  }
  std::string out;
  if (!bug.empty()) out += "\n  the guest's kernel: " + bug;
  if (!panic.empty()) out += "\n  the guest's kernel: " + panic;
  return out;
}

// A run.conf line the guest's shell sources and then splits at spaces. The words are checked
// options (stap/stap_options.h): anything else here is a bug, not something to quote.
std::string conf_words(const std::string& name, const std::vector<std::string>& words) {
  std::string line = name + "='";
  for (const auto& word : words) {
    const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("_.=-", c) != nullptr;
    });
    if (!plain) {
      std::string what = "run.conf: unchecked word '";
      what += word;
      what += "' in ";
      what += name;
      throw std::logic_error(what);
    }
    line += (&word == words.data() ? "" : " ") + word;
  }
  return line + "'\n";
}

// staprun's niceness in the guest, and the command's increment back to 0. By default both run
// at 0: stapio's readers above the program (nice -10, as before) kept up, but took the CPU from
// it, 4 KiB reads ran 2.9 times slower than at nice 0, and lost nothing more (bench/overhead,
// docs/performance.md); the end of the stream is stapio_drain.so's (init.sh says why).
// IOTAP_STAPRUN_NICE overrides it, for a test or a diagnosis that needs the readers starved or
// favoured (docs/event-format.md).
std::string reader_priority() {
  int staprun_nice = 0;
  if (const char* env = std::getenv("IOTAP_STAPRUN_NICE"); env != nullptr) {
    const std::string_view text(env);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), staprun_nice);
    if (error != std::errc() || end != text.data() + text.size() || staprun_nice < -20 ||
        staprun_nice > 19)
      throw UserError("IOTAP_STAPRUN_NICE='" + std::string(text) +
                      "' is not a niceness (a whole number from -20 to 19); unset it");
  }
  return "IOTAP_STAPRUN_NICE=" + std::to_string(staprun_nice) +
         "\nIOTAP_COMMAND_NICE=" + std::to_string(-staprun_nice) + "\n";
}

void write_run_files(InitramfsBuilder& image, const VmRun& run, const GuestKernel& kernel) {
  image.add_directory("/iotap");
  image.add_file("/iotap/iotap.ko", run.module_path.empty() ? "" : read_file(run.module_path));
  std::string modules;
  std::string stack_script;
  // The channel modules are loaded at boot (initramfs.h); the guest skips a module it has.
  std::vector<std::string> module_names;
  if (run.stack) module_names = run.stack->modules;
  if (!run.tools_image.empty()) module_names.emplace_back("virtio_blk");
  if (run.ssh_port != 0) module_names.emplace_back("virtio_net");
  {
    for (const auto& ko : kernel.module_load_order(module_names)) {
      modules += ko;
      if (fs::path(ko).filename() == "brd.ko") {
        for (const auto& option : run.stack->brd_options) modules += " " + option;
      }
      if (fs::path(ko).filename() == "null_blk.ko") {
        for (const auto& option : run.stack->null_blk_options) modules += " " + option;
      }
      modules += "\n";
    }
    if (run.stack) stack_script = run.stack->guest_script;
  }
  image.add_file("/iotap/modules", modules);
  image.add_file("/iotap/stack.sh", stack_script);
  image.add_file("/iotap/command", quoted_command(run.command));
  // Runs its arguments with stdout on stderr (see VmRun::program_stdout_to_stderr).
  image.add_file("/iotap/stdout-to-stderr", "#!/bin/sh\nexec \"$@\" >&2\n", 0755);
  image.add_file(
      "/iotap/run.conf",
      conf_words("IOTAP_STAPRUN_OPTIONS", run.staprun_options) +
          conf_words("IOTAP_MODULE_OPTIONS", run.module_options) + "IOTAP_KALLSYMS=" +
          (run.kernel_symbols ? "1" : "0") + "\nIOTAP_PLAIN=" + (run.plain_command ? "1" : "0") +
          "\nIOTAP_PROGRAM_STDOUT=" + (run.program_stdout_to_stderr ? "stderr" : "stream") +
          "\nIOTAP_TOOLS=" + (run.tools_image.empty() ? "0" : "1") +
          "\nIOTAP_NET=" + (run.ssh_port != 0 ? "1" : "0") + "\n" + reader_priority());
  for (const auto& program : run.programs) image.add_program(program);
  for (const auto& file : run.files) image.add_host_path(file);
}

void check_socket_paths() {
  // The temp dir's name has this length exactly (its pid is this process's); see qemu_command.
  const std::string dir = TempDir::pattern(kTempPrefix);
  std::string longest;
  for (const PortSocket& port : kPortSockets) {
    if (std::strlen(port.socket) > longest.size()) longest = port.socket;
  }
  const std::string socket = dir + "/" + longest;
  constexpr size_t kMaxPath = sizeof(sockaddr_un::sun_path) - 1;
  if (socket.size() > kMaxPath) {
    throw UserError("TMPDIR is too long for the guest's sockets: they would be named like '" +
                    socket + "' (" + std::to_string(socket.size()) +
                    " bytes), and a unix socket path holds at most " + std::to_string(kMaxPath) +
                    "; point TMPDIR at a shorter directory (TMPDIR=/tmp)");
  }
}

}  // namespace

bool guest_is_emulated() {
  return host_accelerator() == Accelerator::kTcg;
}

void check_vm_run(unsigned memory_mib, const std::vector<std::string>& programs,
                  const std::vector<std::string>& files) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  find_qemu();
  check_socket_paths();
  uint64_t bytes = file_size_or_zero(base_initramfs(kernel, data_paths().cache).path);
  for (const auto& program : programs) {
    bytes += file_size_or_zero(program);
    for (const auto& library : runtime_dependencies(program)) bytes += file_size_or_zero(library);
  }
  for (const auto& file : files) bytes += file_size_or_zero(file);
  check_memory(memory_mib, bytes + kModuleAllowanceBytes, true);
}

namespace {

// The run's files for the guest (guest/init.sh unpacks them at /): a cpio in the run's dir.
std::string build_run_files(const VmRun& run, const GuestKernel& kernel, const BaseImage& base,
                            const TempDir& dir) {
  const std::string path = dir / "run.cpio";
  InitramfsBuilder image(path);
  image.leave_out(base.host_files);
  write_run_files(image, run, kernel);
  image.finish();
  return read_file(path);
}

// Rounded up: poll() woken a fraction of a millisecond before the deadline would find it not
// reached yet.
int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<int64_t>(left, 0));
}

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

GuestPort listen_port(const TempDir& dir, const char* name) {
  return GuestPort::listen(dir / name);
}

std::unique_ptr<GuestLink> private_link(const TempDir& dir) {
  auto link = std::make_unique<GuestLink>(listen_port(dir, "ctl"), listen_port(dir, "in"),
                                          listen_port(dir, "out"), listen_port(dir, "err"));
  link->log_dir = dir.path();
  return link;
}

// The shared guest IOTAP_GUEST names, when it can take this run; else nullptr, with a status
// line saying why this run boots its own.
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

// One run in a guest, from qemu's start (or the connection to a shared guest) until the run is
// over and its channels are drained: the run's files going in, the channels' bytes, the control
// lines, the deadlines and the stop signals.
class GuestSession {
 public:
  GuestSession(const VmRun& run, const VmEvents& events, GuestLink& link);
  ~GuestSession();
  GuestSession(const GuestSession&) = delete;
  GuestSession& operator=(const GuestSession&) = delete;
  GuestSession(GuestSession&&) = delete;
  GuestSession& operator=(GuestSession&&) = delete;

  // Boots a private guest; a shared one runs already.
  void start(const std::vector<std::string>& qemu_argv);
  // The run's files (and whether they hold a module), for the guest as soon as it listens. The
  // start deadline and --timeout count from here: the compile may have overlapped the boot.
  void send_run_files(std::string run_files, bool with_module);
  // Serves the channels until the run is over and nothing is left to read.
  void serve();
  // The run's result, or the error that ended it.
  VmResult finish();

 private:
  void on_deadline();
  void on_stop_signal();
  void on_readable(GuestPort& port);
  void on_writable();
  void send_run_request();
  void on_control_line(std::string_view text);
  void request_stop();
  void send_stop() const;
  void kill_guest() const;
  [[nodiscard]] bool run_over() const;
  [[nodiscard]] int poll_timeout_ms() const;
  [[nodiscard]] std::string console_tail() const;

  const VmRun& run_;
  const VmEvents& events_;
  GuestLink& link_;
  std::string run_files_;
  size_t run_files_sent_ = 0;
  bool run_files_ready_ = false;
  bool with_module_ = false;
  bool run_requested_ = false;
  // The guest reads its control line: ttyS1 is open. A UART drops what comes before (a
  // private guest says "booted" once it has opened it; a shared one runs already).
  bool guest_listens_ = false;
  std::string end_marker_;
  // The kallsyms block, when asked for, opens the output port; see init.sh.
  LeadingBlock stdout_stream_;
  StreamEnd out_end_;
  StreamEnd err_end_;
  LineSplitter ctl_lines_;
  runner::GuestReport report_;
  int pidfd_ = -1;
  bool qemu_running_ = false;
  bool qemu_is_child_ = false;
  ExitStatus qemu_status_;
  // --timeout counts from the run's files being ready: a guest that hangs while booting or
  // building the stack is stopped by it too. kStartDeadline bounds that part when there is no
  // --timeout.
  Clock::time_point start_deadline_;
  std::optional<Clock::time_point> run_deadline_;
  runner::RunPhases phases_;
  std::optional<Clock::time_point> stop_requested_;
  bool interrupted_ = false;
  bool timed_out_ = false;
  // Set when the guest is killed before the run started: by a stop signal, or by a deadline.
  int stopped_by_signal_ = 0;
  std::string start_timeout_;
  std::string start_timeout_hint_;
};

GuestSession::GuestSession(const VmRun& run, const VmEvents& events, GuestLink& link)
    : run_(run),
      events_(events),
      link_(link),
      end_marker_(new_stream_end_marker()),
      stdout_stream_(
          run.kernel_symbols ? "iotap-kallsyms" : "",
          [this](std::string text) {
            if (events_.kernel_symbols) events_.kernel_symbols(std::move(text));
            // Without a module the guest waits for this before it ends the run.
            if (!with_module_) send_stop();
          },
          events.stdout_data),
      out_end_(end_marker_, [this](std::string_view bytes) { stdout_stream_.feed(bytes); }),
      err_end_(end_marker_, events.stderr_data) {
  if (link_.shared) {
    qemu_running_ = true;
    guest_listens_ = true;
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, link_.pid, 0));
  }
}

GuestSession::~GuestSession() {
  // A guest booted for a run that failed before it was served (the compile failed, or was
  // stopped) goes with it.
  if (qemu_is_child_ && qemu_running_) {
    ::kill(link_.pid, SIGKILL);
    ::waitpid(link_.pid, nullptr, 0);  // nothing to say if it was reaped already
  }
  if (pidfd_ >= 0) ::close(pidfd_);
}

void GuestSession::send_run_files(std::string run_files, bool with_module) {
  run_files_ = std::move(run_files);
  with_module_ = with_module;
  run_files_ready_ = true;
  const auto ready = Clock::now();
  if (run_.timeout.count() > 0) run_deadline_ = ready + run_.timeout;
  start_deadline_ = ready + kStartDeadline;
  send_run_request();
}

void GuestSession::start(const std::vector<std::string>& qemu_argv) {
  const int qemu_log =
      ::open((link_.log_dir + "/qemu.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  SpawnOptions options;
  options.stdout_fd = qemu_log;
  options.stderr_fd = qemu_log;
  options.new_process_group = true;
  options.die_with_parent = true;
  options.activity = "before the guest started (nothing ran)";
  events_.status("booting the guest");
  link_.pid = spawn(qemu_argv, options);
  qemu_running_ = true;
  qemu_is_child_ = true;
  ::close(qemu_log);
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, link_.pid, 0));
}

// "run BYTES NONCE" on the control line, once the guest listens there and the in port is
// connected; the files follow on the in port as it takes them (on_writable).
void GuestSession::send_run_request() {
  if (run_requested_ || !run_files_ready_ || !guest_listens_ || link_.ctl.connection_fd() < 0 ||
      link_.in.connection_fd() < 0)
    return;
  run_requested_ = true;
  ::fcntl(link_.in.connection_fd(), F_SETFL,
          ::fcntl(link_.in.connection_fd(), F_GETFL) | O_NONBLOCK);
  const std::string nonce = end_marker_.substr(end_marker_.rfind('-') + 1, 16);
  const std::string request = "run " + std::to_string(run_files_.size()) + " " + nonce + "\n";
  [[maybe_unused]] const ssize_t written = link_.ctl.send(request);
}

void GuestSession::on_writable() {
  while (run_files_sent_ < run_files_.size()) {
    const ssize_t n = link_.in.send(std::string_view(run_files_).substr(run_files_sent_));
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n < 0) break;  // the guest went; its control line or qemu's exit says why
    run_files_sent_ += static_cast<size_t>(n);
  }
  // All of it, or the guest is gone. The connection stays open until the run ends: the guest
  // reads what the port holds before it could see the end of the connection (guest/init.sh).
  run_files_sent_ = run_files_.size();
}

bool GuestSession::run_over() const {
  // A shared guest goes on: its run is over when it said so and both streams have ended.
  return link_.shared && report_.exit_status() && out_end_.ended() && err_end_.ended();
}

void GuestSession::serve() {
  while (!run_over()) {
    std::vector<pollfd> fds;
    std::vector<GuestPort*> owners;
    for (GuestPort* port : {&link_.out, &link_.ctl, &link_.err}) {
      const int fd = port->connection_fd() >= 0 ? port->connection_fd() : port->listen_fd();
      if (fd < 0) continue;
      fds.push_back({fd, POLLIN, 0});
      owners.push_back(port);
    }
    // The in port: its connection to accept, then the files to write until all are sent.
    if (link_.in.listen_fd() >= 0) {
      fds.push_back({link_.in.listen_fd(), POLLIN, 0});
      owners.push_back(&link_.in);
    } else if (run_requested_ && run_files_sent_ < run_files_.size()) {
      fds.push_back({link_.in.connection_fd(), POLLOUT, 0});
      owners.push_back(&link_.in);
    }
    const size_t ports = fds.size();
    if (qemu_running_) fds.push_back({pidfd_, POLLIN, 0});
    fds.push_back({stop_fd(), POLLIN, 0});
    if (!qemu_running_ && ports == 0) break;

    const int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
    if (ready == 0 && !qemu_running_) break;
    if (ready == 0) {
      on_deadline();
      continue;
    }
    for (size_t i = 0; i < ports; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].events == POLLOUT) {
        on_writable();
      } else {
        on_readable(*owners[i]);
      }
    }
    for (size_t i = ports; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == stop_fd()) {
        on_stop_signal();
      } else if (fds[i].fd == pidfd_) {
        if (qemu_is_child_) qemu_status_ = wait_for(link_.pid);
        qemu_running_ = false;
      }
    }
  }
}

int GuestSession::poll_timeout_ms() const {
  if (!qemu_running_) return 0;  // qemu is gone: drain what the sockets still hold, then finish
  if (stop_requested_) return milliseconds_until(*stop_requested_ + kStopGrace);
  std::optional<Clock::time_point> deadline = run_deadline_;
  if (!phases_.running() && (!deadline || start_deadline_ < *deadline)) deadline = start_deadline_;
  return deadline ? milliseconds_until(*deadline) : -1;
}

void GuestSession::kill_guest() const {
  // A shared guest too: what it was doing cannot be undone from here, and the next run that
  // finds it gone boots its own.
  ::kill(link_.pid, SIGKILL);
}

void GuestSession::on_deadline() {
  if (stop_requested_) {
    kill_guest();  // the grace period is over
  } else if (!phases_.running()) {
    // Nothing runs yet, so there is nothing to stop gently: the guest goes, and the run fails.
    // The deadline that came is the nearer one (poll_timeout_ms): asking the clock whether
    // --timeout's has passed said "after 300 s" 10 s into a run with --timeout 10, once, when
    // poll woke a fraction of a millisecond early.
    const bool by_timeout = run_deadline_ && *run_deadline_ <= start_deadline_;
    start_timeout_ = by_timeout ? "--timeout " + std::to_string(run_.timeout.count()) + " s"
                                : std::to_string(kStartDeadline.count()) + " s";
    start_timeout_hint_ = by_timeout ? "a longer --timeout gives it more time"
                                     : "it seems hung (see the console lines)";
    events_.status("the guest had not started the run after " + start_timeout_ +
                   " (it was at: " + report_.phase() + "); killing it");
    request_stop();
  } else {
    timed_out_ = true;
    events_.status("timed out after " + std::to_string(run_.timeout.count()) +
                   " s; stopping the run");
    request_stop();
  }
}

void GuestSession::on_stop_signal() {
  const int sig = take_stop();
  if (sig == 0) return;
  if (stop_requested_) {
    events_.status("killing the guest");
    kill_guest();
  } else if (phases_.running()) {
    interrupted_ = true;
    events_.status("stopping: the script's end probes run now (Ctrl-C again kills the guest)");
    request_stop();
  } else {
    // Only a module that runs has end probes: say so rather than promise their output.
    stopped_by_signal_ = sig;
    events_.status("stopping: the guest was at '" + report_.phase() +
                   "' and nothing has run, so there is no output to wait for");
    request_stop();
  }
}

void GuestSession::on_readable(GuestPort& port) {
  if (port.connection_fd() < 0) {
    port.accept_connection();
    send_run_request();
    return;
  }
  std::array<char, 65536> buffer{};
  const ssize_t n = ::read(port.connection_fd(), buffer.data(), buffer.size());
  if (n <= 0) {
    port.close_connection();
    return;
  }
  const std::string_view bytes(buffer.data(), static_cast<size_t>(n));
  if (&port == &link_.out) {
    out_end_.feed(bytes);
  } else if (&port == &link_.err) {
    err_end_.feed(bytes);
  } else {
    ctl_lines_.feed(bytes, [this](std::string_view line) {
      if (line.ends_with('\r')) line.remove_suffix(1);  // the guest's tty may add it
      on_control_line(line);
    });
  }
}

void GuestSession::on_control_line(std::string_view text) {
  const runner::ControlLine line = report_.feed(text);
  if (!guest_listens_) {
    guest_listens_ = true;
    send_run_request();
  }
  if (line.kind != runner::ControlLine::Kind::kStatus) return;
  // A shared guest's own phrase between runs, not this run's.
  if (line.text == "waiting for a run") return;
  // Not a phase to show: the traced run's end (VmResult::traced_seconds).
  if (!phases_.note(line.text)) return;
  if (line.text == "running") {
    for (const auto& device : report_.devices()) events_.device(device);
  }
  events_.status(line.text);
}

void GuestSession::request_stop() {
  if (stop_requested_) return;
  stop_requested_ = Clock::now();
  if (!phases_.running()) {
    // Nothing runs yet, so there is no end probe to wait for.
    kill_guest();
  } else if (link_.ctl.connection_fd() >= 0) {
    // A lost "stop" is covered by the grace period, after which qemu is killed.
    send_stop();
  }
}

void GuestSession::send_stop() const {
  [[maybe_unused]] const ssize_t written = link_.ctl.send("stop\n");
}

std::string GuestSession::console_tail() const {
  return "\n  last console lines:\n" + last_lines(link_.log_dir + "/console.log", 12);
}

VmResult GuestSession::finish() {
  const std::string& phase = report_.phase();
  const std::optional<int> exit_status = report_.exit_status();
  if (stopped_by_signal_ != 0)
    throw Stopped(stopped_by_signal_, "while the guest was at '" + phase + "' (nothing ran)");
  if (!start_timeout_.empty() && !exit_status) {
    throw UserError("the guest had not started the run after " + start_timeout_ +
                    " (it was at: " + phase + "); " + start_timeout_hint_ + console_tail());
  }
  if (!report_.error().empty()) throw UserError("guest: " + report_.error() + console_tail());
  out_end_.finish();
  err_end_.finish();
  stdout_stream_.finish();

  VmResult result;
  result.interrupted = interrupted_;
  result.timed_out = timed_out_;
  result.devices = report_.devices();
  result.kernel_stats = report_.kernel_stats();
  result.traced_seconds = phases_.traced_seconds();
  if (exit_status) {
    result.exit_status = *exit_status;
  } else if (interrupted_) {
    result.exit_status = 128 + stop_signal();
  } else {
    // qemu ended (killed, the guest's kernel panicked) mid-run: the target went away, as an ssh
    // host that drops its connection does; not the status of bad input, where nothing ran.
    throw TargetLost(std::string("the guest stopped before the run finished") +
                     (qemu_status_.ok() ? ""
                                        : " (qemu exited with status " +
                                              std::to_string(qemu_status_.code) + ")") +
                     kernel_failure(link_.log_dir + "/console.log") + "\n  qemu said:\n" +
                     last_lines(link_.log_dir + "/qemu.log", 6) + "  last console lines:\n" +
                     last_lines(link_.log_dir + "/console.log", 12));
  }
  return result;
}

}  // namespace

VmResult run_in_vm(const VmRun& run, const VmEvents& events) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  const std::string qemu = find_qemu();
  check_socket_paths();

  events.status("preparing the guest image");
  TempDir dir(kTempPrefix);
  const BaseImage base = base_initramfs(kernel, data_paths().cache);
  const std::string& initrd = base.path;
  std::unique_ptr<GuestLink> link = shared_link(run, initrd, events);
  const bool shared = link != nullptr;
  if (!shared) link = private_link(dir);
  GuestSession session(run, events, *link);
  if (!shared) {
    QemuGuest guest;
    guest.qemu = qemu;
    guest.kernel = kernel;
    guest.initrd = initrd;
    guest.dir = dir.path();
    guest.memory_mib = run.memory_mib;
    guest.cpus = run.cpus;
    if (run.stack) guest.virtio_disks = run.stack->virtio_disks;
    guest.tools_image = run.tools_image;
    guest.ssh_port = run.ssh_port;
    session.start(qemu_command(guest));
  }
  // From here a failure (a compile error, a stop signal) takes the booting guest with it.
  VmRun with_module = run;
  if (run.build_module) with_module.module_path = run.build_module();
  std::string run_files = build_run_files(with_module, kernel, base, dir);
  // The guest holds its initramfs and, unpacked, the run's files, with a copy of their cpio.
  if (!shared) check_memory(run.memory_mib, file_size_or_zero(initrd) + run_files.size(), false);
  session.send_run_files(std::move(run_files), !with_module.module_path.empty());
  session.serve();
  return session.finish();
}

}  // namespace iotap::guest
