#include "levels_text.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "table.h"
#include "words.h"

namespace iotap::report {
namespace {

using Align = Table::Align;

double total_us(const engine::TimeSplit& t) {
  return t.reads_stack_us + t.reads_cache_us + t.writes_us + t.other_us;
}

// The four shares of a split, as table cells.
std::vector<std::string> shares(const engine::TimeSplit& t) {
  const double total = total_us(t);
  const auto share = [total](double part) { return percent(total == 0 ? 0 : part / total); };
  return {share(t.reads_stack_us), share(t.reads_cache_us), share(t.writes_us), share(t.other_us)};
}

}  // namespace

std::string unit_plural(const engine::Result& r) {
  return r.levels.empty() ? std::string("requests") : r.levels.front().plural;
}

std::string levels_lines(const engine::Result& r) {
  if (r.levels.empty()) return "";
  const engine::LevelResult& unit = r.levels.front();
  const std::string provider =
      (r.request_provider.empty() ? std::string("the program") : r.request_provider) +
      "'s USDT probes";
  std::string text = unit.plural + ": " + plural(unit.count, unit.name, unit.plural) + " (" +
                     provider + "), " + plural(unit.errors, "error", "errors");
  if (unit.count > 0)
    text += "; latency us: mean " + us(unit.latency.mean_us) + ", p50 " + us(unit.latency.p50_us) +
            ", p95 " + us(unit.latency.p95_us) + ", p99 " + us(unit.latency.p99_us) + ", max " +
            us(unit.latency.max_us);
  text += "\n";
  Table table({{"level", Align::left},
               {"count", Align::right},
               {"errors", Align::right},
               {"unfinished", Align::right},
               {"mean us", Align::right},
               {"p99 us", Align::right},
               {"reads: stack", Align::right},
               {"reads: cache", Align::right},
               {"writes", Align::right},
               {"other", Align::right}});
  for (const auto& level : r.levels) {
    std::vector<std::string> cells{level.name,
                                   std::to_string(level.count),
                                   std::to_string(level.errors),
                                   std::to_string(level.unfinished),
                                   us(level.latency.mean_us),
                                   us(level.latency.p99_us)};
    for (auto& cell : shares(level.time)) cells.push_back(std::move(cell));
    table.row(std::move(cells));
  }
  text += table.render("  ");
  text +=
      "  (shares of each level's time: waiting on reads that reached the stack, reads the page "
      "cache served, writes; other: CPU, locks, the rest)\n";
  return text;
}

std::string slowest_unit_line(const engine::Result& r) {
  const engine::SlowestTime& tail = r.slowest_time;
  if (r.levels.empty() || tail.requests == 0) return "";
  std::string text = "the " + std::to_string(tail.requests) + " slowest " +
                     (tail.requests == 1 ? r.levels.front().name : r.levels.front().plural) +
                     " spent " + percent(tail.reads_share) + " of " +
                     (tail.requests == 1 ? "its" : "their") + " time waiting on reads (" +
                     percent(tail.stack_share) + " on reads that reached the stack)";
  // The slow member named first carries the largest share.
  if (!r.slow_members.empty() && tail.reads_share > 0)
    text += ", " + percent(r.slow_members.front().share_of_slowest / tail.reads_share) +
            " of that on " + r.slow_members.front().name;
  return text + "\n";
}

std::string stage_table(const engine::Waterfall& w, const std::string& indent) {
  Table table({{"stage", Align::left},
               {"device", Align::left},
               {"start us", Align::right},
               {"dwell us", Align::right}});
  for (const auto& s : w.stages) {
    const double start = s.start_ns >= w.start_ns ? static_cast<double>(s.start_ns - w.start_ns)
                                                  : -static_cast<double>(w.start_ns - s.start_ns);
    const double dwell = s.end_ns >= s.start_ns ? static_cast<double>(s.end_ns - s.start_ns) : 0;
    const std::string device =
        s.bios > 1 ? s.device + " (" + std::to_string(s.bios) + " bios)" : s.device;
    table.row({s.layer, device, us(start / 1000), us(dwell / 1000)});
  }
  return table.render(indent);
}

std::string level_waterfalls(const engine::Result& r) {
  std::string text = "slowest " + unit_plural(r) + ":\n";
  for (const auto& w : r.slowest) {
    const std::vector<std::string> split = shares(w.time);
    text += "  " + w.level + " " + std::to_string(w.request_id) + " (tid " +
            std::to_string(w.thread) + ", result " + std::to_string(w.result) +
            "): " + us(static_cast<double>(w.latency_ns) / 1000) + " us; reads: stack " + split[0] +
            ", cache " + split[1] + "; writes " + split[2] + "; other " + split[3] + "; " +
            plural(w.leaves, "I/O", "I/Os") + " inside\n";
    if (!w.text.empty()) text += "    " + w.text + "\n";
    for (const auto& inner : w.inner) {
      const double at = inner.start_ns >= w.start_ns
                            ? static_cast<double>(inner.start_ns - w.start_ns)
                            : -static_cast<double>(w.start_ns - inner.start_ns);
      text += "    " + inner.call + " at " + us(at / 1000) + " us (offset " +
              std::to_string(inner.offset) + ", " + std::to_string(inner.size) +
              " bytes): " + us(static_cast<double>(inner.latency_ns) / 1000) + " us\n";
      text += stage_table(inner, "      ");
    }
  }
  return text;
}

}  // namespace iotap::report
