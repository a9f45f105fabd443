#pragma once
// What the probes cost the run they measured, reported beside its results: the probe hits (the
// stream's events and the hits stap skipped) and, where the cost of one hit has been measured
// for this kind of target (bench/overhead, docs/performance.md), the time they added.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "iotap/engine.h"

namespace iotap::report {

struct Overhead {
  uint64_t probe_hits = 0;
  uint64_t skipped_probes = 0;
  std::optional<double> ns_per_hit;  // measured on this kind of target; none: not measured
  std::optional<double> seconds;     // probe_hits x ns_per_hit
  std::optional<double> share;       // of the run (which holds them): seconds / run
};

Overhead overhead(const engine::Result& result, std::optional<double> ns_per_hit);
// From counted hits (stap -t's report: stap/hit_report.h), over a run of `run_seconds` when
// known (the share is left out otherwise).
Overhead overhead(uint64_t probe_hits, uint64_t skipped_probes, std::optional<double> run_seconds,
                  std::optional<double> ns_per_hit);

// "overhead: 65.5k probe hits, 0 skipped, ~0.56 s (62% of the run at 9 us per hit)", or without
// the time when the cost per hit is not measured for the target.
std::string overhead_line(const Overhead& overhead);

// {"probe_hits", "skipped_probes", "ns_per_hit", "seconds", "share"}; null where not measured.
nlohmann::ordered_json overhead_json(const Overhead& overhead);
// The same, or null for a run whose module never reported its hits (it never reached its end).
nlohmann::ordered_json overhead_json(const std::optional<Overhead>& overhead);

}  // namespace iotap::report
