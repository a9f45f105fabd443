#include "iotap/remote/ssh_target.h"

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

#include "iotap/runner/control_protocol.h"
#include "iotap/runner/scripts.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/printable.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/stop_signal.h"

namespace iotap::remote {

namespace {

using Clock = std::chrono::steady_clock;

SpawnOptions doing(std::string activity, int stdin_fd = -1) {
  SpawnOptions options;
  options.activity = std::move(activity);
  options.stdin_fd = stdin_fd;
  return options;
}

// ssh's status when ssh itself failed (could not connect, authenticate, or lost the connection).
constexpr int kSshFailed = 255;

bool host_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
}

std::string last_line_of(std::string_view text) {
  std::string last;
  for_each_line(text, [&last](std::string_view line) {
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) last = line;
  });
  if (!last.empty() && last.back() == '\r') last.pop_back();
  return last;
}

}  // namespace

// Without its comments, blank lines and indentation: the command an ssh server takes has a limit
// (dropbear's is 9000 bytes: "String too long"), and the comments are for readers of agent.sh,
// not for the host.
std::string agent_text() {
  std::string text;
  const auto add = [&text](const std::string& path) {
    for_each_line(read_file(path), [&text](std::string_view line) {
      const size_t start = line.find_first_not_of(" \t");
      if (start == std::string_view::npos || line[start] == '#') return;
      text += line.substr(start);
      text += '\n';
    });
  };
  // The md and dm lines of a device, as the guest's init reports them.
  add(runner::device_lines_script());
  add(data_paths().ssh_agent);
  return text;
}

namespace {

// The words that make ssh run `request` of the agent on the host: the agent's text is the
// argument of `sh -c`, quoted for the remote login shell, and so is every word after it.
std::vector<std::string> agent_command(const SshHost& host, const std::vector<std::string>& words,
                                       bool sudo) {
  std::vector<std::string> argv{"ssh", "-T",
                                "-e",  "none",
                                "-o",  "BatchMode=yes",
                                "-o",  "ConnectTimeout=15",
                                "-o",  "ServerAliveInterval=5",
                                "-o",  "ServerAliveCountMax=3"};
  // A configuration of its own (the tests': keys, and host keys that change with each boot).
  if (const char* config = std::getenv("IOTAP_SSH_CONFIG"); config != nullptr && *config != '\0')
    argv.insert(argv.end(), {"-F", config});
  if (host.port != 0) argv.insert(argv.end(), {"-p", std::to_string(host.port)});
  if (!host.user.empty()) argv.insert(argv.end(), {"-l", host.user});
  std::string remote = sudo ? "sudo -n sh -c " : "sh -c ";
  remote += single_quoted(agent_text());
  remote += " iotap-agent";
  for (const auto& word : words) remote += " " + single_quoted(word);
  argv.insert(argv.end(), {"--", host.host, remote});
  return argv;
}

bool needs_sudo(const HostFacts& facts) {
  return facts.privilege == "sudo";
}

// The ssh command line a user would try by hand.
std::string ssh_hint(const SshHost& host) {
  return ssh_command_hint(host, "ssh") + " true";
}

// The message for an ssh that failed before the agent ran, or an agent that failed.
std::string connection_failure(const SshHost& host, const Captured& captured) {
  const std::string why = last_line_of(captured.err);
  if (captured.status.code == kSshFailed)
    return host.name() + ": ssh could not run iotap's agent there (" +
           (why.empty()                ? "ssh exited with status 255"
            : why.starts_with("ssh: ") ? why
                                       : "ssh: " + why) +
           "); check that '" + ssh_hint(host) + "' works without a password prompt";
  return host.name() + ": iotap's agent failed there (status " +
         std::to_string(captured.status.code) + (why.empty() ? "" : ": " + why) + ")";
}

}  // namespace

std::string this_machine() {
  utsname uts{};
  ::uname(&uts);
  return uts.machine;
}

std::string ssh_command_hint(const SshHost& host, std::string_view program) {
  std::string hint(program);
  if (host.port != 0) hint += " -p " + std::to_string(host.port);
  hint += " " + (host.user.empty() ? host.host : host.user + "@" + host.host);
  return hint;
}

std::string SshHost::name() const {
  std::string text = user.empty() ? host : user + "@" + host;
  if (port != 0) text += ":" + std::to_string(port);
  return text;
}

SshHost parse_ssh_target(std::string_view text) {
  constexpr std::string_view kScheme = "ssh://";
  const auto bad = [&text](const std::string& why) {
    return UserError("--target '" + escaped(text) + "': " + why +
                     " (the form is ssh://[USER@]HOST[:PORT], e.g. ssh://root@db7 or "
                     "ssh://db7:2222)");
  };
  if (!text.starts_with(kScheme)) throw bad("not an ssh:// address");
  SshHost host;
  host.text = text;
  std::string_view rest = text.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) throw bad("a path after the host means nothing");
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    host.user = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    if (host.user.empty()) throw bad("the user before '@' is empty");
    for (size_t i = 0; i < host.user.size(); ++i) {
      if (!host_name_char(host.user[i]))
        throw bad("the user name has a '" +
                  escaped(std::string_view(host.user).substr(i, character_bytes(host.user, i))) +
                  "'");
    }
  }
  std::string_view port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) throw bad("an IPv6 address without its ']'");
    host.host = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
    if (rest.starts_with(':'))
      port = rest.substr(1);
    else if (!rest.empty())
      throw bad("'" + escaped(rest) + "' after the address");
    for (const char c : host.host) {
      if (std::isxdigit(static_cast<unsigned char>(c)) == 0 && c != ':' && c != '.')
        throw bad("'" + escaped(host.host) + "' is not an IPv6 address");
    }
  } else {
    const size_t colon = rest.find(':');
    host.host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port = rest.substr(colon + 1);
    for (size_t i = 0; i < host.host.size(); ++i) {
      if (!host_name_char(host.host[i]))
        throw bad("the host name has a '" +
                  escaped(std::string_view(host.host).substr(i, character_bytes(host.host, i))) +
                  "'");
    }
  }
  if (host.host.empty()) throw bad("no host");
  if (host.host.starts_with('-')) throw bad("a host name cannot start with '-'");
  if (port.data() != nullptr) {
    unsigned value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
      throw bad("the port must be a number from 1 to 65535, not '" + escaped(port) + "'");
    host.port = static_cast<uint16_t>(value);
  }
  return host;
}

HostFacts parse_host_facts(std::string_view text) {
  HostFacts facts;
  for_each_line(text, [&facts](std::string_view line) {
    if (!line.starts_with("fact ")) return;
    line.remove_prefix(5);
    const size_t space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    std::string value(space == std::string_view::npos ? "" : line.substr(space + 1));
    if (value == "-") value.clear();
    if (name == "release")
      facts.release = value;
    else if (name == "machine")
      facts.machine = value;
    else if (name == "staprun")
      facts.staprun = value;
    else if (name == "privilege")
      facts.privilege = value;
    else if (name == "user")
      facts.user = value;
    else if (name == "busy")
      facts.busy = value == "yes";
    else if (name == "pid_exe")
      facts.pid_exe = value;
    else if (name == "pid_exe_sha256")
      facts.pid_exe_sha256 = value;
    else if (name == "program_sha256")
      facts.program_sha256 = value;
  });
  return facts;
}

std::string host_problem(const SshHost& host, const HostFacts& facts,
                         const std::string& this_machine) {
  const std::string name = host.name();
  if (facts.release.empty())
    return name + ": iotap's agent did not say the kernel release (is its shell a POSIX sh?)";
  if (facts.machine != this_machine)
    return name + " is " + facts.machine + " and this machine " + this_machine +
           ": iotap compiles the module here, for this machine's architecture only";
  if (facts.staprun.empty())
    return name + " has no staprun: install SystemTap's runtime there (apt-get install " +
           "systemtap-runtime; nothing else of SystemTap or iotap is needed on the host)";
  if (facts.privilege == "none")
    return name + ": " + facts.user +
           " cannot load SystemTap modules there: log in as root (ssh://root@...), add " +
           facts.user + " to the stapdev group, or allow it passwordless sudo";
  if (facts.busy)
    return name + " has a SystemTap module named iotap loaded: another iotap run is tracing it " +
           "(wait for it to end; if none is, 'staprun -d iotap' there removes a leftover)";
  return "";
}

std::string kernel_headers_problem(const SshHost& host, const std::string& release,
                                   const std::string& modules_root) {
  std::error_code error;
  if (std::filesystem::exists(modules_root + "/" + release + "/build", error)) return "";
  return host.name() + " runs kernel " + release +
         ", whose headers this machine lacks: stap compiles the module here, for that kernel "
         "(apt-get install linux-headers-" +
         release + ")";
}

std::string program_problem(const SshHost& host, const HostFacts& facts,
                            const std::string& program) {
  if (!facts.program_sha256.empty()) return "";
  return host.name() + " has no executable " + program +
         ": -c runs the program there, at the path it has on this machine (copy it there, or "
         "give the path it has on both)";
}

HostFacts ask_host(const SshHost& host, std::optional<pid_t> pid,
                   const std::optional<std::string>& program) {
  const Captured captured =
      capture(agent_command(
                  host, {"probe", pid ? std::to_string(*pid) : "-", program.value_or("-")}, false),
              doing("while asking " + host.name() + " about its kernel"));
  if (!captured.status.ok()) throw UserError(connection_failure(host, captured));
  return parse_host_facts(captured.out);
}

HostFacts probe_host(const SshHost& host, std::optional<pid_t> pid,
                     const std::optional<std::string>& program) {
  HostFacts facts = ask_host(host, pid, program);
  if (const std::string problem = host_problem(host, facts, this_machine()); !problem.empty())
    throw UserError(problem);
  return facts;
}

std::string read_host_kallsyms(const SshHost& host, const HostFacts& facts) {
  const Captured captured = capture(agent_command(host, {"kallsyms"}, needs_sudo(facts)),
                                    doing("while reading " + host.name() + "'s kallsyms"));
  if (!captured.status.ok()) throw UserError(connection_failure(host, captured));
  return captured.out;
}

namespace {

// The module into a private directory on the host; returns the directory.
std::string upload_module(const SshHost& host, const HostFacts& facts, const std::string& module) {
  const int fd = ::open(module.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + module);
  const SpawnOptions options = doing("while copying the module to " + host.name(), fd);
  Captured captured;
  try {
    const std::string size = std::to_string(std::filesystem::file_size(module));
    captured = capture(agent_command(host, {"upload", size}, needs_sudo(facts)), options);
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

SshResult SshSession::run(const HostFacts& facts, const std::string& dir) {
  std::vector<std::string> words{"run", dir, run_.program_stdout_to_stderr ? "stderr" : "stream"};
  if (!run_.command.empty()) {
    words.insert(words.end(), {"c", quoted_command(run_.command)});
  } else if (run_.pid) {
    words.insert(words.end(), {"x", std::to_string(*run_.pid)});
  } else {
    words.insert(words.end(), {"-", "-"});
  }
  words.push_back(std::to_string(run_.staprun_options.size()));
  words.insert(words.end(), run_.staprun_options.begin(), run_.staprun_options.end());
  words.insert(words.end(), run_.module_options.begin(), run_.module_options.end());

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

  if (!report_.exit_status()) {
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
  SshResult result;
  result.exit_status = *report_.exit_status();
  result.interrupted = interrupted_;
  result.timed_out = timed_out_;
  result.devices = report_.devices();
  result.kernel_stats = report_.kernel_stats();
  result.traced_seconds = phases_.traced_seconds();
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
