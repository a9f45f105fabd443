#pragma once
// How iotap stops when it is asked to (SIGINT, SIGTERM, SIGHUP), whatever it is doing.
//
// main() installs the handler before anything else, so no child can be started without it. The
// handler only records the signal and writes one byte to a pipe: the code that waits on a child
// polls stop_fd() with the rest, stops the child's whole process group (stap spawns make and
// gcc), reaps it and throws Stopped. The unwinding then removes the temp dirs (TempDir), and
// main() exits 128 + the signal number, as a shell reports a process killed by that signal:
// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, and 141 (SIGPIPE) when stdout's reader went
// away (SIGPIPE itself is ignored: a write to a closed pipe fails with EPIPE).
//
// A guest run is the exception: once the module runs, the first signal asks the guest to stop
// so that the script's end probes report (see guest/vm_runner.cpp).
#include <sys/types.h>

#include <exception>
#include <string>

namespace iotap {

// Installs the handlers (SA_RESTART: other system calls carry on) and makes iotap the reaper of
// its orphaned descendants, so that a killed process group can be waited for to the last
// member. Call once, first thing.
void install_stop_handlers();

// Stops iotap as the signal `sig` would, from ordinary code (async-signal-safe: the handler
// calls it too). OutputFile::write asks for SIGPIPE when stdout's reader has gone.
void request_stop(int sig);

// The first stop signal received; 0 while none has come.
int stop_signal();

// Readable while a stop signal is pending: poll it together with a child's descriptors.
int stop_fd();

// Takes one pending stop signal off stop_fd(): its number, or 0 when none is pending.
int take_stop();

// What a stop signal turns into while iotap waits for something it cannot finish.
class Stopped : public std::exception {
 public:
  Stopped(int signal, std::string while_doing);
  [[nodiscard]] int signal() const { return signal_; }
  [[nodiscard]] int exit_status() const { return 128 + signal_; }
  // "stopped by SIGTERM while compiling the script"
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  int signal_;
  std::string message_;
};

// Throws Stopped when a stop signal has come: nothing new is started after one.
void throw_if_stopped(const std::string& while_doing);

// Kills every process in the group `pgid` and reaps those that are iotap's children (with
// install_stop_handlers(), every orphaned member is one), until none is left.
void kill_process_group(pid_t pgid);

}  // namespace iotap
