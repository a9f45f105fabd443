// The doctor's answer as text and as JSON.
#include <algorithm>
#include <string>
#include <vector>

#include "iotap/doctor/doctor.h"

namespace iotap::doctor {
namespace {

const char* status_word(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kNote:
      return "note";
    case Status::kMissing:
      return "missing";
  }
  return "?";
}

size_t missing_count(const TargetReport& report) {
  return static_cast<size_t>(std::ranges::count_if(
      report.checks, [](const Check& check) { return check.status == Status::kMissing; }));
}

std::string verdict(const TargetReport& report) {
  const size_t missing = missing_count(report);
  if (missing == 0) return "ready";
  return "not ready: " + std::to_string(missing) + " missing";
}

}  // namespace

std::string doctor_text(const std::vector<TargetReport>& reports) {
  size_t name_width = 0;
  for (const auto& report : reports)
    for (const auto& check : report.checks) name_width = std::max(name_width, check.name.size());
  const std::string indent(2 + 8 + 1 + name_width + 2, ' ');
  std::string text;
  std::vector<std::string> ready;
  for (const auto& report : reports) {
    if (!text.empty()) text += '\n';
    text += report.title + ": " + verdict(report) + '\n';
    for (const auto& check : report.checks) {
      std::string word = status_word(check.status);
      word.resize(8, ' ');
      std::string name = check.name;
      name.resize(name_width, ' ');
      text.append("  ").append(word).append(" ").append(name).append("  ");
      text.append(check.found).append("\n");
      if (check.status != Status::kOk && !check.fix.empty())
        text += indent + "fix: " + check.fix + '\n';
    }
    if (report.ready()) ready.push_back("--target " + report.target);
  }
  text += '\n';
  if (ready.empty()) {
    text += "iotap cannot trace on this machine yet: the fixes above say what to install.\n";
  } else {
    std::string targets;
    for (const auto& target : ready) targets += (targets.empty() ? "" : " and ") + target;
    text += "iotap can trace here with " + targets + ".\n";
  }
  return text;
}

Json doctor_json(const std::vector<TargetReport>& reports) {
  Json targets = Json::array();
  for (const auto& report : reports) {
    Json checks = Json::array();
    for (const auto& check : report.checks) {
      checks.push_back({{"name", check.name},
                        {"status", status_word(check.status)},
                        {"found", check.found},
                        {"fix", check.fix}});
    }
    targets.push_back({{"target", report.target},
                       {"title", report.title},
                       {"ready", report.ready()},
                       {"checks", std::move(checks)}});
  }
  return {{"schema", "iotap.doctor/1"}, {"targets", std::move(targets)}};
}

}  // namespace iotap::doctor
