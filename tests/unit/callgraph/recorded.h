#pragma once
// Recorded guest output of examples/callgraph.stp (tests/unit/data/callgraph_*.txt, taken with
// `iotap callgraph --format raw`), read back as events and as a built graph.
#include <string>
#include <vector>

#include "iotap/callgraph/call_event.h"
#include "iotap/callgraph/call_tree.h"

namespace iotap::callgraph::test {

// Every line of the file; the test fails when the file cannot be read.
std::vector<std::string> recorded_lines(const std::string& name);
CallGraph recorded_graph(const std::string& name);

// The calls of `calls` named `function`, in order, at any depth (depth-first).
std::vector<const Call*> find_calls(const std::vector<Call>& calls, const std::string& function);

}  // namespace iotap::callgraph::test
