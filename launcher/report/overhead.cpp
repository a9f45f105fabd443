#include "iotap/report/overhead.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace iotap::report {
namespace {

// 65537 -> "65.5k"; under 10,000 as it is.
std::string count_text(uint64_t n) {
  std::array<char, 32> text{};
  if (n < 10'000) {
    std::snprintf(text.data(), text.size(), "%llu", static_cast<unsigned long long>(n));
  } else if (n < 10'000'000) {
    std::snprintf(text.data(), text.size(), "%.1fk", static_cast<double>(n) / 1e3);
  } else {
    std::snprintf(text.data(), text.size(), "%.1fM", static_cast<double>(n) / 1e6);
  }
  return text.data();
}

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

Overhead overhead(uint64_t probe_hits, uint64_t skipped_probes, std::optional<double> run_seconds,
                  std::optional<double> ns_per_hit) {
  Overhead out;
  out.probe_hits = probe_hits;
  out.skipped_probes = skipped_probes;
  if (!ns_per_hit) return out;
  out.ns_per_hit = ns_per_hit;
  out.seconds = static_cast<double>(out.probe_hits) * *ns_per_hit / 1e9;
  // The run already holds the time the probes added: the run without them was shorter by that
  // much.
  if (run_seconds && *run_seconds > 0) out.share = std::min(1.0, *out.seconds / *run_seconds);
  return out;
}

Overhead overhead(const engine::Result& result, std::optional<double> ns_per_hit) {
  const uint64_t skipped = result.loss.skipped_probes;
  return overhead(result.events + skipped, skipped, static_cast<double>(result.span_ns) / 1e9,
                  ns_per_hit);
}

std::string overhead_line(const Overhead& overhead) {
  std::string text = "overhead: " + count_text(overhead.probe_hits) + " probe hits, " +
                     count_text(overhead.skipped_probes) + " skipped";
  if (!overhead.seconds) return text + " (the cost of a hit is not measured for this target)\n";
  std::array<char, 96> time{};
  std::snprintf(time.data(), time.size(), ", ~%.2f s", *overhead.seconds);
  text += time.data();
  std::array<char, 96> share{};
  if (overhead.share) {
    std::snprintf(share.data(), share.size(), " (%.0f%% of the run at %.0f us per hit)",
                  *overhead.share * 100, *overhead.ns_per_hit / 1000);
  } else {
    std::snprintf(share.data(), share.size(), " (at %.0f us per hit)", *overhead.ns_per_hit / 1000);
  }
  return text + share.data() + "\n";
}

nlohmann::ordered_json overhead_json(const Overhead& overhead) {
  return {{"probe_hits", overhead.probe_hits},
          {"skipped_probes", overhead.skipped_probes},
          {"ns_per_hit", optional_number(overhead.ns_per_hit)},
          {"seconds", optional_number(overhead.seconds)},
          {"share", optional_number(overhead.share)}};
}

nlohmann::ordered_json overhead_json(const std::optional<Overhead>& overhead) {
  return overhead ? overhead_json(*overhead) : nlohmann::ordered_json(nullptr);
}

}  // namespace iotap::report
