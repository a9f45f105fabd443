#include "guest_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "iotap/guest/guest_logs.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/stop_signal.h"

namespace iotap::guest {

namespace {

// A guest that was asked to stop but has not powered off by then is killed.
constexpr auto kStopGrace = std::chrono::seconds(20);

// A guest that has not started the run by then (boot, modules, stack) is taken for hung and
// killed, with or without --timeout. Under TCG on a loaded host, boot and stack take 5-30 s.
constexpr auto kStartDeadline = std::chrono::seconds(300);

// Why the guest's kernel stopped, when it said so on the console ("Kernel panic - not syncing:
// softlockup: hung tasks", after "BUG: soft lockup - CPU#0 stuck for 22s! [stapio:158]"); the
// backtrace after it fills the console's last lines.
// Rounded up: poll() woken a fraction of a millisecond before the deadline would find it not
// reached yet.
int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<int64_t>(left, 0));
}

}  // namespace

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
    // The grace period is over. Even a run whose program ignores SIGINT ends in it (staprun does
    // not wait for the program), so a guest still there is held by its kernel.
    killed_unanswered_ = true;
    events_.status("the guest has not ended the run " + std::to_string(kStopGrace.count()) +
                   " s after the stop; killing it");
    kill_guest();
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

std::string GuestSession::unanswered_stop() {
  return ": it did not end the run within " + std::to_string(kStopGrace.count()) +
         " s of the stop and was killed (its kernel was stuck; the console may say where)";
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
  result.postgres = report_.postgres_stats();
  result.traced_seconds = phases_.traced_seconds();
  if (exit_status) {
    result.exit_status = *exit_status;
  } else if (interrupted_) {
    result.exit_status = 128 + stop_signal();
  } else {
    // qemu ended (killed, the guest's kernel panicked) mid-run: the target went away, as an ssh
    // host that drops its connection does; not the status of bad input, where nothing ran.
    throw TargetLost(std::string("the guest stopped before the run finished") +
                     (killed_unanswered_  ? unanswered_stop()
                      : qemu_status_.ok() ? ""
                                          : " (qemu exited with status " +
                                                std::to_string(qemu_status_.code) + ")") +
                     kernel_failure(link_.log_dir + "/console.log") + "\n  qemu said:\n" +
                     last_lines(link_.log_dir + "/qemu.log", 6) + "  last console lines:\n" +
                     last_lines(link_.log_dir + "/console.log", 12));
  }
  return result;
}

}  // namespace iotap::guest
