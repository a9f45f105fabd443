#include "json_checks.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <string_view>
#include <utility>

namespace iotap::runtime {
namespace {

using nlohmann::json;

// A value the document holds, with where it is (`devices[2].ios`) for the messages.
struct Located {
  std::string where;
  json value;
};

// One side of a check: the values it stands for, or why it has none.
struct Operand {
  std::vector<Located> values;
  std::optional<std::string> problem;
};

Operand one(const std::string& where, json value) {
  Operand operand;
  operand.values.push_back({where, std::move(value)});
  return operand;
}

std::string shortened(const json& value) {
  std::string text = value.dump();
  constexpr size_t kLongest = 200;
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
  return text;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// A filter's value: a JSON literal ("md0", 64, null, true) or, unquoted, a string.
json filter_value(const std::string& text) {
  json value = text;
  if (json::accept(text)) value = json::parse(text);
  return value;
}

// Every object at or below `node`: what `**` selects.
void objects_under(const json& node, const std::string& where, std::vector<Located>& out) {
  if (node.is_object()) {
    out.push_back({where, node});
    for (const auto& [key, value] : node.items()) {
      std::string below = where;
      below.append(".").append(key);
      objects_under(value, below, out);
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      objects_under(node[i], where + "[" + std::to_string(i) + "]", out);
  }
}

class Check {
 public:
  Check(const std::string& line, const json& doc) : text_(line), doc_(doc) {}

  std::vector<std::string> failures() {
    const Operand left = sum();
    skip_spaces();
    const std::string op = comparison();
    const Operand right = sum();
    skip_spaces();
    if (at_ != text_.size()) syntax("unexpected text after the check");
    return compare(left, op, right);
  }

 private:
  [[noreturn]] void syntax(const std::string& what) const {
    throw CheckSyntaxError("column " + std::to_string(at_ + 1) + ": " + what + ": " + text_);
  }
  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  [[nodiscard]] char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool eat(std::string_view token) {
    if (std::string_view(text_).substr(at_).starts_with(token)) {
      at_ += token.size();
      return true;
    }
    return false;
  }
  std::string identifier() {
    const size_t start = at_;
    while (at_ < text_.size() && is_identifier_char(text_[at_])) ++at_;
    return text_.substr(start, at_ - start);
  }

  std::string comparison() {
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">", "contains", "matches"}) {
      if (eat(op)) return op;
    }
    syntax("expected == != < <= > >= contains or matches");
  }

  // sum := product (('+' | '-') product)*
  Operand sum() { return left_to_right("+-", &Check::product); }
  // product := term (('*' | '/') term)*
  Operand product() { return left_to_right("*/", &Check::term); }
  // operand ((one of `ops`) operand)*, each `operand` read by `next`.
  Operand left_to_right(std::string_view ops, Operand (Check::*next)()) {
    Operand left = (this->*next)();
    for (;;) {
      skip_spaces();
      const char op = peek();
      if (op == '\0' || ops.find(op) == std::string_view::npos) return left;
      ++at_;
      left = arithmetic(left, op, (this->*next)());
    }
  }

  static std::optional<double> number(const Operand& operand, Operand& result) {
    if (operand.problem) {
      result.problem = operand.problem;
      return std::nullopt;
    }
    if (operand.values.size() != 1 || !operand.values[0].value.is_number()) {
      result.problem =
          "arithmetic takes one number; " +
          (operand.values.empty()
               ? std::string("a path selects nothing")
               : operand.values[0].where + " is " + shortened(operand.values[0].value) +
                     (operand.values.size() > 1 ? " (one of several)" : ""));
      return std::nullopt;
    }
    return operand.values[0].value.get<double>();
  }
  static Operand arithmetic(const Operand& left, char op, const Operand& right) {
    Operand result;
    const auto a = number(left, result);
    const auto b = number(right, result);
    if (!a || !b) return result;
    double value = 0;
    switch (op) {
      case '+':
        value = *a + *b;
        break;
      case '-':
        value = *a - *b;
        break;
      case '*':
        value = *a * *b;
        break;
      default:
        value = *a / *b;
        break;
    }
    result.values.push_back({left.values[0].where + " " + op + " " + right.values[0].where, value});
    return result;
  }

  // term := '(' sum ')' | literal | FUNCTION '(' path ')' | path
  Operand term() {
    skip_spaces();
    const size_t start = at_;
    const char c = peek();
    if (c == '(') {
      ++at_;
      Operand inner = sum();
      skip_spaces();
      if (!eat(")")) syntax("expected )");
      return inner;
    }
    if (c == '"') {
      const std::string token = literal();
      return one(token, json::parse(token));
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
        (c == '-' && std::isdigit(static_cast<unsigned char>(text_[at_ + 1])) != 0)) {
      ++at_;
      while (at_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[at_])) != 0 ||
                                    text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E'))
        ++at_;
      const std::string token = text_.substr(start, at_ - start);
      if (!json::accept(token)) syntax("not a number: " + token);
      return one(token, json::parse(token));
    }
    const std::string word = identifier();
    if (word.empty()) syntax("expected a path, a JSON literal or a function");
    if (peek() == '(') {
      ++at_;
      const std::vector<Located> values = path();
      if (!eat(")")) syntax("expected ) after " + word + "'s path");
      return function(word, values, text_.substr(start, at_ - start));
    }
    if ((word == "true" || word == "false" || word == "null") && peek() != '.' && peek() != '[')
      return one(word, json::parse(word));
    at_ = start;
    Operand selected;
    selected.values = path();
    return selected;
  }

  // Where the JSON string literal starting at at_ ends (one past its closing quote).
  [[nodiscard]] size_t string_end() const {
    for (size_t i = at_ + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
      } else if (text_[i] == '"') {
        return i + 1;
      }
    }
    syntax("a string that never ends");
  }
  std::string literal() {
    const size_t end = string_end();
    std::string token = text_.substr(at_, end - at_);
    at_ = end;
    if (!json::accept(token)) syntax("not a JSON string: " + token);
    return token;
  }

  static Operand function(const std::string& name, const std::vector<Located>& values,
                          const std::string& where) {
    Operand result;
    if (name == "count") {
      result.values.push_back({where, values.size()});
      return result;
    }
    if (name == "size") {
      if (values.size() != 1 || !(values[0].value.is_array() || values[0].value.is_object() ||
                                  values[0].value.is_string())) {
        result.problem = where + ": size() takes one array, object or string; the path selects " +
                         std::to_string(values.size()) + " values" +
                         (values.empty() ? "" : ", the first " + shortened(values[0].value));
        return result;
      }
      const json& v = values[0].value;
      result.values.push_back({where, v.is_string() ? v.get<std::string>().size() : v.size()});
      return result;
    }
    if (name != "sum" && name != "max" && name != "min")
      throw CheckSyntaxError("unknown function " + name + " (count size sum max min)");
    for (const auto& v : values) {
      if (!v.value.is_number()) {
        result.problem = where + ": " + v.where + " is " + shortened(v.value) + ", not a number";
        return result;
      }
    }
    if (values.empty() && name != "sum") {
      result.problem = where + ": the path selects nothing";
      return result;
    }
    json total = 0;
    if (name == "sum") {
      bool integers = true;
      double sum = 0;
      for (const auto& v : values) {
        integers = integers && v.value.is_number_integer();
        sum += v.value.get<double>();
      }
      total = integers ? json(static_cast<int64_t>(sum)) : json(sum);
    } else {
      const auto less = [](const Located& a, const Located& b) { return a.value < b.value; };
      total = name == "max" ? std::max_element(values.begin(), values.end(), less)->value
                            : std::min_element(values.begin(), values.end(), less)->value;
    }
    result.values.push_back({where, total});
    return result;
  }

  // path := NAME ('.' NAME | '.*' ['!' NAME (',' NAME)*] | '.**' | '[' INDEX | '*' | FILTER ']')*
  std::vector<Located> path() {
    const std::string first = identifier();
    if (first.empty()) syntax("expected a path");
    std::vector<Located> current;
    if (doc_.is_object() && doc_.contains(first)) current.push_back({first, doc_[first]});
    for (;;) {
      if (eat(".**")) {
        std::vector<Located> below;
        for (const auto& v : current) objects_under(v.value, v.where, below);
        current = std::move(below);
      } else if (eat(".*")) {
        current = members(current, excluded());
      } else if (eat(".")) {
        const std::string name = identifier();
        if (name.empty()) syntax("expected a member name after .");
        std::vector<Located> next;
        for (const auto& v : current)
          if (v.value.is_object() && v.value.contains(name))
            next.push_back({v.where + "." + name, v.value[name]});
        current = std::move(next);
      } else if (eat("[")) {
        current = bracket(current);
      } else {
        return current;
      }
    }
  }

  // The names after `.*!`: members left out.
  std::vector<std::string> excluded() {
    std::vector<std::string> names;
    if (!eat("!")) return names;
    do {
      names.push_back(identifier());
      if (names.back().empty()) syntax("expected a member name to leave out");
    } while (eat(","));
    return names;
  }
  static std::vector<Located> members(const std::vector<Located>& current,
                                      const std::vector<std::string>& except) {
    std::vector<Located> next;
    for (const auto& v : current) {
      if (v.value.is_array()) {
        for (size_t i = 0; i < v.value.size(); ++i)
          next.push_back({v.where + "[" + std::to_string(i) + "]", v.value[i]});
      } else if (v.value.is_object()) {
        for (const auto& [key, value] : v.value.items())
          if (std::find(except.begin(), except.end(), key) == except.end())
            next.push_back({v.where + "." + key, value});
      }
    }
    return next;
  }

  // After '[': an index (-1 is the last element), '*', or a filter FIELD=VALUE, FIELD!=VALUE or
  // FIELD~REGEX, the value a JSON literal or text up to the ']'.
  std::vector<Located> bracket(const std::vector<Located>& current) {
    if (eat("*]")) return members(current, {});
    const size_t start = at_;
    if (peek() == '-') ++at_;
    const std::string digits = identifier();
    if (!digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit) && eat("]")) {
      const long index = std::stol(text_.substr(start, at_ - 1 - start));
      std::vector<Located> next;
      for (const auto& v : current) {
        if (!v.value.is_array()) continue;
        const long size = static_cast<long>(v.value.size());
        const long i = index < 0 ? size + index : index;
        if (i >= 0 && i < size)
          next.push_back(
              {v.where + "[" + std::to_string(i) + "]", v.value[static_cast<size_t>(i)]});
      }
      return next;
    }
    at_ = start;
    const std::string field = identifier();
    if (field.empty()) syntax("expected an index, * or FIELD=VALUE in [ ]");
    std::string op;
    for (const char* candidate : {"!=", "=", "~"})
      if (op.empty() && eat(candidate)) op = candidate;
    if (op.empty()) syntax("expected = != or ~ after " + field);
    std::string value;
    if (peek() == '"') {
      value = literal();
      if (op == "~") value = json::parse(value).get<std::string>();
    } else {
      const size_t end = text_.find(']', at_);
      if (end == std::string::npos) syntax("a [ without its ]");
      value = text_.substr(at_, end - at_);
      at_ = end;
    }
    if (!eat("]")) syntax("expected ]");
    const std::string filter = "[" + field + op + value + "]";
    std::optional<std::regex> pattern;
    try {
      if (op == "~") pattern.emplace(value);
    } catch (const std::regex_error& e) {
      syntax("not a regex: " + value + " (" + e.what() + ")");
    }
    const json wanted = filter_value(value);
    const auto keeps = [&](const json& node) {
      if (!node.is_object() || !node.contains(field)) return false;
      const json& have = node[field];
      if (pattern) return have.is_string() && std::regex_search(have.get<std::string>(), *pattern);
      return (have == wanted) == (op == "=");
    };
    std::vector<Located> next;
    for (const auto& v : current) {
      if (v.value.is_array()) {
        for (size_t i = 0; i < v.value.size(); ++i)
          if (keeps(v.value[i]))
            next.push_back({v.where + "[" + std::to_string(i) + "]", v.value[i]});
      } else if (keeps(v.value)) {
        next.push_back({v.where + filter, v.value});
      }
    }
    return next;
  }

  static bool holds(const json& a, const std::string& op, const json& b) {
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "contains") {
      if (a.is_string() && b.is_string())
        return a.get<std::string>().find(b.get<std::string>()) != std::string::npos;
      return a.is_array() && std::find(a.begin(), a.end(), b) != a.end();
    }
    if (op == "matches")
      return a.is_string() && b.is_string() &&
             std::regex_search(a.get<std::string>(), std::regex(b.get<std::string>()));
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.get<double>();
    const double y = b.get<double>();
    if (op == "<") return x < y;
    if (op == "<=") return x <= y;
    if (op == ">") return x > y;
    return x >= y;
  }

  static std::vector<std::string> compare(const Operand& left, const std::string& op,
                                          const Operand& right) {
    std::vector<std::string> out;
    for (const Operand* side : {&left, &right}) {
      if (side->problem) out.push_back(*side->problem);
    }
    if (!out.empty()) return out;
    for (const Operand* side : {&left, &right}) {
      if (side->values.empty())
        out.push_back((side == &left ? "the left side" : "the right side") +
                      std::string(" selects nothing in the document"));
    }
    if (!out.empty()) return out;
    for (const auto& a : left.values) {
      for (const auto& b : right.values) {
        if (holds(a.value, op, b.value)) continue;
        std::string message = a.where + " is " + shortened(a.value) + ", not " + op + " ";
        message += b.where == b.value.dump() ? b.where : b.where + " (" + shortened(b.value) + ")";
        out.push_back(message);
      }
    }
    return out;
  }

  const std::string& text_;
  const json& doc_;
  size_t at_ = 0;
};

}  // namespace

void parse_json_check(const std::string& line) {
  const json nothing;
  (void)Check(line, nothing).failures();
}

std::vector<std::string> json_check_failures(const std::string& line, const json& doc) {
  return Check(line, doc).failures();
}

}  // namespace iotap::runtime
