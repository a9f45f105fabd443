#pragma once
// What a SystemTap example's .meta file says about running it: the test_installcheck line
// ("stap NAME.stp ARGS... [-T SECONDS] [-c COMMAND]") cut into the script's arguments and stap
// options, and the command it traces. -T (a time limit) is dropped: in the conformance suite the
// traced workload sets how long a run lasts.
#include <string>
#include <vector>

namespace iotap::test {

struct Installcheck {
  std::vector<std::string> args;  // arguments and stap options, in order
  std::string command;            // -c's text; empty when the line has none
};

// Throws std::runtime_error when META has no "test_installcheck: stap X.stp ..." line.
Installcheck read_installcheck(const std::string& meta_path);

}  // namespace iotap::test
