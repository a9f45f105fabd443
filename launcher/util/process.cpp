#include "iotap/util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/stop_signal.h"

namespace iotap {
namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const SpawnOptions& options,
                             int error_pipe) {
  const auto redirect = [](int from, int to) {
    if (from >= 0 && from != to) ::dup2(from, to);
  };
  // iotap blocks some signals while it waits on children; a child starts with none blocked.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // SIGPIPE too: iotap ignores it, and an ignored signal stays ignored across exec.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
  if (options.new_process_group) ::setpgid(0, 0);
  if (options.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  redirect(options.stdin_fd >= 0 ? options.stdin_fd : null_fd, STDIN_FILENO);
  redirect(options.stdout_fd, STDOUT_FILENO);
  redirect(options.stderr_fd, STDERR_FILENO);
  if (options.cwd && ::chdir(options.cwd->c_str()) != 0) {
    const int err = errno;
    [[maybe_unused]] const ssize_t written = ::write(error_pipe, &err, sizeof err);
    ::_exit(127);
  }
  for (const auto& entry : options.extra_env) {
    const auto eq = entry.find('=');
    ::setenv(entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  ::execvp(c_argv[0], c_argv.data());
  const int err = errno;
  // The parent reads this errno to report the failed exec; nothing is left to do if it fails.
  [[maybe_unused]] const ssize_t written = ::write(error_pipe, &err, sizeof err);
  ::_exit(127);
}

}  // namespace

pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) throw std::logic_error("spawn: empty argv");
  // Nothing new starts once iotap has been asked to stop.
  if (!options.after_stop)
    throw_if_stopped(options.activity.empty() ? "before running " + argv[0] : options.activity);
  // A close-on-exec pipe tells the parent whether exec succeeded: it reads EOF on success and
  // the child's errno on failure, so "program not found" is an error here, not an exit code.
  std::array<int, 2> error_pipe{};
  if (::pipe2(error_pipe.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) exec_child(argv, options, error_pipe[1]);
  ::close(error_pipe[1]);
  int child_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(error_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(error_pipe[0]);
  if (n == sizeof child_errno) {
    wait_for(pid);
    throw UserError(
        "cannot run '" + argv[0] + "': " + std::strerror(child_errno) +
        (child_errno == ENOENT ? " (is it installed? ./setup.sh installs what iotap needs)" : ""));
  }
  return pid;
}

ExitStatus wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), true};
  return {WEXITSTATUS(status), false};
}

std::optional<ExitStatus> ended(pid_t pid) {
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = ::waitpid(pid, &status, WNOHANG)) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  if (reaped == 0) return std::nullopt;
  if (WIFSIGNALED(status)) return ExitStatus{128 + WTERMSIG(status), true};
  return ExitStatus{WEXITSTATUS(status), false};
}

namespace {

// SpawnOptions::time_limit: SIGTERM when it passes, SIGKILL a minute after.
class TimeLimit {
 public:
  TimeLimit(pid_t pid, std::chrono::seconds limit) : pid_(pid), limit_(limit) {
    if (limit.count() > 0) next_ = Clock::now() + limit;
  }
  // poll()'s timeout until the next step; acts on a step that is due.
  int poll_timeout_ms() {
    if (!next_) return -1;
    if (Clock::now() >= *next_) act();
    if (!next_) return -1;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*next_ - Clock::now());
    return static_cast<int>(std::max<int64_t>(left.count(), 0));
  }
  [[nodiscard]] const std::string& said() const { return said_; }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kKillAfter = std::chrono::seconds(60);

  void act() {
    if (said_.empty()) {
      ::kill(pid_, SIGTERM);
      said_ = "\n[capture: ran past its " + std::to_string(limit_.count()) +
              " s time limit: sent SIGTERM]\n";
      next_ = Clock::now() + kKillAfter;
    } else {
      ::kill(pid_, SIGKILL);
      said_ += "[capture: still there " + std::to_string(kKillAfter.count()) +
               " s after SIGTERM: sent SIGKILL]\n";
      next_.reset();
    }
  }

  pid_t pid_;
  std::chrono::seconds limit_;
  std::optional<Clock::time_point> next_;
  std::string said_;
};

}  // namespace

Captured capture(const std::vector<std::string>& argv, const SpawnOptions& options) {
  std::array<int, 2> out_pipe{};
  std::array<int, 2> err_pipe{};
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  SpawnOptions with_pipes = options;
  with_pipes.stdout_fd = out_pipe[1];
  with_pipes.stderr_fd = err_pipe[1];
  pid_t pid = -1;
  try {
    pid = spawn(argv, with_pipes);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Captured result;
  // The third descriptor wakes the loop when iotap is asked to stop (util/stop_signal.h).
  std::array<pollfd, 3> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0},
                            pollfd{options.after_stop ? -1 : stop_fd(), POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_count = 2;
  TimeLimit limit(pid, options.time_limit);
  while (open_count > 0) {
    if (::poll(fds.data(), fds.size(), limit.poll_timeout_ms()) < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    if (stop_signal() != 0 && !options.after_stop) {
      // The child and everything it started go, and are reaped, before the temp dirs they
      // write into are removed by the unwinding.
      if (options.new_process_group) {
        kill_process_group(pid);
      } else {
        ::kill(pid, SIGKILL);
        wait_for(pid);
      }
      for (auto& fd : fds) {
        if (fd.fd >= 0 && fd.fd != stop_fd()) ::close(fd.fd);
      }
      throw Stopped(stop_signal(),
                    options.activity.empty() ? "while running " + argv[0] : options.activity);
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 65536> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  result.status = wait_for(pid);
  if (!limit.said().empty()) result.err += limit.said();
  return result;
}

std::string find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (is_executable_file(candidate)) return std::filesystem::absolute(candidate).string();
    start = end + 1;
  }
  return "";
}

}  // namespace iotap
