#pragma once
// The call graph's output formats, each a pure function of the graph. `program` names the
// traced program (its file name) where a format shows one.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "iotap/callgraph/call_tree.h"

namespace iotap::callgraph {

// para-callgraph's indented tree, one section per thread:
//   "   12.345 block_hasher(1234):  ->open path=... direct=1"
//   "   98.001 block_hasher(1234):  <-open return=... (85.656 us)"
// times in microseconds since the run's first event; kernel functions marked " [k]".
std::string text_format(const CallGraph& graph, std::string_view program);

// FlameGraph's folded stacks: "block_hasher-1234;main;run;read_blocks 1234", one line per call
// path, weighted by the microseconds spent in that path's last function itself (its own time,
// without its callees'), so a flame graph's widths are time. Kernel frames end in "_[k]".
std::string folded_format(const CallGraph& graph, std::string_view program);

// Chrome trace JSON (ui.perfetto.dev, chrome://tracing): a track per thread, one complete
// ("X") slice per call, arguments and return value in the slice's args.
std::string perfetto_format(const CallGraph& graph, std::string_view program);

// The tree as JSON (schema "iotap.callgraph/1", docs/toolbox.md); the verb adds the run's
// details (exit status, stack) to it.
nlohmann::ordered_json json_tree(const CallGraph& graph, std::string_view program);

}  // namespace iotap::callgraph
