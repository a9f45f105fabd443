#include "iotap/local/local_stack.h"

#include <cstdio>

#include "iotap/remote/ssh_target.h"
#include "iotap/runner/control_protocol.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"

namespace iotap::local {
namespace {

// One agent request run here; its control lines (on stderr) go to `report`. What the shell says
// besides them is warned about, not fatal: a run without the stack or the kernel's counts still
// reports what it traced. `after_stop`: also once iotap has been asked to stop (the counts after
// a run Ctrl-C ended are still wanted).
// Returns how many of the server's counters lines ("pgstat") came.
int run_agent_request(runner::GuestReport& report, const std::vector<std::string>& request,
                      bool after_stop) {
  std::vector<std::string> argv{"sh", "-c", remote::agent_text(), "iotap-agent"};
  argv.insert(argv.end(), request.begin(), request.end());
  SpawnOptions options;
  options.after_stop = after_stop;
  const Captured captured = capture(argv, options);
  std::string other;
  int counters = 0;
  for_each_line(captured.err, [&](std::string_view line) {
    if (line.starts_with("iotap-ctl ")) {
      // A status line here is what the request could not do (the server's counters).
      const runner::ControlLine control = report.feed(line.substr(10));
      if (control.kind == runner::ControlLine::Kind::kStatus)
        std::fprintf(stderr, "iotap: warning: %s\n", control.text.c_str());
      if (control.kind == runner::ControlLine::Kind::kPgStat) ++counters;
    } else if (other.empty()) {
      other = line;
    }
  });
  if (!other.empty())
    std::fprintf(stderr,
                 "iotap: warning: reading this machine's block devices from sysfs: %s (the "
                 "report may lack the stack or the kernel's counts)\n",
                 other.c_str());
  return counters;
}

}  // namespace

LocalStack::LocalStack() : report_(std::make_unique<runner::GuestReport>()) {
  run_agent_request(*report_, {"stack"}, false);
}

LocalStack::~LocalStack() = default;

std::vector<StackDevice> LocalStack::devices() const {
  return report_->devices();
}

bool LocalStack::read_postgres_counters(const std::string& when, const std::string& psql) {
  return run_agent_request(*report_, {"pgstat", when, psql}, true) > 0;
}

void LocalStack::connect_postgres(const std::string& psql) {
  run_agent_request(*report_, {"pgconnect", psql}, true);
}

std::optional<runner::PostgresStats> LocalStack::postgres_stats() const {
  return report_->postgres_stats();
}

KernelDiskStats LocalStack::after_run() {
  run_agent_request(*report_, {"diskstats", "after"}, true);
  return report_->kernel_stats();
}

}  // namespace iotap::local
