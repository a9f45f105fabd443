#include "iotap/target/vm_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "iotap/config.h"
#include "iotap/target/elf_dependencies.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"
#include "vm/accelerator.h"
#include "vm/control_protocol.h"
#include "vm/guest_channels.h"
#include "vm/initramfs.h"
#include "vm/kernel.h"
#include "vm/leading_block.h"

namespace iotap::vm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// What the guest loads before anything else: the virtio-serial ports the run's output uses.
constexpr std::array<const char*, 2> kChannelModules{"virtio_pci", "virtio_console"};

// A guest that was asked to stop but has not powered off by then is killed.
constexpr auto kStopGrace = std::chrono::seconds(20);

// A guest that has not started the run by then (boot, modules, stack) is taken for hung and
// killed, with or without --timeout. Under TCG on a loaded host, boot and stack take 5-30 s.
constexpr auto kStartDeadline = std::chrono::seconds(300);

// The unix sockets iotap listens on in its temp dir, one per guest channel (qemu_command).
constexpr std::array<const char*, 3> kSocketNames{"out", "ctl", "err"};
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

std::string last_lines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& kept : lines) out += "    " + kept + "\n";
  return out;
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

void concatenate(const std::vector<std::string>& parts, const std::string& into) {
  std::ofstream out(into, std::ios::binary | std::ios::trunc);
  for (const auto& part : parts) {
    std::ifstream in(part, std::ios::binary);
    out << in.rdbuf();
  }
  if (!out) throw UserError("cannot write '" + into + "' (disk full?)");
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
  std::vector<std::string> module_names(kChannelModules.begin(), kChannelModules.end());
  if (run.stack)
    module_names.insert(module_names.end(), run.stack->modules.begin(), run.stack->modules.end());
  if (!run.tools_image.empty()) module_names.emplace_back("virtio_blk");
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
          "\nIOTAP_TOOLS=" + (run.tools_image.empty() ? "0" : "1") + "\n" + reader_priority());
  for (const auto& program : run.programs) image.add_program(program);
  for (const auto& file : run.files) image.add_host_path(file);
}

std::vector<std::string> qemu_command(const std::string& qemu, const GuestKernel& kernel,
                                      const VmRun& run, const TempDir& dir,
                                      const std::string& initrd) {
  const bool kvm = host_accelerator() == Accelerator::kKvm;
  std::vector<std::string> argv{
      qemu, "-machine", "q35", "-accel", kvm ? "kvm" : "tcg", "-cpu", kvm ? "host" : "max", "-smp",
      std::to_string(run.cpus), "-m", std::to_string(run.memory_mib), "-nodefaults",
      "-no-user-config", "-display", "none", "-no-reboot", "-kernel", kernel.image, "-initrd",
      initrd,
      // no_timer_check: on a loaded host, software emulation can
      // miss the IO-APIC timer check's deadline and panic the boot.
      // softlockup_panic: a CPU stuck in the kernel for 20 s (seen once: both CPUs in stapio,
      // 300 s, until the test's timeout) panics the guest, and the run fails with the console's
      // last lines, instead of hanging until someone kills it.
      "-append", "console=ttyS0 quiet panic=-1 no_timer_check softlockup_panic=1", "-serial",
      "file:" + (dir / "console.log"), "-chardev", "socket,id=ctl,path=" + (dir / "ctl"), "-serial",
      "chardev:ctl", "-device", "virtio-serial-pci,id=vser"};
  // The run's output goes over virtio-serial: a UART is far too slow for event streams.
  int port_number = 1;
  for (const char* port : {"out", "err"}) {
    argv.insert(argv.end(),
                {"-chardev", std::string("socket,id=") + port + ",path=" + (dir / port), "-device",
                 "virtserialport,bus=vser.0,nr=" + std::to_string(port_number++) +
                     ",chardev=" + port + ",name=org.iotap." + port});
  }
  if (run.stack) {
    for (const auto& disk : run.stack->virtio_disks) {
      const std::string image = dir / (disk.drive_id + ".img");
      { std::ofstream create(image, std::ios::binary); }
      fs::resize_file(image, disk.size_bytes);  // sparse: costs no disk until written
      std::string drive = "file=" + image + ",if=none,id=" + disk.drive_id + ",format=raw";
      if (disk.iops != 0) drive += ",throttling.iops-total=" + std::to_string(disk.iops);
      if (disk.bps != 0) drive += ",throttling.bps-total=" + std::to_string(disk.bps);
      argv.insert(argv.end(),
                  {"-drive", drive, "-device", "virtio-blk-pci,drive=" + disk.drive_id});
    }
  }
  if (!run.tools_image.empty()) {
    argv.insert(argv.end(),
                {"-drive", "file=" + run.tools_image + ",if=none,id=tools,format=raw,readonly=on",
                 "-device", "virtio-blk-pci,drive=tools,serial=iotap-tools"});
  }
  return argv;
}

std::string find_qemu() {
  std::string qemu = find_in_path("qemu-system-x86_64");
  if (qemu.empty())
    throw UserError(
        "--target vm needs qemu-system-x86_64 (apt-get install qemu-system-x86; ./setup.sh does)");
  return qemu;
}

void check_socket_paths() {
  // The temp dir's name has this length exactly (its pid is this process's); see qemu_command.
  const std::string dir = TempDir::pattern(kTempPrefix);
  std::string longest;
  for (const char* name : kSocketNames) {
    if (std::strlen(name) > longest.size()) longest = name;
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
  uint64_t bytes = file_size_or_zero(base_initramfs(kernel, data_paths().cache));
  for (const auto& program : programs) {
    bytes += file_size_or_zero(program);
    for (const auto& library : runtime_dependencies(program)) bytes += file_size_or_zero(library);
  }
  for (const auto& file : files) bytes += file_size_or_zero(file);
  check_memory(memory_mib, bytes + kModuleAllowanceBytes, true);
}

namespace {

std::string console_tail(const TempDir& dir) {
  return "\n  last console lines:\n" + last_lines(dir / "console.log", 12);
}

// The guest image for this run: the cached base (kernel modules, busybox, staprun) and the
// run's own files, concatenated as the kernel accepts them.
std::string build_initrd(const VmRun& run, const GuestKernel& kernel, const TempDir& dir) {
  const std::string base = base_initramfs(kernel, data_paths().cache);
  {
    InitramfsBuilder image(dir / "run.cpio");
    write_run_files(image, run, kernel);
    image.finish();
  }
  std::string initrd = dir / "initrd.cpio";
  concatenate({base, dir / "run.cpio"}, initrd);
  check_memory(run.memory_mib, file_size_or_zero(initrd), false);
  return initrd;
}

int milliseconds_until(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<int64_t>(left, 0));
}

// One booted guest, from qemu's start until it has exited and its channels are drained: the
// channels' bytes, the control lines, the deadlines and the stop signals.
class GuestSession {
 public:
  GuestSession(const VmRun& run, const VmEvents& events, const TempDir& dir);
  ~GuestSession();
  GuestSession(const GuestSession&) = delete;
  GuestSession& operator=(const GuestSession&) = delete;
  GuestSession(GuestSession&&) = delete;
  GuestSession& operator=(GuestSession&&) = delete;

  void start(const std::vector<std::string>& qemu_argv);
  // Serves the channels until qemu has exited and nothing is left to read.
  void serve();
  // The run's result, or the error that ended it.
  VmResult finish();

 private:
  void on_deadline();
  void on_stop_signal();
  void on_readable(ListeningSocket& socket);
  void on_control_line(std::string_view text);
  void request_stop();
  void send_stop();
  [[nodiscard]] int poll_timeout_ms() const;

  const VmRun& run_;
  const VmEvents& events_;
  const TempDir& dir_;
  ListeningSocket out_;
  ListeningSocket ctl_;
  ListeningSocket err_;
  // The kallsyms block, when asked for, opens the output port; see init.sh.
  LeadingBlock stdout_stream_;
  LineSplitter ctl_lines_;
  GuestReport report_;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool qemu_running_ = false;
  ExitStatus qemu_status_;
  // --timeout counts from qemu's start: a guest that hangs while booting or building the stack
  // is stopped by it too. kStartDeadline bounds that part when there is no --timeout.
  Clock::time_point start_deadline_;
  std::optional<Clock::time_point> run_deadline_;
  std::optional<Clock::time_point> running_since_;
  std::optional<Clock::time_point> stop_requested_;
  bool interrupted_ = false;
  bool timed_out_ = false;
  // Set when the guest is killed before the run started: by a stop signal, or by a deadline.
  int stopped_by_signal_ = 0;
  std::string start_timeout_;
  std::string start_timeout_hint_;
};

GuestSession::GuestSession(const VmRun& run, const VmEvents& events, const TempDir& dir)
    : run_(run),
      events_(events),
      dir_(dir),
      out_(dir / "out"),
      ctl_(dir / "ctl"),
      err_(dir / "err"),
      stdout_stream_(
          run.kernel_symbols ? "iotap-kallsyms" : "",
          [this](std::string text) {
            if (events_.kernel_symbols) events_.kernel_symbols(std::move(text));
            // Without a module the guest waits for this before powering off.
            if (run_.module_path.empty()) send_stop();
          },
          events.stdout_data) {}

GuestSession::~GuestSession() {
  if (pidfd_ >= 0) ::close(pidfd_);
}

void GuestSession::start(const std::vector<std::string>& qemu_argv) {
  const int qemu_log =
      ::open((dir_ / "qemu.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  SpawnOptions options;
  options.stdout_fd = qemu_log;
  options.stderr_fd = qemu_log;
  options.new_process_group = true;
  options.die_with_parent = true;
  options.activity = "before the guest started (nothing ran)";
  events_.status("booting the guest");
  const auto started = Clock::now();
  if (run_.timeout.count() > 0) run_deadline_ = started + run_.timeout;
  start_deadline_ = started + kStartDeadline;
  pid_ = spawn(qemu_argv, options);
  qemu_running_ = true;
  ::close(qemu_log);
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

void GuestSession::serve() {
  while (true) {
    std::vector<pollfd> fds;
    std::vector<ListeningSocket*> owners;
    for (ListeningSocket* socket : {&out_, &ctl_, &err_}) {
      const int fd = socket->connection_fd() >= 0 ? socket->connection_fd() : socket->listen_fd();
      if (fd < 0) continue;
      fds.push_back({fd, POLLIN, 0});
      owners.push_back(socket);
    }
    const size_t sockets = fds.size();
    if (qemu_running_) fds.push_back({pidfd_, POLLIN, 0});
    fds.push_back({stop_fd(), POLLIN, 0});
    if (!qemu_running_ && sockets == 0) break;

    const int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
    if (ready == 0 && !qemu_running_) break;
    if (ready == 0) {
      on_deadline();
      continue;
    }
    for (size_t i = 0; i < sockets; ++i) {
      if (fds[i].revents != 0) on_readable(*owners[i]);
    }
    for (size_t i = sockets; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == stop_fd()) {
        on_stop_signal();
      } else if (fds[i].fd == pidfd_) {
        qemu_status_ = wait_for(pid_);
        qemu_running_ = false;
      }
    }
  }
}

int GuestSession::poll_timeout_ms() const {
  if (!qemu_running_) return 0;  // qemu is gone: drain what the sockets still hold, then finish
  if (stop_requested_) return milliseconds_until(*stop_requested_ + kStopGrace);
  std::optional<Clock::time_point> deadline = run_deadline_;
  if (!running_since_ && (!deadline || start_deadline_ < *deadline)) deadline = start_deadline_;
  return deadline ? milliseconds_until(*deadline) : -1;
}

void GuestSession::on_deadline() {
  if (stop_requested_) {
    ::kill(pid_, SIGKILL);  // the grace period is over
  } else if (!running_since_) {
    // Nothing runs yet, so there is nothing to stop gently: the guest goes, and the run fails.
    const bool by_timeout = run_deadline_ && Clock::now() >= *run_deadline_;
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
    ::kill(pid_, SIGKILL);
  } else if (running_since_) {
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

void GuestSession::on_readable(ListeningSocket& socket) {
  if (socket.connection_fd() < 0) {
    socket.accept_connection();
    return;
  }
  std::array<char, 65536> buffer{};
  const ssize_t n = ::read(socket.connection_fd(), buffer.data(), buffer.size());
  if (n <= 0) {
    socket.close_connection();
    return;
  }
  const std::string_view bytes(buffer.data(), static_cast<size_t>(n));
  if (&socket == &out_) {
    stdout_stream_.feed(bytes);
  } else if (&socket == &err_) {
    events_.stderr_data(bytes);
  } else {
    ctl_lines_.feed(bytes, [this](std::string_view line) {
      if (line.ends_with('\r')) line.remove_suffix(1);  // the guest's tty may add it
      on_control_line(line);
    });
  }
}

void GuestSession::on_control_line(std::string_view text) {
  const ControlLine line = report_.feed(text);
  if (line.kind != ControlLine::Kind::kStatus) return;
  if (line.text == "running") {
    running_since_ = Clock::now();
    for (const auto& device : report_.devices()) events_.device(device);
  }
  events_.status(line.text);
}

void GuestSession::request_stop() {
  if (stop_requested_) return;
  stop_requested_ = Clock::now();
  if (!running_since_) {
    // Nothing runs yet, so there is no end probe to wait for.
    ::kill(pid_, SIGKILL);
  } else if (ctl_.connection_fd() >= 0) {
    // A lost "stop" is covered by the grace period, after which qemu is killed.
    send_stop();
  }
}

void GuestSession::send_stop() {
  [[maybe_unused]] const ssize_t written = ::write(ctl_.connection_fd(), "stop\n", 5);
}

VmResult GuestSession::finish() {
  const std::string& phase = report_.phase();
  const std::optional<int> exit_status = report_.exit_status();
  if (stopped_by_signal_ != 0)
    throw Stopped(stopped_by_signal_, "while the guest was at '" + phase + "' (nothing ran)");
  if (!start_timeout_.empty() && !exit_status) {
    throw UserError("the guest had not started the run after " + start_timeout_ +
                    " (it was at: " + phase + "); " + start_timeout_hint_ + console_tail(dir_));
  }
  if (!report_.error().empty()) throw UserError("guest: " + report_.error() + console_tail(dir_));
  stdout_stream_.finish();

  VmResult result;
  result.interrupted = interrupted_;
  result.timed_out = timed_out_;
  result.devices = report_.devices();
  result.kernel_stats = report_.kernel_stats();
  if (exit_status) {
    result.exit_status = *exit_status;
  } else if (interrupted_) {
    result.exit_status = 128 + stop_signal();
  } else {
    throw UserError(std::string("the guest stopped before the run finished") +
                    (qemu_status_.ok()
                         ? ""
                         : " (qemu exited with status " + std::to_string(qemu_status_.code) + ")") +
                    kernel_failure(dir_ / "console.log") + "\n  qemu said:\n" +
                    last_lines(dir_ / "qemu.log", 6) + "  last console lines:\n" +
                    last_lines(dir_ / "console.log", 12));
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
  const std::string initrd = build_initrd(run, kernel, dir);
  GuestSession session(run, events, dir);
  session.start(qemu_command(qemu, kernel, run, dir, initrd));
  session.serve();
  return session.finish();
}

}  // namespace iotap::vm
