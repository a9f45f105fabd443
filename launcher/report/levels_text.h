#pragma once
// The text report's parts for a provider's levels (queries, their buffer reads, smgr reads):
// the table of levels with each one's time split, the sentence on the slowest of the unit, and
// the slowest queries' waterfalls with their reads under them. text.cpp puts them in place.
#include <string>

#include "iotap/engine.h"

namespace iotap::report {

// "queries: 20 queries (postgresql's USDT probes), 0 errors; latency us: ..." and a row per
// level: count, latency, and the shares of its time. Empty without levels.
std::string levels_lines(const engine::Result& r);

// "the 10 slowest queries spent 71.6% of their time waiting on reads (71.6% on reads that
// reached the stack), 99.2% of that on ram1"; empty without levels or without such queries.
std::string slowest_unit_line(const engine::Result& r);

// The slowest outermost requests, each with its text, its time split and the slowest I/O inside
// it with that I/O's stages.
std::string level_waterfalls(const engine::Result& r);

// A waterfall's stages, from its start, each line starting with `indent`.
std::string stage_table(const engine::Waterfall& w, const std::string& indent);

// The unit's plural ("queries"), or "requests" without levels.
std::string unit_plural(const engine::Result& r);

}  // namespace iotap::report
