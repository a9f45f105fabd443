#pragma once
// One runtime case: a directory of small files (tests/README.md) read into what the harness runs
// and what it checks.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace iotap::runtime {

// A case directory that does not read: the message names the file and line.
class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A check, with where it was written ("stdout:3") for the messages.
struct CheckLine {
  std::string where;
  std::string text;
};

struct RuntimeCase {
  std::string dir;
  std::vector<std::string> args;  // iotap's arguments: `command`, with `stack` as --stack
  std::vector<std::string> env;   // NAME=value, from `env`
  int exit_status = 0;            // `exit`
  std::vector<CheckLine> stdout_checks;
  std::vector<CheckLine> stderr_checks;
  std::vector<CheckLine> json_checks;  // on stdout, which must be one JSON document
  std::vector<CheckLine> requirements;
};

// {tests}, {examples}, {guest_kernel} (and, added by read_case, {case} and {area}): what each
// stands for in the case's files.
using Placeholders = std::map<std::string, std::string>;

// Reads and checks every file of the case at `dir`; throws CaseError.
RuntimeCase read_case(const std::string& dir, Placeholders placeholders);

}  // namespace iotap::runtime
