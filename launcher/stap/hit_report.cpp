#include "iotap/stap/hit_report.h"

#include <charconv>

namespace iotap::stap {
namespace {

constexpr std::string_view kHeader = "----- probe hit report: \n";
constexpr std::string_view kRefreshHeader = "----- refresh report:";
constexpr std::string_view kHits = ", hits: ";

}  // namespace

void HitReport::feed(std::string_view bytes) {
  if (in_report_) {
    report_ += bytes;
    return;
  }
  held_ += bytes;
  // held_ starts at a line's start: look for the header at each line start in it.
  size_t line = 0;
  while (line < held_.size()) {
    const std::string_view rest = std::string_view(held_).substr(line);
    if (rest.starts_with(kHeader)) {
      rest_(std::string_view(held_).substr(0, line));
      report_ = rest.substr(kHeader.size());
      held_.clear();
      in_report_ = true;
      return;
    }
    const size_t newline = rest.find('\n');
    if (newline == std::string_view::npos) break;
    line += newline + 1;
  }
  // Everything before the last line's start goes on; the last line too, unless it could still
  // become the header.
  const std::string_view last = std::string_view(held_).substr(line);
  const size_t keep = kHeader.starts_with(last) ? last.size() : 0;
  rest_(std::string_view(held_).substr(0, held_.size() - keep));
  held_.erase(0, held_.size() - keep);
}

void HitReport::finish() {
  if (!held_.empty()) rest_(held_);
  held_.clear();
}

std::optional<uint64_t> HitReport::hits() const {
  if (!in_report_) return std::nullopt;
  uint64_t total = 0;
  std::string_view text = report_;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.starts_with(kRefreshHeader)) break;  // its "hits" are the map refreshes', not probes'
    // The probe point may hold ", hits: " itself (a string in it): the count is the last one.
    const size_t at = line.rfind(kHits);
    if (at == std::string_view::npos) continue;
    uint64_t hits = 0;
    const char* first = line.data() + at + kHits.size();
    const auto [next, error] = std::from_chars(first, line.data() + line.size(), hits);
    if (error == std::errc() && next != first) total += hits;
  }
  return total;
}

}  // namespace iotap::stap
