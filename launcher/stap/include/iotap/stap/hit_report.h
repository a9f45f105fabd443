#pragma once
// stap -t's probe hit report, taken out of a script's output. With -t (STP_TIMING) the module,
// as it exits, prints into the script's own output "----- probe hit report: ", a line per probe
// that fired ("PP, (LOCATION), hits: N, cycles: AminBavgCmax, variance: V, from: ..., index: I"),
// then "----- refresh report:" and its own lines. HitReport passes on everything before the
// report, as it comes (a line is never held back once it is whole, and a partial line only while
// it could still be the report's first), and counts the hits in the report.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace iotap::stap {

class HitReport {
 public:
  explicit HitReport(std::function<void(std::string_view)> rest) : rest_(std::move(rest)) {}

  void feed(std::string_view bytes);
  // The output ended: a partial line held back goes on.
  void finish();

  // The probes' hits, summed over the report's probe lines; none until the report has come.
  [[nodiscard]] std::optional<uint64_t> hits() const;

 private:
  std::function<void(std::string_view)> rest_;
  std::string held_;  // output from a line's start that could still become the report's header
  std::string report_;
  bool in_report_ = false;
};

}  // namespace iotap::stap
