#include "iotap/local/local_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <optional>
#include <string>

#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/stop_signal.h"

namespace iotap::local {

std::string local_kernel_release() {
  utsname uts{};
  ::uname(&uts);
  return uts.release;
}

std::string local_load_problem() {
  if (::access("/proc/modules", F_OK) != 0) {
    return std::string(
               "this kernel cannot load SystemTap modules (no /proc/modules: it was built without "
               "CONFIG_MODULES); use --target vm to run in a guest iotap boots (") +
           kDoctorHint + ")";
  }
  if (find_in_path("staprun").empty())
    return "staprun is not installed: apt-get install systemtap-runtime (" +
           std::string(kDoctorHint) + ")";
  if (::geteuid() != 0)
    return std::string(
               "loading a SystemTap module needs root (run iotap as root, or with --target vm; ") +
           kDoctorHint + ")";
  return "";
}

std::string local_kernel_problem() {
  const std::string release = local_kernel_release();
  const std::string build = "/lib/modules/" + release + "/build";
  if (::access("/proc/modules", F_OK) == 0 && ::access(build.c_str(), F_OK) != 0) {
    return "stap needs this kernel's headers in " + build + " (apt-get install linux-headers-" +
           release + "), or use --target vm (" + kDoctorHint + ")";
  }
  return local_load_problem();
}

namespace {

// stapio_drain.so ahead of whatever the user preloads: stapio takes it out again before it starts
// the traced program (launcher/runner/stapio_drain/stapio_drain.c says why it is there).
std::string stapio_preload() {
  std::string preload = "LD_PRELOAD=" + data_paths().stapio_drain;
  if (const char* user = std::getenv("LD_PRELOAD"); user != nullptr && *user != '\0')
    preload += std::string(":") + user;
  return preload;
}

// stapio unloads the module when it ends; one that failed to attach (or was killed outright)
// leaves it loaded, and the next run could not load it again: `staprun -d` removes it.
void remove_module_left_loaded(const std::string& module_path) {
  const std::string name = std::filesystem::path(module_path).stem().string();
  bool loaded = false;
  for_each_line(read_file("/proc/modules"), [&](std::string_view line) {
    loaded = loaded || line.substr(0, line.find(' ')) == name;
  });
  SpawnOptions options;
  options.after_stop = true;
  if (loaded) capture({"staprun", "-d", name}, options);
}

// Whether the module `name` is loaded and past its init (its probes registered).
bool module_live(const std::string& name) {
  bool live = false;
  for_each_line(read_file("/proc/modules"), [&](std::string_view line) {
    live = live || (line.substr(0, line.find(' ')) == name &&
                    line.find(" Live ") != std::string_view::npos);
  });
  return live;
}

// Passes stops on to staprun's process group. The first, when the module is live and the run
// wants something done first (LocalEvents::before_stop: a connection to a PostgreSQL server),
// waits for that on a thread of its own while the output is still drained; a second stop goes
// on at once.
class Stopper {
 public:
  Stopper(const LocalRun& run, const LocalEvents& events, pid_t pid)
      : run_(run), events_(events), pid_(pid) {}
  Stopper(const Stopper&) = delete;
  Stopper& operator=(const Stopper&) = delete;
  Stopper(Stopper&&) = delete;
  Stopper& operator=(Stopper&&) = delete;
  ~Stopper() {
    if (before_.valid()) before_.wait();
  }

  void stop(int sig) {
    if (asked_) {
      send(sig);
      return;
    }
    asked_ = true;
    if (events_.before_stop &&
        module_live(std::filesystem::path(run_.module_path).stem().string())) {
      pending_ = sig;
      before_ = std::async(std::launch::async, events_.before_stop);
      return;
    }
    send(sig);
  }
  // Called each time round the loop: the held stop goes on once what came first is done.
  void poll() {
    if (pending_ != 0 && before_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      before_.get();
      send(std::exchange(pending_, 0));
    }
  }
  // Whether a stop is held (the loop then looks every 100 ms whether it can go on).
  [[nodiscard]] bool holding() const { return pending_ != 0; }

 private:
  void send(int sig) {
    pending_ = 0;
    ::kill(-pid_, sig);
  }
  const LocalRun& run_;
  const LocalEvents& events_;
  pid_t pid_;
  bool asked_ = false;
  int pending_ = 0;
  std::future<void> before_;
};

struct Streamed {
  std::optional<ExitStatus> staprun_status;  // when it was reaped while streaming
  bool timed_out = false;
};

// Streams staprun's output to `events` until both pipes close, passing stops on to its process
// group (the group outlives its leader while a member lives, and its id is not reused meanwhile).
// The pipes are closed on return, or on a throw.
Streamed stream_staprun(const LocalRun& run, const LocalEvents& events, pid_t pid,
                        std::array<int, 2> pipes) {
  Stopper stopper(run, events, pid);
  const auto interrupt = [&stopper](int sig) { stopper.stop(sig); };
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + run.timeout;
  std::array<pollfd, 3> fds{pollfd{pipes[0], POLLIN, 0}, pollfd{pipes[1], POLLIN, 0},
                            pollfd{stop_fd(), POLLIN, 0}};
  // Whatever way this returns, the pipes still open are closed.
  struct ClosePipes {
    std::array<pollfd, 3>& fds;
    ~ClosePipes() {
      for (size_t i = 0; i < 2; ++i)
        if (fds[i].fd >= 0) ::close(fds[i].fd);
    }
  } close_pipes{fds};
  int open_fds = 2;
  bool stopped = false;
  const auto stop_once = [&] {
    if (!stopped) interrupt(SIGINT);
    stopped = true;
  };
  Streamed streamed;
  std::optional<ExitStatus>& staprun_status = streamed.staprun_status;
  std::optional<Clock::time_point> staprun_ended_at;
  while (open_fds > 0) {
    // -x: the run ends when the process does (staprun alone would wait for a stop); looked at
    // once a second, as is staprun's own end.
    if (run.pid && ::kill(*run.pid, 0) != 0 && errno == ESRCH) stop_once();
    if (run.timeout.count() > 0 && Clock::now() >= deadline && !stopped) {
      streamed.timed_out = true;
      stop_once();
    }
    // A program that outlived stapio (stopped, and stapio ended first) holds the output open:
    // after 2 s it is stopped, after 10 s killed (it is iotap's to reap: a subreaper).
    if (!staprun_status) staprun_status = ended(pid);
    if (staprun_status) {
      const auto now = Clock::now();
      if (!staprun_ended_at) staprun_ended_at = now;
      const auto since = now - *staprun_ended_at;
      if (since > std::chrono::seconds(2))
        ::kill(-pid, since > std::chrono::seconds(10) ? SIGKILL : SIGTERM);
      while (::waitpid(-pid, nullptr, WNOHANG) > 0) {
      }
    }
    stopper.poll();
    int timeout_ms = stopper.holding() ? 100 : 1000;
    if (run.timeout.count() > 0 && !stopped) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left.count(), 0, timeout_ms));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) continue;  // EINTR: seen next time round
    if (fds[2].revents != 0) {
      if (const int sig = take_stop(); sig != 0) {
        interrupt(sig);
        stopped = true;
      }
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 65536> buffer{};
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        (i == 0 ? events.stdout_data
                : events.stderr_data)(std::string_view(buffer.data(), static_cast<size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  return streamed;
}

}  // namespace

LocalResult run_local(const LocalRun& run, const LocalEvents& events) {
  std::vector<std::string> argv{"staprun"};
  argv.insert(argv.end(), run.staprun_options.begin(), run.staprun_options.end());
  if (!run.command.empty()) {
    argv.insert(argv.end(), {"-c", quoted_command(run.command)});
  } else if (run.pid) {
    argv.insert(argv.end(), {"-x", std::to_string(*run.pid)});
  }
  argv.push_back(run.module_path);
  argv.insert(argv.end(), run.module_options.begin(), run.module_options.end());

  std::array<int, 2> out{};
  std::array<int, 2> err{};
  if (::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  SpawnOptions options;
  options.stdout_fd = out[1];
  options.stderr_fd = err[1];
  options.extra_env.push_back(stapio_preload());
  // staprun stops the module after its end probes when it gets SIGINT, SIGTERM or SIGHUP. It
  // runs in a process group of its own, which the -c program (stapio's child) shares: a stop
  // goes to the whole group, as a terminal's Ctrl-C would (a kill of iotap alone used to leave
  // the program running, holding the output open). A terminal's Ctrl-C reaches iotap alone, so
  // each process gets one signal: stapio only gives up on the end probes at the third.
  options.new_process_group = true;
  const pid_t pid = spawn(argv, options);
  ::close(out[1]);
  ::close(err[1]);
  Streamed streamed;
  try {
    streamed = stream_staprun(run, events, pid, {out[0], err[0]});
  } catch (...) {
    // A sink that threw: nothing will read the output, so the module goes at once.
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);  // ECHILD when the loop had reaped it already
    remove_module_left_loaded(run.module_path);
    throw;
  }
  const int status = streamed.staprun_status ? streamed.staprun_status->code : wait_for(pid).code;
  remove_module_left_loaded(run.module_path);
  return {status, streamed.timed_out};
}

}  // namespace iotap::local
