#include "iotap/latency/latency_format.h"

#include <array>
#include <cstdio>

namespace iotap::latency {
namespace {

uint64_t us(uint64_t ns) {
  return ns / 1000;
}

unsigned percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0 : static_cast<unsigned>((part * 100 + whole / 2) / whole);
}

std::string frame_name(const symbols::Frame& frame) {
  if (frame.function.empty()) {
    std::array<char, 24> hex{};
    std::snprintf(hex.data(), hex.size(), "0x%llx", static_cast<unsigned long long>(frame.address));
    return hex.data();
  }
  return frame.module.empty() ? frame.function : frame.function + " [" + frame.module + "]";
}

}  // namespace

std::string latency_text(const latency::BlockedTime& blocked, bool stacks) {
  std::string out;
  std::array<char, 256> line{};
  std::snprintf(line.data(), line.size(), "%-40s %8s %12s %12s %8s\n", "Reason", "Count",
                "Average(us)", "Maximum(us)", "Percent%");
  out += line.data();
  for (const auto& reason : blocked.reasons) {
    std::snprintf(line.data(), line.size(), "%-40s %8llu %12llu %12llu %7u%%\n",
                  reason.reason.c_str(), static_cast<unsigned long long>(reason.count),
                  static_cast<unsigned long long>(us(reason.total_ns / reason.count)),
                  static_cast<unsigned long long>(us(reason.max_ns)),
                  percent(reason.total_ns, blocked.total_ns));
    out += line.data();
    if (stacks) {
      for (const auto& frame : reason.stack) out += "      " + frame_name(frame) + "\n";
    }
  }
  std::snprintf(
      line.data(), line.size(), "asleep: %.3f s in %llu sleeps (thread time, all threads together)",
      static_cast<double>(blocked.total_ns) / 1e9, static_cast<unsigned long long>(blocked.sleeps));
  out += line.data();
  if (blocked.unfinished != 0) {
    out += "; " + std::to_string(blocked.unfinished) +
           " sleeps not ended by a wakeup while tracing are not counted";
  }
  out += "\n";
  if (blocked.events_lost != 0) {
    out += "lost: " + std::to_string(blocked.events_lost) +
           " of the probes' lines never arrived (SystemTap's transport): as many sleeps may be "
           "missing\n";
  }
  return out;
}

Json latency_json(const latency::BlockedTime& blocked) {
  Json reasons = Json::array();
  for (const auto& reason : blocked.reasons) {
    Json stack = Json::array();
    for (const auto& frame : reason.stack) stack.push_back(frame_name(frame));
    Json threads = Json::array();
    for (const auto& [tid, ns] : reason.total_ns_by_thread)
      threads.push_back({{"tid", tid}, {"total_us", us(ns)}});
    reasons.push_back({{"reason", reason.reason},
                       {"function", reason.function},
                       {"count", reason.count},
                       {"total_us", us(reason.total_ns)},
                       {"avg_us", us(reason.total_ns / reason.count)},
                       {"max_us", us(reason.max_ns)},
                       {"percent", percent(reason.total_ns, blocked.total_ns)},
                       {"longest_stack", stack},
                       {"threads", threads}});
  }
  return {{"sleeps", blocked.sleeps},
          {"total_us", us(blocked.total_ns)},
          {"unfinished_sleeps", blocked.unfinished},
          {"wakeups_without_sleep", blocked.wakeups_without_sleep},
          {"events_lost", blocked.events_lost},
          {"events_repeated", blocked.events_repeated},
          {"reasons", reasons}};
}

}  // namespace iotap::latency
