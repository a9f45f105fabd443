#pragma once
// A runtime case's `json` file: one check per line on the JSON document iotap printed on stdout,
// `EXPR OP EXPR` (tests/README.md, "json"). An EXPR is a JSON literal, a path into the document
// (`verdict.slow_members[0].spec`, `devices[parent=md0].ios`), count/size/sum/max/min of a
// path, or those joined by + - * /. A path that selects several values holds the check for each
// one; a path that selects nothing fails it: a check never passes on nothing.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace iotap::runtime {

// A check line that does not parse; the message says where.
class CheckSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses one line of a `json` file; throws CheckSyntaxError.
void parse_json_check(const std::string& line);

// What is wrong with the document by the check `line` (one message per value that fails it);
// empty when it holds. Throws CheckSyntaxError.
std::vector<std::string> json_check_failures(const std::string& line, const nlohmann::json& doc);

}  // namespace iotap::runtime
