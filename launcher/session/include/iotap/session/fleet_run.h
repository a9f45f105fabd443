#pragma once
// Many hosts: `iotap VERB ... --target ssh://a --target ssh://b ...` runs the verb on each host
// at once, each as an iotap of its own (this binary, with one --target), so that one host that
// fails or hangs stops nothing else. Their status lines come through prefixed "[HOST] "; the
// report is each host's, in the order given, then a fleet summary: how many ran, which have a
// slow member (attribute, diagnose: from each run's result), which failed and why.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iotap::session {

// One host's run, as the fleet saw it end.
struct HostOutcome {
  std::string target;  // as given: ssh://root@db7
  int exit_status = 0;
  std::string output;  // what its run wrote (-o): its report, text or JSON
  // attribute/diagnose: its whole --json result, as text; empty otherwise. (Text, not a parsed
  // value: a JSON value's destructor may throw, and this struct is moved about.)
  std::string result_json;
  std::string last_error;  // its last "iotap: ..." line on stderr, for a run that failed
};

// The summary's lines: "fleet: 3 hosts, 2 ran, 1 failed", the hosts with a slow member (name,
// spec, how much slower than its siblings, its share of the slowest requests' time), and each
// failed host with its reason.
std::vector<std::string> fleet_summary_lines(const std::vector<HostOutcome>& hosts);

// The fleet's --json: {"schema": "iotap.fleet/1", "verb", "hosts": [{"target", "exit_status",
// "error", "result" (the host's own JSON, or its text output as a string)}], "summary": {...}}.
nlohmann::json fleet_json(std::string_view verb, const std::vector<HostOutcome>& hosts);

// The fleet's exit status: 0 when every host's run exited 0; the hosts' own status when they
// all ran and exited with the same one, or all refused the run in the same words (a usage error
// is everyone's); else exit_status::kTargetLost, also when every host's run failed (each with
// its own host's reason).
int fleet_exit_status(const std::vector<HostOutcome>& hosts);

// Runs `verb` with `args` (the verb's own arguments, every --target among them) on each ssh://
// host in `targets`. Throws UserError for what cannot be run per host (-x, --html, --perfetto,
// a verb that traces nothing).
int run_fleet(std::string_view verb, std::span<const std::string> args,
              const std::vector<std::string>& targets);

}  // namespace iotap::session
