#pragma once
// The guest's control lines (guest/init.sh's iotap_say, on ttyS1): each line parsed into a plain
// struct, and the guest's report (stack devices, phase, exit status, error) built from them.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/runner/guest_stack.h"
#include "iotap/runner/postgres_stats.h"
#include "iotap/stack.h"
#include "iotap/stack/disk_stats.h"

namespace iotap::runner {

// One control line as the guest wrote it:
//   status PHRASE                              the guest's phase ("booted", "running", ...)
//   node ID PARENT NAME MAJ:MIN SPEC           a device of the stack
//   md NAME LEVEL CHUNK_BYTES MEMBER:OFFSET... an md array's details, after its node line
//   dm NAME START LENGTH TARGET ARGS...        one line of a dm device's table
//   dmclear NAME                               the dm device's table was replaced: forget it
//   diskstat NAME before|after FIELDS...       /sys/block/NAME/stat just before the run starts
//                                              and just after it ends
//   pgstat before|after DATID READ HIT RT WT SREAD SHIT SRT
//                                              pg_stat_database's counters (--postgres), the
//                                              database's and the shared objects' (datid 0), just
//                                              before the run starts and just after it ends
//   exit STATUS                                staprun's exit status; the guest powers off
//   error MESSAGE                              the guest could not set up the run
struct ControlLine {
  enum class Kind {
    kStatus,
    kNode,
    kMd,
    kDm,
    kDmClear,
    kDiskStat,
    kPgStat,
    kExit,
    kError,
    kUnknown,
    kMalformed
  };
  Kind kind = Kind::kUnknown;
  std::string name;  // md, dm, dmclear, diskstat: the device's kernel name
  // status: the phrase; error: the message; dm: the table line; diskstat, pgstat: "before" or
  // "after"
  std::string text;
  // node: the device with the plan's numbers; md: node.device's md_level, chunk_bytes and
  // md_members.
  GuestNode node;
  int exit_status = 0;           // exit
  DiskStats disk_stats;          // diskstat
  PostgresStats postgres_stats;  // pgstat
};

// Unknown kinds are kUnknown and lines that lack their fields are kMalformed: both are ignored
// (the lines are ours, but a garbled one is never worth a crash). A malformed number inside
// MAJ:MIN or MEMBER:OFFSET reads as 0.
ControlLine parse_control_line(std::string_view text);

// What the guest has said so far, fed its control lines in order.
class GuestReport {
 public:
  // Parses and applies one line (without its newline) and returns it, for the caller to act on
  // (a status line is a phase to show).
  ControlLine feed(std::string_view text);

  // The stack reported so far, top first, parents by name (guest_stack.h).
  [[nodiscard]] std::vector<StackDevice> devices() const { return stack_from_nodes(nodes_); }
  // The last status phrase: what the guest was doing, for messages.
  [[nodiscard]] const std::string& phase() const { return phase_; }
  // Set by "exit": the run inside the guest is over.
  [[nodiscard]] std::optional<int> exit_status() const { return exit_status_; }
  // The kernel's statistics over the run (after - before) of each device the guest reported
  // both for and the kernel ever counted; empty when it reported none (a run that did not end).
  [[nodiscard]] KernelDiskStats kernel_stats() const;
  // pg_stat_database's counters over the run (after - before); unset unless both were reported.
  [[nodiscard]] std::optional<PostgresStats> postgres_stats() const;
  // Set by "error": empty when the guest reported none.
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void apply(const ControlLine& line);

  std::vector<GuestNode> nodes_;
  KernelDiskStats stats_before_;
  KernelDiskStats stats_after_;
  std::optional<PostgresStats> postgres_before_;
  std::optional<PostgresStats> postgres_after_;
  std::string phase_ = "booting";
  std::optional<int> exit_status_;
  std::string error_;
};

// The two moments of a run that the host marks with status lines, as this side saw them
// arrive: "running" (the module about to load) and "ran" (staprun ended; not a phase to show).
class RunPhases {
 public:
  using Clock = std::chrono::steady_clock;
  // Takes a status phrase; true when it is one to show.
  bool note(std::string_view phrase);
  [[nodiscard]] bool running() const { return running_since_.has_value(); }
  // From "running" to "ran": the traced run's length (the probes' share of it); unset when the
  // run did not get that far.
  [[nodiscard]] std::optional<double> traced_seconds() const;

 private:
  std::optional<Clock::time_point> running_since_;
  std::optional<Clock::time_point> ran_at_;
};

}  // namespace iotap::runner
