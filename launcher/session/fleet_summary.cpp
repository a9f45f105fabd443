// The fleet's report (session/fleet_run.h): what every host's run ended with, summed up.
#include <algorithm>
#include <array>
#include <cstdio>

#include "iotap/session/fleet_run.h"
#include "iotap/util/exit_status.h"

namespace iotap::session {

namespace {

using Json = nlohmann::json;

std::string fixed(double value, const char* format) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), format, value);
  return text.data();
}

// "dm-0 (delay(ram,20ms)) 84.1x its siblings' mean latency, 97% of the slowest reads' time"
std::string slow_member_words(const Json& member) {
  std::string words = member.value("name", "?");
  if (member.contains("spec") && member["spec"].is_string())
    words += " (" + member["spec"].get<std::string>() + ")";
  const Json& evidence = member.value("evidence", Json::object());
  const double mean = evidence.value("mean_us", 0.0);
  const double siblings = evidence.value("siblings_mean_us", 0.0);
  if (siblings > 0) words += " " + fixed(mean / siblings, "%.1f") + "x its siblings' mean latency";
  if (evidence.contains("share_of_slowest") && evidence["share_of_slowest"].is_number())
    words += ", " + fixed(100 * evidence["share_of_slowest"].get<double>(), "%.0f") +
             "% of the slowest requests' time";
  return words;
}

std::string host_name(const HostOutcome& host) {
  constexpr std::string_view kScheme = "ssh://";
  return host.target.starts_with(kScheme) ? host.target.substr(kScheme.size()) : host.target;
}

// The host's result; null when it has none (or it does not parse).
Json result_of(const HostOutcome& host) {
  if (host.result_json.empty()) return nullptr;
  Json result = Json::parse(host.result_json, nullptr, /*allow_exceptions=*/false);
  return result.is_discarded() ? Json(nullptr) : result;
}

// A run that reported counts as run, whatever its status: a traced program's own failure is
// passed on as the status, and its report is still whole. A run that failed has no report.
bool ran(const HostOutcome& host) {
  return host.exit_status == 0 || !result_of(host).is_null() || !host.output.empty();
}

// The verdict's slow members; an empty array when there are none (or no verdict).
Json slow_members(const HostOutcome& host) {
  const Json result = result_of(host);
  if (!result.is_object()) return Json::array();
  const auto verdict = result.find("verdict");
  if (verdict == result.end() || !verdict->is_object()) return Json::array();
  const auto slow = verdict->find("slow_members");
  if (slow == verdict->end() || !slow->is_array()) return Json::array();
  return *slow;
}

bool has_results(const std::vector<HostOutcome>& hosts) {
  return std::ranges::any_of(hosts,
                             [](const HostOutcome& host) { return !result_of(host).is_null(); });
}

// Why a host's run failed: its last error line (less its own name in front, which the summary
// line has already), and its status.
std::string failure(const HostOutcome& host) {
  if (host.last_error.empty()) return "exited with status " + std::to_string(host.exit_status);
  std::string why = host.last_error;
  const std::string name = host_name(host);
  if (why.starts_with(name + ": ")) {
    why.erase(0, name.size() + 2);
  } else if (why.starts_with(name + " ")) {
    why.erase(0, name.size() + 1);
  }
  return why + " (status " + std::to_string(host.exit_status) + ")";
}

}  // namespace

std::vector<std::string> fleet_summary_lines(const std::vector<HostOutcome>& hosts) {
  size_t ran_count = 0;
  for (const auto& host : hosts) ran_count += ran(host) ? 1 : 0;
  const size_t failed = hosts.size() - ran_count;
  std::vector<std::string> lines;
  lines.push_back("fleet: " + std::to_string(hosts.size()) + " hosts, " +
                  std::to_string(ran_count) + " ran" +
                  (failed > 0 ? ", " + std::to_string(failed) + " failed" : ""));
  if (has_results(hosts)) {
    std::vector<const HostOutcome*> slow;
    for (const auto& host : hosts) {
      if (!slow_members(host).empty()) slow.push_back(&host);
    }
    lines.push_back("  " + std::to_string(slow.size()) + " of " + std::to_string(ran_count) +
                    (ran_count == 1 ? " host that ran" : " hosts that ran") +
                    (slow.size() == 1 ? " has" : " have") + " a slow member" +
                    (slow.empty() ? "" : ":"));
    for (const HostOutcome* host : slow) {
      for (const auto& member : slow_members(*host))
        lines.push_back("    " + host_name(*host) + ": " + slow_member_words(member));
    }
  }
  for (const auto& host : hosts) {
    if (!ran(host)) lines.push_back("  failed: " + host_name(host) + ": " + failure(host));
  }
  return lines;
}

Json fleet_json(std::string_view verb, const std::vector<HostOutcome>& hosts) {
  Json list = Json::array();
  Json slow = Json::array();
  Json failed = Json::array();
  for (const auto& host : hosts) {
    Json result = result_of(host);
    if (result.is_null() && !host.output.empty()) {
      result = Json::parse(host.output, nullptr, /*allow_exceptions=*/false);
      if (result.is_discarded()) result = host.output;
    }
    list.push_back({{"target", host.target},
                    {"exit_status", host.exit_status},
                    {"error", ran(host) ? Json(nullptr) : Json(failure(host))},
                    {"result", result}});
    if (!slow_members(host).empty()) slow.push_back(host.target);
    if (!ran(host)) failed.push_back(host.target);
  }
  Json summary{{"hosts", hosts.size()},
               {"ran", hosts.size() - failed.size()},
               {"failed", failed},
               {"lines", fleet_summary_lines(hosts)}};
  if (has_results(hosts)) summary["with_slow_member"] = slow;
  return {{"schema", "iotap.fleet/1"},
          {"verb", std::string(verb)},
          {"hosts", std::move(list)},
          {"summary", std::move(summary)}};
}

int fleet_exit_status(const std::vector<HostOutcome>& hosts) {
  if (hosts.empty()) return 0;
  const HostOutcome& first = hosts.front();
  // A usage error is everyone's: each host's run said the same words (a host's own failure
  // names the host), before any host was asked anything.
  const bool same_refusal = !ran(first) && !first.last_error.empty() &&
                            std::ranges::all_of(hosts, [&first](const HostOutcome& host) {
                              return !ran(host) && host.exit_status == first.exit_status &&
                                     host.last_error == first.last_error;
                            });
  if (same_refusal) return first.exit_status;
  for (const auto& host : hosts) {
    // A host whose run failed (every host's, as well as one of several).
    if (!ran(host) || host.exit_status != first.exit_status) return exit_status::kTargetLost;
  }
  return first.exit_status;
}

}  // namespace iotap::session
