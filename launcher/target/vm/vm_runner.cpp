#include "target/vm/vm_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotap/config.h"
#include "target/vm/elf_dependencies.h"
#include "target/vm/guest_channels.h"
#include "target/vm/guest_stack.h"
#include "target/vm/initramfs.h"
#include "target/vm/kernel.h"
#include "target/vm/leading_block.h"
#include "util/error.h"
#include "util/files.h"
#include "util/lines.h"
#include "util/process.h"
#include "util/quoting.h"
#include "util/stop_signal.h"
#include "util/temp_dir.h"

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

void concatenate(const std::vector<std::string>& parts, const std::string& into) {
  std::ofstream out(into, std::ios::binary | std::ios::trunc);
  for (const auto& part : parts) {
    std::ifstream in(part, std::ios::binary);
    out << in.rdbuf();
  }
  if (!out) throw UserError("cannot write '" + into + "' (disk full?)");
}

bool kvm_usable() {
  const int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void write_run_files(InitramfsBuilder& image, const VmRun& run, const GuestKernel& kernel) {
  image.add_directory("/iotap");
  image.add_file("/iotap/iotap.ko", run.module_path.empty() ? "" : read_file(run.module_path));
  std::string modules;
  std::string stack_script;
  std::vector<std::string> module_names(kChannelModules.begin(), kChannelModules.end());
  if (run.stack)
    module_names.insert(module_names.end(), run.stack->modules.begin(), run.stack->modules.end());
  {
    for (const auto& ko : kernel.module_load_order(module_names)) {
      modules += ko;
      if (fs::path(ko).filename() == "brd.ko") {
        for (const auto& option : run.stack->brd_options) modules += " " + option;
      }
      modules += "\n";
    }
    if (run.stack) stack_script = run.stack->guest_script;
  }
  image.add_file("/iotap/modules", modules);
  image.add_file("/iotap/stack.sh", stack_script);
  image.add_file("/iotap/command", quoted_command(run.command));
  image.add_file("/iotap/run.conf", std::string("IOTAP_STAPRUN_OPTIONS=\nIOTAP_KALLSYMS=") +
                                        (run.kernel_symbols ? "1" : "0") + "\n");
  for (const auto& program : run.programs) image.add_program(program);
}

std::vector<std::string> qemu_command(const std::string& qemu, const GuestKernel& kernel,
                                      const VmRun& run, const TempDir& dir,
                                      const std::string& initrd) {
  const bool kvm = kvm_usable();
  std::vector<std::string> argv{
      qemu, "-machine", "q35", "-accel", kvm ? "kvm" : "tcg", "-cpu", kvm ? "host" : "max", "-smp",
      std::to_string(run.cpus), "-m", std::to_string(run.memory_mib), "-nodefaults",
      "-no-user-config", "-display", "none", "-no-reboot", "-kernel", kernel.image, "-initrd",
      initrd,
      // no_timer_check: on a loaded host, software emulation can
      // miss the IO-APIC timer check's deadline and panic the boot.
      "-append", "console=ttyS0 quiet panic=-1 no_timer_check", "-serial",
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
  return argv;
}

std::string find_qemu() {
  const std::string qemu = find_in_path("qemu-system-x86_64");
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

void check_vm_run(unsigned memory_mib, const std::vector<std::string>& programs) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  find_qemu();
  check_socket_paths();
  uint64_t bytes = file_size_or_zero(base_initramfs(kernel, config::kCacheDir));
  for (const auto& program : programs) {
    bytes += file_size_or_zero(program);
    for (const auto& library : runtime_dependencies(program)) bytes += file_size_or_zero(library);
  }
  check_memory(memory_mib, bytes + kModuleAllowanceBytes, true);
}

VmResult run_in_vm(const VmRun& run, const VmEvents& events) {
  const GuestKernel kernel = GuestKernel::find(config::kGuestKernel);
  const std::string qemu = find_qemu();
  check_socket_paths();

  events.status("preparing the guest image");
  const std::string base = base_initramfs(kernel, config::kCacheDir);
  TempDir dir(kTempPrefix);
  {
    InitramfsBuilder image(dir / "run.cpio");
    write_run_files(image, run, kernel);
    image.finish();
  }
  const std::string initrd = dir / "initrd.cpio";
  concatenate({base, dir / "run.cpio"}, initrd);
  check_memory(run.memory_mib, file_size_or_zero(initrd), false);

  ListeningSocket out(dir / "out");
  ListeningSocket ctl(dir / "ctl");
  ListeningSocket err(dir / "err");
  const int qemu_log =
      ::open((dir / "qemu.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  SpawnOptions options;
  options.stdout_fd = qemu_log;
  options.stderr_fd = qemu_log;
  options.new_process_group = true;
  options.die_with_parent = true;
  options.activity = "before the guest started (nothing ran)";
  events.status("booting the guest");
  const auto started = Clock::now();
  const pid_t pid = spawn(qemu_command(qemu, kernel, run, dir, initrd), options);
  ::close(qemu_log);
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));

  VmResult result;
  std::vector<GuestNode> nodes;  // the stack as the guest reports it, until it is complete
  bool got_exit = false;
  // --timeout counts from qemu's start: a guest that hangs while booting or building the stack
  // is stopped by it too. kStartDeadline bounds that part when there is no --timeout.
  std::optional<Clock::time_point> running_since;
  std::optional<Clock::time_point> run_deadline;
  if (run.timeout.count() > 0) run_deadline = started + run.timeout;
  const auto start_deadline = started + kStartDeadline;
  // What the guest was doing, by its last status line: messages name it.
  std::string phase = "booting";
  // Set when the guest is killed before the run started: by a stop signal, or by a deadline.
  int stopped_by_signal = 0;
  std::string start_timeout;
  std::string start_timeout_hint;
  std::string guest_error;
  LineSplitter ctl_lines;
  // The kallsyms block, when asked for, opens the output port; see init.sh.
  LeadingBlock stdout_stream(
      run.kernel_symbols ? "iotap-kallsyms" : "",
      [&](std::string text) {
        if (events.kernel_symbols) events.kernel_symbols(std::move(text));
        // Without a module the guest waits for this before powering off.
        if (run.module_path.empty()) {
          [[maybe_unused]] const ssize_t written = ::write(ctl.connection_fd(), "stop\n", 5);
        }
      },
      events.stdout_data);
  const auto on_ctl_line = [&](std::string_view line) {
    if (line.ends_with('\r')) line.remove_suffix(1);
    std::istringstream words{std::string(line)};
    std::string kind;
    words >> kind;
    if (kind == "status") {
      std::string phrase;
      std::getline(words >> std::ws, phrase);
      if (phrase == "running") {
        running_since = Clock::now();
        result.devices = stack_from_nodes(nodes);
        for (const auto& device : result.devices) events.device(device);
      }
      phase = phrase;
      events.status(phrase);
    } else if (kind == "node") {
      GuestNode node;
      std::string numbers;
      words >> node.id >> node.parent >> node.device.name >> numbers >> node.device.spec;
      const auto colon = numbers.find(':');
      if (colon != std::string::npos) {
        // A malformed number leaves 0: the guest's lines are ours, but never worth a crash.
        uint32_t major = 0;
        uint32_t minor = 0;
        std::from_chars(numbers.data(), numbers.data() + colon, major);
        std::from_chars(numbers.data() + colon + 1, numbers.data() + numbers.size(), minor);
        node.device.dev = make_dev(major, minor);
      }
      nodes.push_back(std::move(node));
    } else if (kind == "dmclear") {
      // A dm device's table was replaced after it was reported (error targets, see init.sh).
      std::string name;
      words >> name;
      for (auto& node : nodes) {
        if (node.device.name == name) node.device.dm_table.clear();
      }
    } else if (kind == "md" || kind == "dm") {
      // Details follow their node line; they complete the device reported last under that name.
      std::string name;
      words >> name;
      for (auto& node : nodes) {
        StackDevice& device = node.device;
        if (device.name != name) continue;
        if (kind == "md") {
          std::string member;
          words >> device.md_level >> device.chunk_bytes;
          while (words >> member) {
            const auto colon = member.rfind(':');
            uint64_t offset = 0;
            if (colon != std::string::npos) {
              std::from_chars(member.data() + colon + 1, member.data() + member.size(), offset);
            }
            device.md_members.emplace_back(member.substr(0, colon), offset);
          }
        } else {
          std::string table;
          std::getline(words >> std::ws, table);
          device.dm_table.push_back(table);
        }
      }
    } else if (kind == "exit") {
      words >> result.exit_status;
      got_exit = true;
    } else if (kind == "error") {
      std::getline(words >> std::ws, guest_error);
    }
  };

  std::optional<Clock::time_point> stop_requested;
  bool qemu_running = true;
  ExitStatus qemu_status;
  const auto request_stop = [&] {
    if (stop_requested) return;
    stop_requested = Clock::now();
    if (!running_since) {
      // Nothing runs yet, so there is no end probe to wait for.
      ::kill(pid, SIGKILL);
    } else if (ctl.connection_fd() >= 0) {
      // A lost "stop" is covered by the grace period, after which qemu is killed.
      [[maybe_unused]] const ssize_t written = ::write(ctl.connection_fd(), "stop\n", 5);
    }
  };

  while (true) {
    std::vector<pollfd> fds;
    std::vector<ListeningSocket*> owners;
    for (ListeningSocket* socket : {&out, &ctl, &err}) {
      const int fd = socket->connection_fd() >= 0 ? socket->connection_fd() : socket->listen_fd();
      if (fd < 0) continue;
      fds.push_back({fd, POLLIN, 0});
      owners.push_back(socket);
    }
    const size_t sockets = fds.size();
    if (qemu_running) fds.push_back({pidfd, POLLIN, 0});
    fds.push_back({stop_fd(), POLLIN, 0});
    if (!qemu_running && sockets == 0) break;

    int timeout_ms = -1;
    const auto until = [](Clock::time_point deadline) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      return static_cast<int>(std::max<int64_t>(left, 0));
    };
    if (!qemu_running) {
      timeout_ms = 0;  // qemu is gone: drain what the sockets still hold, then finish
    } else if (stop_requested) {
      timeout_ms = until(*stop_requested + kStopGrace);
    } else {
      std::optional<Clock::time_point> deadline = run_deadline;
      if (!running_since && (!deadline || start_deadline < *deadline)) deadline = start_deadline;
      if (deadline) timeout_ms = until(*deadline);
    }
    const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "poll");
    if (ready == 0 && !qemu_running) break;
    if (ready == 0) {
      if (!stop_requested && !running_since) {
        // Nothing runs yet, so there is nothing to stop gently: the guest goes, and the run fails.
        const bool by_timeout = run_deadline && Clock::now() >= *run_deadline;
        start_timeout = by_timeout ? "--timeout " + std::to_string(run.timeout.count()) + " s"
                                   : std::to_string(kStartDeadline.count()) + " s";
        start_timeout_hint = by_timeout ? "a longer --timeout gives it more time"
                                        : "it seems hung (see the console lines)";
        events.status("the guest had not started the run after " + start_timeout +
                      " (it was at: " + phase + "); killing it");
        request_stop();
      } else if (!stop_requested) {
        result.timed_out = true;
        events.status("timed out after " + std::to_string(run.timeout.count()) +
                      " s; stopping the run");
        request_stop();
      } else {
        ::kill(pid, SIGKILL);
      }
      continue;
    }
    for (size_t i = 0; i < sockets; ++i) {
      if (fds[i].revents == 0) continue;
      ListeningSocket& socket = *owners[i];
      if (socket.connection_fd() < 0) {
        socket.accept_connection();
        continue;
      }
      std::array<char, 65536> buffer{};
      const ssize_t n = ::read(socket.connection_fd(), buffer.data(), buffer.size());
      if (n <= 0) {
        socket.close_connection();
        continue;
      }
      const std::string_view bytes(buffer.data(), static_cast<size_t>(n));
      if (&socket == &out) {
        stdout_stream.feed(bytes);
      } else if (&socket == &err) {
        events.stderr_data(bytes);
      } else {
        ctl_lines.feed(bytes, on_ctl_line);
      }
    }
    for (size_t i = sockets; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == stop_fd()) {
        const int sig = take_stop();
        if (sig == 0) continue;
        if (stop_requested) {
          events.status("killing the guest");
          ::kill(pid, SIGKILL);
        } else if (running_since) {
          result.interrupted = true;
          events.status("stopping: the script's end probes run now (Ctrl-C again kills the guest)");
          request_stop();
        } else {
          // Only a module that runs has end probes: say so rather than promise their output.
          stopped_by_signal = sig;
          events.status("stopping: the guest was at '" + phase +
                        "' and nothing has run, so there is no output to wait for");
          request_stop();
        }
      } else if (fds[i].fd == pidfd) {
        qemu_status = wait_for(pid);
        qemu_running = false;
      }
    }
  }
  if (pidfd >= 0) ::close(pidfd);

  if (stopped_by_signal != 0)
    throw Stopped(stopped_by_signal, "while the guest was at '" + phase + "' (nothing ran)");
  if (!start_timeout.empty() && !got_exit) {
    throw UserError("the guest had not started the run after " + start_timeout +
                    " (it was at: " + phase + "); " + start_timeout_hint +
                    "\n  last console lines:\n" + last_lines(dir / "console.log", 12));
  }

  if (!guest_error.empty())
    throw UserError("guest: " + guest_error + "\n  last console lines:\n" +
                    last_lines(dir / "console.log", 12));
  stdout_stream.finish();
  result.devices = stack_from_nodes(nodes);
  if (!got_exit && result.interrupted) {
    result.exit_status = 128 + stop_signal();
    return result;
  }
  if (!got_exit) {
    const std::string qemu_errors = last_lines(dir / "qemu.log", 6);
    throw UserError(std::string("the guest stopped before the run finished") +
                    (qemu_status.ok()
                         ? ""
                         : " (qemu exited with status " + std::to_string(qemu_status.code) + ")") +
                    "\n  qemu said:\n" + qemu_errors + "  last console lines:\n" +
                    last_lines(dir / "console.log", 12));
  }
  return result;
}

}  // namespace iotap::vm
