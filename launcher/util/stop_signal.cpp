#include "iotap/util/stop_signal.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

namespace iotap {
namespace {

volatile sig_atomic_t g_first_signal = 0;
std::array<int, 2> g_pipe{-1, -1};

void on_stop_signal(int sig) {
  request_stop(sig);
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGPIPE:
      return "SIGPIPE";
    default:
      return "signal " + std::to_string(sig);
  }
}

}  // namespace

void install_stop_handlers() {
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe.data(), O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  // Orphaned grandchildren (stap's make and gcc, once stap is killed) become iotap's children,
  // so kill_process_group() can wait for every one of them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
  // A reader that goes away (`iotap run x.stp | head`) must not kill iotap in the middle of a
  // run, leaving the guest inside it and the temp dirs behind: a write to a closed pipe or
  // socket fails with EPIPE instead, and a closed stdout stops the run (OutputFile::write).
  ::signal(SIGPIPE, SIG_IGN);
}

void request_stop(int sig) {
  const int saved_errno = errno;
  if (g_first_signal == 0) g_first_signal = sig;
  const auto byte = static_cast<unsigned char>(sig);
  // The pipe is non-blocking: a flood of signals fills it and the rest are dropped, which is
  // fine, since one pending byte is enough to wake the waiter.
  [[maybe_unused]] const ssize_t written = ::write(g_pipe[1], &byte, 1);
  errno = saved_errno;
}

int stop_signal() {
  return g_first_signal;
}

int stop_fd() {
  return g_pipe[0];
}

int take_stop() {
  unsigned char byte = 0;
  if (g_pipe[0] < 0 || ::read(g_pipe[0], &byte, 1) != 1) return 0;
  return byte;
}

Stopped::Stopped(int signal, std::string while_doing)
    : signal_(signal),
      message_((signal == SIGPIPE ? std::string("stopped: the reader of its output went away")
                                  : "stopped by " + signal_name(signal)) +
               (while_doing.empty() ? "" : " " + std::move(while_doing))) {}

void throw_if_stopped(const std::string& while_doing) {
  if (const int sig = stop_signal(); sig != 0) throw Stopped(sig, while_doing);
}

void kill_process_group(pid_t pgid) {
  ::kill(-pgid, SIGKILL);
  // Every member is a child of iotap (the leader) or was orphaned to it (the subreaper): wait
  // until the group has none left. A member that is not iotap's to reap (subreaper off) ends
  // the loop with ECHILD; it has been sent SIGKILL all the same.
  while (true) {
    int status = 0;
    const pid_t reaped = ::waitpid(-pgid, &status, 0);
    if (reaped > 0) continue;
    if (errno == EINTR) continue;
    break;
  }
}

}  // namespace iotap
