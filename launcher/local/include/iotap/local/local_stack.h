#pragma once
// --target local: this machine's md/dm stacks and its block devices' statistics, read from sysfs
// by the text the ssh agent runs on a host (its "stack" and "diskstats" requests), so that a
// local run reports its stack and the kernel's own counts as a host's or the guest's run does
// (and, attached to a PostgreSQL server, its counters: "pgstat").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iotap/runner/postgres_stats.h"
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
  // A PostgreSQL server's counters, "before" or "after", read with its `psql` as the agent on a
  // host reads them (remote/agent.sh's pgstat); false, with a warning on stderr, when they could
  // not be read.
  bool read_postgres_counters(const std::string& when, const std::string& psql);
  // A connection to that server and no statement (remote/agent.sh's pgconnect).
  void connect_postgres(const std::string& psql);
  // The server's counters over the run (after - before); nullopt without both.
  [[nodiscard]] std::optional<runner::PostgresStats> postgres_stats() const;

 private:
  std::unique_ptr<runner::GuestReport> report_;
};

}  // namespace iotap::local
