#pragma once
// A recorded guest run (`iotap run examples/events.stp --json ...`, schema iotap.run/1): the
// stack the guest reported, as the engine's StackDevices, and the run's output stream.
#include <map>
#include <string>
#include <vector>

#include "iotap/engine.h"

namespace iotap::golden {

struct Trace {
  std::vector<StackDevice> stack;
  std::string output;  // the event stream and the program's own output
  std::string script;  // the script that made it: events.stp or syscall_events.stp
  // A --postgres run's pg_stat_database difference for its database (blks_read, ...).
  std::map<std::string, double> postgres;
};

// Throws std::runtime_error when the file cannot be read or is not such a run.
Trace load_trace(const std::string& path);

// The output through an engine, fed `chunk` bytes at a time.
engine::Result run_trace(const Trace& trace, const engine::Options& options, size_t chunk);

}  // namespace iotap::golden
