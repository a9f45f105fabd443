#pragma once
// --target local: this machine's md/dm stacks and its block devices' statistics, read from sysfs
// by the text the ssh agent runs on a host (its "stack" and "diskstats" requests), so that a
// local run reports its stack and the kernel's own counts as a host's or the guest's run does.
#include <memory>
#include <vector>

#include "iotap/stack.h"
#include "iotap/stack/disk_stats.h"

namespace iotap::runner {
class GuestReport;
}  // namespace iotap::runner

namespace iotap::local {

class LocalStack {
 public:
  // Reads the stacks, then every device's statistics before the run (what sh says besides them
  // is a warning on stderr).
  LocalStack();
  ~LocalStack();
  LocalStack(const LocalStack&) = delete;
  LocalStack& operator=(const LocalStack&) = delete;
  LocalStack(LocalStack&&) = delete;
  LocalStack& operator=(LocalStack&&) = delete;

  // The stacks, top first (empty when the machine has no md or dm device).
  [[nodiscard]] std::vector<StackDevice> devices() const;
  // Reads the statistics again: the kernel's counts over the run, per device.
  KernelDiskStats after_run();

 private:
  std::unique_ptr<runner::GuestReport> report_;
};

}  // namespace iotap::local
