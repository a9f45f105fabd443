#pragma once
// Every verb is a function from its arguments (everything after the verb's name) to an exit
// status. Verbs parse their own options with Boost.Program_options; main() only dispatches.
#include <span>
#include <string>
#include <string_view>

namespace iotap::verbs {

using Args = std::span<const std::string>;

int probes(Args args);
int providers(Args args);
int run(Args args);
int demo(Args args);
int attribute(Args args);
int diagnose(Args args);
int callgraph(Args args);
int latency(Args args);
int iotime(Args args);
int top(Args args);
int record(Args args);
int replay(Args args);
int compare(Args args);
int report(Args args);
int guest(Args args);
int doctor(Args args);

struct Verb {
  std::string_view name;
  std::string_view summary;
  int (*main)(Args);
};

// The verbs in the order `iotap --help` lists them.
std::span<const Verb> all();

}  // namespace iotap::verbs
