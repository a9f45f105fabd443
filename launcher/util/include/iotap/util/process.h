#pragma once
// Child processes from argv vectors: nothing a user typed ever passes through a shell.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace iotap {

struct ExitStatus {
  int code = 0;  // exit code, or 128 + signal number when killed, as shells report it
  bool signaled = false;
  [[nodiscard]] bool ok() const { return code == 0 && !signaled; }
};

struct Captured {
  ExitStatus status;
  std::string out;
  std::string err;
};

struct SpawnOptions {
  std::optional<std::string> cwd;
  std::vector<std::string> extra_env;  // "NAME=value", added to the inherited environment
  int stdin_fd = -1;                   // -1: /dev/null
  int stdout_fd = -1;                  // -1: inherit
  int stderr_fd = -1;                  // -1: inherit
  // Own process group: a Ctrl-C on the terminal then reaches only iotap, which decides how to
  // stop the child (a guest must get the chance to run the script's end probes).
  bool new_process_group = false;
  // Killed when iotap dies, even by SIGKILL: a guest never outlives the run that booted it.
  bool die_with_parent = false;
  // Runs even once iotap has been asked to stop: a short step that finishes a stopped run (the
  // kernel's counts after it, a module left loaded). Otherwise a stop refuses to start the child,
  // and capture() kills it.
  bool after_stop = false;
  // What the child does, for the message when iotap is stopped meanwhile ("while compiling
  // the script"); empty: "while running PROGRAM".
  std::string activity;
  // capture() only: past this the child gets SIGTERM (iotap's own stop: it says where it was),
  // and SIGKILL a minute later; 0, none. For callers that must never wait for ever (tests:
  // a hang then prints what the child said, where ctest's own timeout prints nothing).
  std::chrono::seconds time_limit{0};
};

// Starts argv[0] (searched in PATH) and returns its pid. Throws UserError naming the program
// when it cannot be started, and Stopped when iotap has been asked to stop.
pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits for a child started by spawn(), retrying on EINTR.
ExitStatus wait_for(pid_t pid);

// The child's status when it has ended (and is reaped now); none while it runs.
std::optional<ExitStatus> ended(pid_t pid);

// Runs argv to completion with stdout and stderr captured. A stop signal (util/stop_signal.h)
// kills the child (its whole group, with new_process_group), reaps it and throws Stopped. A
// child past options.time_limit is stopped, and its stderr says so at the end.
Captured capture(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Finds a program in PATH the way execvp would; empty when absent.
std::string find_in_path(const std::string& program);

}  // namespace iotap
