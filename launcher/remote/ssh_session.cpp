#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "agent_command.h"
#include "iotap/remote/ssh_target.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/error.h"
#include "iotap/util/lines.h"
#include "iotap/util/printable.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/stop_signal.h"

namespace iotap::remote {

namespace {

using Clock = std::chrono::steady_clock;

// The module into a private directory on the host, under its file's name (the name it loads
// as: staprun takes it from the file); returns the directory.
std::string upload_module(const SshHost& host, const HostFacts& facts, const std::string& module) {
  const int fd = ::open(module.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + module);
  const SpawnOptions options = doing("while copying the module to " + host.name(), fd);
  Captured captured;
  try {
    const std::string size = std::to_string(std::filesystem::file_size(module));
    const std::string name = std::filesystem::path(module).stem().string();
    captured = capture(agent_command(host, {"upload", size, name}, needs_sudo(facts)), options);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!captured.status.ok()) throw UserError(connection_failure(host, captured));
  std::string dir = last_line_of(captured.out);
  if (!dir.starts_with("/tmp/iotap-ssh."))
    throw UserError(host.name() + ": the agent did not say where it put the module ('" + dir +
                    "')");
  return dir;
}

// The agent's "run" request: DIR STDOUT MODE TARGET COUNT, staprun's options, the module's.
std::vector<std::string> run_words(const SshRun& run, const std::string& dir) {
  std::vector<std::string> words{"run", dir, run.program_stdout_to_stderr ? "stderr" : "stream"};
  if (!run.command.empty()) {
    words.insert(words.end(), {"c", quoted_command(run.command)});
  } else if (run.pid) {
    words.insert(words.end(), {"x", std::to_string(*run.pid)});
  } else if (!run.postgres_client.empty()) {
    words.insert(words.end(), {"pg", run.postgres_client});
  } else {
    words.insert(words.end(), {"-", "-"});
  }
  words.push_back(std::to_string(run.staprun_options.size()));
  words.insert(words.end(), run.staprun_options.begin(), run.staprun_options.end());
  words.insert(words.end(), run.module_options.begin(), run.module_options.end());
  return words;
}

// One run's connection: ssh's three pipes, the control lines taken out of its stderr, the stop
// requests passed on.
class SshSession {
 public:
  SshSession(const SshHost& host, const SshRun& run, const SshEvents& events)
      : host_(host), run_(run), events_(events) {}

  SshResult run(const HostFacts& facts, const std::string& dir);

 private:
  // Reads the connection's stdout and stderr to their end, passing stop signals and the timeout
  // on as "stop".
  void stream(int out_fd, int err_fd);
  void on_stderr_line(std::string_view line);
  void request_stop();
  void write_stdin(std::string_view text);
  [[noreturn]] void fail_without_exit(const ExitStatus& ssh_status) const;

  const SshHost& host_;
  const SshRun& run_;
  const SshEvents& events_;
  runner::GuestReport report_;
  LineSplitter stderr_lines_;
  std::string ssh_last_line_;
  int stdin_fd_ = -1;
  pid_t pid_ = -1;
  runner::RunPhases phases_;
  std::optional<Clock::time_point> stop_sent_;
  bool interrupted_ = false;
  bool timed_out_ = false;
  bool killed_ = false;
};

void SshSession::on_stderr_line(std::string_view line) {
  if (!line.starts_with("iotap-ctl ")) {
    ssh_last_line_ = line;
    // ssh's own word on a dropped connection: the error that follows quotes it.
    if (line.starts_with("Connection to ") && line.ends_with(" closed by remote host.")) return;
    std::string with_newline(line);
    with_newline += '\n';
    events_.stderr_data(with_newline);
    return;
  }
  const runner::ControlLine control = report_.feed(line.substr(10));
  if (control.kind == runner::ControlLine::Kind::kPgStat && control.text == "before")
    events_.status(runner::kPostgresCountersRead);
  if (control.kind != runner::ControlLine::Kind::kStatus) return;
  if (!phases_.note(control.text)) return;
  if (control.text == "running") {
    for (const auto& device : report_.devices()) events_.device(device);
  }
  events_.status(control.text);
}

void SshSession::write_stdin(std::string_view text) {
  if (stdin_fd_ < 0) return;
  // The host may be gone: a failed send is the connection's end, seen on its pipes (a socket,
  // not a pipe, so that it is EPIPE and never a SIGPIPE that would end iotap without a word).
  if (::send(stdin_fd_, text.data(), text.size(), MSG_NOSIGNAL) < 0) {
    ::close(stdin_fd_);
    stdin_fd_ = -1;
  }
}

void SshSession::request_stop() {
  if (!stop_sent_) {
    stop_sent_ = Clock::now();
    events_.status("stopping: the script's end probes run on " + host_.name() +
                   " now (Ctrl-C again drops the connection, which stops it too)");
    write_stdin("stop\n");
    return;
  }
  if (!killed_) {
    killed_ = true;
    ::kill(pid_, SIGTERM);
  }
}

void SshSession::stream(int out_fd, int err_fd) {
  // A stop signal that came while compiling or copying is a stop now.
  if (stop_signal() != 0) request_stop();
  const auto start = Clock::now();
  std::array<pollfd, 3> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0},
                            pollfd{stop_fd(), POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    const int ready = ::poll(fds.data(), fds.size(), 1000);
    const auto now = Clock::now();
    if (run_.timeout.count() > 0 && !stop_sent_ && now - start >= run_.timeout) {
      timed_out_ = true;
      events_.status("timed out after " + std::to_string(run_.timeout.count()) + " s");
      request_stop();
    }
    // The end probes get 30 s; then the connection goes, which stops staprun there too.
    if (stop_sent_ && !killed_ && now - *stop_sent_ > std::chrono::seconds(30)) request_stop();
    if (ready <= 0) continue;
    if (fds[2].revents != 0 && take_stop() != 0) {
      interrupted_ = true;
      request_stop();
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 65536> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        const std::string_view bytes(buffer.data(), static_cast<size_t>(n));
        if (i == 0) {
          events_.stdout_data(bytes);
        } else {
          stderr_lines_.feed(bytes, [this](std::string_view line) { on_stderr_line(line); });
        }
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // closed by the caller
        --open_fds;
      }
    }
  }
  stderr_lines_.finish([this](std::string_view line) { on_stderr_line(line); });
}

// The agent never said how staprun ended: why, as the error that ends the run.
void SshSession::fail_without_exit(const ExitStatus& ssh_status) const {
  if (killed_ && stop_signal() != 0)
    throw Stopped(stop_signal(), "on " + host_.name() +
                                     ": the connection was dropped after a second stop (the "
                                     "agent there stops staprun and removes its files)");
  if (killed_)
    throw TargetLost(host_.name() +
                     " did not end the run within 30 s of the stop: iotap dropped the "
                     "connection (the agent there stops staprun harder, and removes its files)");
  if (ssh_status.code != kSshFailed)
    throw UserError(host_.name() + ": iotap's agent failed there (status " +
                    std::to_string(ssh_status.code) +
                    (ssh_last_line_.empty() ? "" : ": " + ssh_last_line_) + ")");
  const std::string why =
      ssh_last_line_.empty() ? "ssh exited with status 255" : "ssh: " + ssh_last_line_;
  throw TargetLost("the connection to " + host_.name() + " was lost " +
                   (phases_.running() ? "while the module ran" : "before the module ran") + " (" +
                   why + "); the agent there stops staprun and removes its files when it " +
                   "sees the connection end");
}

SshResult SshSession::run(const HostFacts& facts, const std::string& dir) {
  const std::vector<std::string> words = run_words(run_, dir);
  std::array<int, 2> in{-1, -1};
  std::array<int, 2> out{-1, -1};
  std::array<int, 2> err{-1, -1};
  // Every descriptor here is closed however this ends (an error, a stop, a callback's throw).
  const auto close_all = [&] {
    for (auto* pair : {&in, &out, &err}) {
      for (int& fd : *pair) {
        if (fd >= 0) ::close(fd);
        fd = -1;
      }
    }
    stdin_fd_ = -1;
  };
  try {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in.data()) != 0 ||
        ::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0)
      throw std::system_error(errno, std::generic_category(), "pipe2");
    SpawnOptions options;
    options.stdin_fd = in[0];
    options.stdout_fd = out[1];
    options.stderr_fd = err[1];
    // The terminal's Ctrl-C reaches iotap only: ssh would drop the connection at once, and the
    // end probes' output with it. iotap says "stop" instead.
    options.new_process_group = true;
    options.die_with_parent = true;
    options.activity = "while running on " + host_.name();
    pid_ = spawn(agent_command(host_, words, needs_sudo(facts)), options);
    // ssh's ends, ours no more.
    ::close(std::exchange(in[0], -1));
    ::close(std::exchange(out[1], -1));
    ::close(std::exchange(err[1], -1));
    stdin_fd_ = in[1];
    stream(out[0], err[0]);
  } catch (...) {
    close_all();
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);  // the agent sees the connection end, and stops staprun
      wait_for(pid_);
    }
    throw;
  }
  close_all();
  const ExitStatus ssh_status = wait_for(pid_);

  if (!report_.exit_status()) fail_without_exit(ssh_status);
  SshResult result;
  result.exit_status = *report_.exit_status();
  result.interrupted = interrupted_;
  result.timed_out = timed_out_;
  result.devices = report_.devices();
  result.kernel_stats = report_.kernel_stats();
  result.traced_seconds = phases_.traced_seconds();
  result.postgres = report_.postgres_stats();
  return result;
}

}  // namespace

SshResult run_over_ssh(const SshHost& host, const HostFacts& facts, const SshRun& run,
                       const SshEvents& events) {
  events.status("copying the module to " + host.name());
  const std::string dir = upload_module(host, facts, run.module_path);
  SshSession session(host, run, events);
  return session.run(facts, dir);
}

}  // namespace iotap::remote
