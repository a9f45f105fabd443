#include "text_checks.h"

#include <regex>
#include <sstream>

#include "json_checks.h"

namespace iotap::runtime {
namespace {

// A parsed line: its keyword and the rest, and for `lines` the comparison at its end.
struct TextCheck {
  std::string keyword;
  std::string argument;
  std::string op;
  long count = 0;
};

std::regex regex_of(const std::string& text) {
  try {
    return std::regex(text);
  } catch (const std::regex_error& e) {
    throw CheckSyntaxError("not a regex: " + text + " (" + e.what() + ")");
  }
}

TextCheck parsed(const std::string& line) {
  const size_t space = line.find(' ');
  TextCheck check;
  check.keyword = line.substr(0, space);
  check.argument = space == std::string::npos ? "" : line.substr(space + 1);
  const std::string& k = check.keyword;
  if (k != "has" && k != "lacks" && k != "is" && k != "match" && k != "no-match" && k != "lines")
    throw CheckSyntaxError("unknown check '" + k +
                           "' (has lacks is match no-match lines): " + line);
  if (k != "is" && check.argument.empty())
    throw CheckSyntaxError("'" + k + "' needs its text: " + line);
  if (k == "lines") {
    // lines REGEX OP N: the last two words are the comparison.
    const size_t n_at = check.argument.rfind(' ');
    const size_t op_at = n_at == std::string::npos ? n_at : check.argument.rfind(' ', n_at - 1);
    if (op_at == std::string::npos) throw CheckSyntaxError("expected 'lines REGEX OP N': " + line);
    check.op = check.argument.substr(op_at + 1, n_at - op_at - 1);
    const std::string n = check.argument.substr(n_at + 1);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
      throw CheckSyntaxError("expected a count after " + check.op + ": " + line);
    if (check.op != "==" && check.op != "!=" && check.op != "<" && check.op != "<=" &&
        check.op != ">" && check.op != ">=")
      throw CheckSyntaxError("expected == != < <= > >= before the count: " + line);
    check.count = std::stol(n);
    check.argument = check.argument.substr(0, op_at);
  }
  if (k == "match" || k == "no-match" || k == "lines") (void)regex_of(check.argument);
  return check;
}

bool compares(long have, const std::string& op, long want) {
  if (op == "==") return have == want;
  if (op == "!=") return have != want;
  if (op == "<") return have < want;
  if (op == "<=") return have <= want;
  if (op == ">") return have > want;
  return have >= want;
}

}  // namespace

std::string unescaped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    if (c == 'n') {
      out += '\n';
    } else if (c == 't') {
      out += '\t';
    } else if (c == 'x' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += c;  // \\ and anything else: the character itself
    }
  }
  return out;
}

void parse_text_check(const std::string& line) {
  (void)parsed(line);
}

std::vector<std::string> text_check_failures(const std::string& line, const std::string& name,
                                             const std::string& stream) {
  const TextCheck check = parsed(line);
  const std::string& k = check.keyword;
  const std::string text = unescaped(check.argument);
  bool holds = true;
  std::string why;
  if (k == "has" || k == "lacks") {
    holds = (stream.find(text) != std::string::npos) == (k == "has");
  } else if (k == "is") {
    holds = stream == text;
  } else if (k == "match" || k == "no-match") {
    holds = std::regex_search(stream, regex_of(check.argument)) == (k == "match");
  } else {
    const std::regex pattern = regex_of(check.argument);
    long matching = 0;
    std::istringstream lines(stream);
    for (std::string one; std::getline(lines, one);)
      matching += std::regex_match(one, pattern) ? 1 : 0;
    holds = compares(matching, check.op, check.count);
    why = " (" + std::to_string(matching) + " lines match)";
  }
  if (holds) return {};
  return {name + " fails '" + line + "'" + why};
}

}  // namespace iotap::runtime
