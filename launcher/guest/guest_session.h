#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "guest_link.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "leading_block.h"
#include "stream_end.h"

namespace iotap::guest {

using Clock = std::chrono::steady_clock;

// One run in a guest, from qemu's start (or the connection to a shared guest) until the run is
// over and its channels are drained: the run's files going in, the channels' bytes, the control
// lines, the deadlines and the stop signals.
class GuestSession {
 public:
  GuestSession(const VmRun& run, const VmEvents& events, GuestLink& link);
  ~GuestSession();
  GuestSession(const GuestSession&) = delete;
  GuestSession& operator=(const GuestSession&) = delete;
  GuestSession(GuestSession&&) = delete;
  GuestSession& operator=(GuestSession&&) = delete;

  // Boots a private guest; a shared one runs already.
  void start(const std::vector<std::string>& qemu_argv);
  // The run's files (and whether they hold a module), for the guest as soon as it listens. The
  // start deadline and --timeout count from here: the compile may have overlapped the boot.
  void send_run_files(std::string run_files, bool with_module);
  // Serves the channels until the run is over and nothing is left to read.
  void serve();
  // The run's result, or the error that ended it.
  VmResult finish();

 private:
  void on_deadline();
  void on_stop_signal();
  void on_readable(GuestPort& port);
  void on_writable();
  void send_run_request();
  void on_control_line(std::string_view text);
  void request_stop();
  void send_stop() const;
  void kill_guest() const;
  [[nodiscard]] bool run_over() const;
  [[nodiscard]] int poll_timeout_ms() const;
  [[nodiscard]] std::string console_tail() const;
  // Why the guest is gone when it was killed for not answering a stop.
  static std::string unanswered_stop();

  const VmRun& run_;
  const VmEvents& events_;
  GuestLink& link_;
  std::string run_files_;
  size_t run_files_sent_ = 0;
  bool run_files_ready_ = false;
  bool with_module_ = false;
  bool run_requested_ = false;
  // The guest reads its control line: ttyS1 is open. A UART drops what comes before (a
  // private guest says "booted" once it has opened it; a shared one runs already).
  bool guest_listens_ = false;
  std::string end_marker_;
  // The kallsyms block, when asked for, opens the output port; see init.sh.
  LeadingBlock stdout_stream_;
  StreamEnd out_end_;
  StreamEnd err_end_;
  LineSplitter ctl_lines_;
  runner::GuestReport report_;
  int pidfd_ = -1;
  bool qemu_running_ = false;
  bool qemu_is_child_ = false;
  ExitStatus qemu_status_;
  // --timeout counts from the run's files being ready: a guest that hangs while booting or
  // building the stack is stopped by it too. kStartDeadline bounds that part when there is no
  // --timeout.
  Clock::time_point start_deadline_;
  std::optional<Clock::time_point> run_deadline_;
  runner::RunPhases phases_;
  std::optional<Clock::time_point> stop_requested_;
  bool interrupted_ = false;
  bool timed_out_ = false;
  bool killed_unanswered_ = false;  // asked to stop, silent through kStopGrace, killed
  // Set when the guest is killed before the run started: by a stop signal, or by a deadline.
  int stopped_by_signal_ = 0;
  std::string start_timeout_;
  std::string start_timeout_hint_;
};

}  // namespace iotap::guest
