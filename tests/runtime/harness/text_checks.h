#pragma once
// A runtime case's `stdout` and `stderr` files: one check per line on what iotap printed there
// (tests/README.md, "stdout and stderr"):
//   has TEXT          TEXT occurs            lacks TEXT        TEXT does not occur
//   is TEXT           the whole stream is TEXT
//   match REGEX       REGEX matches somewhere   no-match REGEX   REGEX matches nowhere
//   lines REGEX OP N  the number of lines REGEX matches whole is OP N (== != < <= > >=)
// TEXT takes \n, \t, \\ and \xHH escapes; REGEX is ECMAScript (std::regex), where \n is a
// newline too.
#include <string>
#include <vector>

namespace iotap::runtime {

// Parses one line; throws CheckSyntaxError (json_checks.h).
void parse_text_check(const std::string& line);

// What is wrong with `stream` (the output named `name`, for the messages) by the check `line`;
// empty when it holds.
std::vector<std::string> text_check_failures(const std::string& line, const std::string& name,
                                             const std::string& stream);

// TEXT's escapes turned into the characters they stand for.
std::string unescaped(const std::string& text);

}  // namespace iotap::runtime
