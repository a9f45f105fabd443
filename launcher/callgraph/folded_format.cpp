#include <algorithm>
#include <map>
#include <string>

#include "iotap/callgraph/formats.h"

namespace iotap::callgraph {
namespace {

using Weights = std::map<std::string, uint64_t>;  // call path -> own time, ns

// ';' separates frames: a name must not hold one (C++ names never do; be sure).
std::string frame(const Call& call) {
  std::string name = call.function;
  std::replace(name.begin(), name.end(), ';', ':');
  return call.side == Side::kKernel ? name + "_[k]" : name;
}

// Adds `call`'s own time under `path`, then its callees'. Returns its whole duration.
uint64_t add_call(const Call& call, const ThreadCalls& thread, const std::string& parent_path,
                  std::vector<std::string>& order, Weights& weights) {
  const std::string path = parent_path + ";" + frame(call);
  const uint64_t duration = end_ns(call, thread) - call.entry_ns;
  uint64_t in_callees = 0;
  for (const Call& callee : call.calls)
    in_callees += add_call(callee, thread, path, order, weights);
  if (!weights.contains(path)) order.push_back(path);
  // A callee can outlast its caller only when the caller's return was lost; never negative.
  weights[path] += duration > in_callees ? duration - in_callees : 0;
  return duration;
}

}  // namespace

std::string folded_format(const CallGraph& graph, std::string_view program) {
  std::vector<std::string> order;  // first appearance, so related paths stay together
  Weights weights;
  for (const ThreadCalls& thread : graph.threads) {
    const std::string root = std::string(program) + "-" + std::to_string(thread.tid);
    for (const Call& call : thread.calls) add_call(call, thread, root, order, weights);
  }
  std::string out;
  for (const std::string& path : order) {
    // Rounded to the nearest microsecond: flamegraph.pl wants whole numbers.
    out += path + " " + std::to_string((weights[path] + 500) / 1000) + "\n";
  }
  return out;
}

}  // namespace iotap::callgraph
