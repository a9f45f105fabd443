#include "recorded.h"

#include <gtest/gtest.h>

#include <fstream>

namespace iotap::callgraph::test {

std::vector<std::string> recorded_lines(const std::string& name) {
  std::ifstream in(std::string(CALLGRAPH_DATA_DIR) + "/" + name);
  EXPECT_TRUE(in) << "cannot read recorded data " << name;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << name << " is empty";
  return lines;
}

CallGraph recorded_graph(const std::string& name) {
  CallTreeBuilder builder;
  for (const auto& line : recorded_lines(name)) {
    auto event = parse_call_event(line);
    EXPECT_TRUE(event) << "not an event: " << line;
    if (event) builder.add(std::move(*event));
  }
  return builder.build();
}

namespace {
void collect(const std::vector<Call>& calls, const std::string& function,
             std::vector<const Call*>& out) {
  for (const Call& call : calls) {
    if (call.function == function) out.push_back(&call);
    collect(call.calls, function, out);
  }
}
}  // namespace

std::vector<const Call*> find_calls(const std::vector<Call>& calls, const std::string& function) {
  std::vector<const Call*> out;
  collect(calls, function, out);
  return out;
}

}  // namespace iotap::callgraph::test
