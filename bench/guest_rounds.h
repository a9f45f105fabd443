#pragma once
// What the guest benches (overhead/, pgbench/) share: their options' numbers; their rounds run
// in one guest boot, the guest's stderr and status shown as they come, its stdout (one line per
// round) kept for the report and echoed whole on stderr for the record.
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

#include "iotap/guest/vm_runner.h"
#include "iotap/util/error.h"

namespace iotap::bench {

// An option's value that must be a positive whole number (--rounds 3).
inline unsigned parse_number(const std::string& name, const std::string& text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0)
    throw UserError(name + " takes a positive whole number; got '" + text + "'");
  return value;
}

// `bench` names the bench in its status lines ("pgbench_bench: booting the guest").
inline std::string run_rounds_in_guest(const guest::VmRun& run, const std::string& bench) {
  std::string output;
  guest::VmEvents events;
  events.stdout_data = [&output](std::string_view bytes) { output.append(bytes); };
  events.stderr_data = [](std::string_view bytes) {
    std::fwrite(bytes.data(), 1, bytes.size(), stderr);
  };
  events.status = [&bench](std::string_view phrase) {
    std::fprintf(stderr, "%s: %.*s\n", bench.c_str(), static_cast<int>(phrase.size()),
                 phrase.data());
  };
  events.device = [](const StackDevice&) {};
  const guest::VmResult result = guest::run_in_vm(run, events);
  if (result.exit_status != 0)
    throw UserError("the guest's rounds exited with status " + std::to_string(result.exit_status));
  std::fputs(output.c_str(), stderr);  // every round's raw line, for the record
  return output;
}

}  // namespace iotap::bench
