#include <utility>

#include "sections.h"

namespace iotap::report::attribution_json {

Json time_split(const engine::TimeSplit& t) {
  return {{"reads_stack", t.reads_stack_us},
          {"reads_cache", t.reads_cache_us},
          {"writes", t.writes_us},
          {"other", t.other_us}};
}

// The provider's levels, outermost first; [] without them.
Json levels(const engine::Result& r) {
  Json out = Json::array();
  for (const auto& level : r.levels)
    out.push_back({{"name", level.name},
                   {"plural", level.plural},
                   {"count", level.count},
                   {"errors", level.errors},
                   {"unfinished", level.unfinished},
                   {"latency_us", latency_us(level.latency)},
                   {"time_us", time_split(level.time)},
                   {"io",
                    {{"reads_stack", level.reads_stack},
                     {"reads_cache", level.reads_cache},
                     {"writes", level.writes}}}});
  return out;
}

// The slowest tenth of the outermost level's requests: how many, and the shares of their time
// spent on reads and on reads that reached the stack. Null without levels.
Json slowest_time(const engine::Result& r) {
  if (r.levels.empty()) return nullptr;
  return {{"requests", r.slowest_time.requests},
          {"reads_share", r.slowest_time.reads_share},
          {"stack_share", r.slowest_time.stack_share}};
}

}  // namespace iotap::report::attribution_json
