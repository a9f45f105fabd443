#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "iotap/callgraph/formats.h"

namespace iotap::callgraph {
namespace {

using Json = nlohmann::ordered_json;

double microseconds(uint64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

void add_slices(const Call& call, const ThreadCalls& thread, uint64_t start_ns, Json& events) {
  Json args = Json::object();
  if (!call.arguments.empty()) args["arguments"] = call.arguments;
  if (call.unwound) {
    args["unwound"] = true;
  } else if (call.return_ns) {
    if (!call.return_value.empty()) args["return"] = call.return_value;
  } else {
    args["unfinished"] = true;
  }
  events.push_back({{"ph", "X"},
                    {"name", call.function},
                    {"cat", call.side == Side::kKernel ? "kernel" : "user"},
                    {"pid", thread.pid},
                    {"tid", thread.tid},
                    {"ts", microseconds(call.entry_ns - start_ns)},
                    {"dur", microseconds(end_ns(call, thread) - call.entry_ns)},
                    {"args", args}});
  for (const Call& callee : call.calls) add_slices(callee, thread, start_ns, events);
}

}  // namespace

std::string perfetto_format(const CallGraph& graph, std::string_view program) {
  Json events = Json::array();
  std::set<int> named_processes;
  for (const ThreadCalls& thread : graph.threads) {
    if (named_processes.insert(thread.pid).second) {
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", thread.pid},
                        {"tid", thread.pid},
                        {"args", {{"name", std::string(program)}}}});
    }
    events.push_back(
        {{"ph", "M"},
         {"name", "thread_name"},
         {"pid", thread.pid},
         {"tid", thread.tid},
         {"args", {{"name", std::string(program) + " " + std::to_string(thread.tid)}}}});
    for (const Call& call : thread.calls) add_slices(call, thread, graph.start_ns, events);
  }
  const Json trace{{"displayTimeUnit", "ns"}, {"traceEvents", events}};
  // Arguments are whatever the program held: replace bytes that are not UTF-8.
  return trace.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace iotap::callgraph
