#include <nlohmann/json.hpp>
#include <string>

#include "iotap/callgraph/formats.h"

namespace iotap::callgraph {
namespace {

using Json = nlohmann::ordered_json;

Json call_json(const Call& call, uint64_t start_ns) {
  Json callees = Json::array();
  for (const Call& callee : call.calls) callees.push_back(call_json(callee, start_ns));
  return {{"function", call.function},
          {"kernel", call.side == Side::kKernel},
          {"entry_ns", call.entry_ns - start_ns},
          {"return_ns", call.return_ns ? Json(*call.return_ns - start_ns) : Json(nullptr)},
          {"arguments", call.arguments},
          {"return", call.return_value},
          {"unwound", call.unwound},
          {"calls", callees}};
}

}  // namespace

nlohmann::ordered_json json_tree(const CallGraph& graph, std::string_view program) {
  Json threads = Json::array();
  for (const ThreadCalls& thread : graph.threads) {
    Json calls = Json::array();
    for (const Call& call : thread.calls) calls.push_back(call_json(call, graph.start_ns));
    threads.push_back({{"pid", thread.pid},
                       {"tid", thread.tid},
                       {"first_ns", thread.first_ns - graph.start_ns},
                       {"last_ns", thread.last_ns - graph.start_ns},
                       {"calls", calls}});
  }
  return {{"schema", "iotap.callgraph/1"},
          {"program", std::string(program)},
          {"start_ns", graph.start_ns},
          {"duration_ns", graph.end_ns - graph.start_ns},
          {"entries", graph.entries},
          {"returns", graph.returns},
          {"unmatched_returns", graph.unmatched_returns},
          {"unfinished_calls", graph.unfinished_calls},
          {"unwound_calls", graph.unwound_calls},
          {"threads", threads}};
}

}  // namespace iotap::callgraph
