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
void run_agent_request(runner::GuestReport& report, const std::vector<std::string>& request,
                       bool after_stop) {
  std::vector<std::string> argv{"sh", "-c", remote::agent_text(), "iotap-agent"};
  argv.insert(argv.end(), request.begin(), request.end());
  SpawnOptions options;
  options.after_stop = after_stop;
  const Captured captured = capture(argv, options);
  std::string other;
  for_each_line(captured.err, [&](std::string_view line) {
    if (line.starts_with("iotap-ctl ")) {
      report.feed(line.substr(10));
    } else if (other.empty()) {
      other = line;
    }
  });
  if (!other.empty())
    std::fprintf(stderr,
                 "iotap: warning: reading this machine's block devices from sysfs: %s (the "
                 "report may lack the stack or the kernel's counts)\n",
                 other.c_str());
}

}  // namespace

LocalStack::LocalStack() : report_(std::make_unique<runner::GuestReport>()) {
  run_agent_request(*report_, {"stack"}, false);
}

LocalStack::~LocalStack() = default;

std::vector<StackDevice> LocalStack::devices() const {
  return report_->devices();
}

KernelDiskStats LocalStack::after_run() {
  run_agent_request(*report_, {"diskstats", "after"}, true);
  return report_->kernel_stats();
}

}  // namespace iotap::local
