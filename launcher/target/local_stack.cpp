#include "iotap/target/local_stack.h"

#include "iotap/target/ssh_target.h"
#include "iotap/util/error.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "vm/control_protocol.h"

namespace iotap {
namespace {

// One agent request run here; its control lines (on stderr) go to `report`.
void run_agent_request(vm::GuestReport& report, const std::vector<std::string>& request) {
  std::vector<std::string> argv{"sh", "-c", ssh::agent_text(), "iotap-agent"};
  argv.insert(argv.end(), request.begin(), request.end());
  SpawnOptions options;
  options.after_stop = true;  // the counts after a run that Ctrl-C stopped are still wanted
  const Captured captured = capture(argv, options);
  if (!captured.status.ok())
    throw UserError("reading this machine's block devices from sysfs failed: " + captured.err);
  for_each_line(captured.err, [&report](std::string_view line) {
    if (line.starts_with("iotap-ctl ")) report.feed(line.substr(10));
  });
}

}  // namespace

LocalStack::LocalStack() : report_(std::make_unique<vm::GuestReport>()) {
  run_agent_request(*report_, {"stack"});
}

LocalStack::~LocalStack() = default;

std::vector<StackDevice> LocalStack::devices() const {
  return report_->devices();
}

KernelDiskStats LocalStack::after_run() {
  run_agent_request(*report_, {"diskstats", "after"});
  return report_->kernel_stats();
}

}  // namespace iotap
