#include "iotap/provider/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace iotap::provider {

namespace {

// sys/sdt.h's probes take at most 12 arguments.
constexpr int kMostArguments = 12;

std::string factor_text(const Expression::Factor& factor) {
  if (const auto* argument = std::get_if<Argument>(&factor))
    return "$arg" + std::to_string(argument->index);
  return std::to_string(std::get<int64_t>(factor));
}

std::string joined(const Expression& expression, bool as_stap) {
  std::string out;
  for (const auto& product : expression.terms()) {
    if (!out.empty()) out += " + ";
    std::string term;
    for (const auto& factor : product) {
      if (!term.empty()) term += " * ";
      term += factor_text(factor);
    }
    out += term;
  }
  return as_stap ? "(" + out + ")" : out;
}

}  // namespace

// Reads `$argN`, integers, `+` and `*`, spaces anywhere between them.
struct ExpressionParser {
  std::string_view text;
  size_t at = 0;
  std::string error;

  void skip_spaces() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  }

  [[nodiscard]] std::string found() const {
    if (at >= text.size()) return "the end";
    size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    return "'" + std::string(text.substr(at, end - at)) + "'";
  }

  std::optional<int64_t> digits() {
    const size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
    int64_t value = 0;
    const auto [end, problem] = std::from_chars(text.data() + start, text.data() + at, value);
    if (start == at || problem != std::errc() || end != text.data() + at) return std::nullopt;
    return value;
  }

  std::optional<Expression::Factor> factor() {
    skip_spaces();
    const size_t start = at;
    if (text.substr(at, 4) == "$arg") {
      at += 4;
      const auto index = digits();
      if (index && *index >= 1 && *index <= kMostArguments)
        return Argument{static_cast<int>(*index)};
      at = start;
      error = "expected $arg1 to $arg12, found " + found();
      return std::nullopt;
    }
    if (const auto value = digits()) return *value;
    at = start;
    const bool too_large =
        start < text.size() && std::isdigit(static_cast<unsigned char>(text[start])) != 0;
    error = too_large ? "the integer " + found() + " is too large (at most 9223372036854775807)"
                      : "expected $argN or an integer, found " + found();
    return std::nullopt;
  }

  std::optional<Expression::Product> product() {
    Expression::Product out;
    for (;;) {
      auto next = factor();
      if (!next) return std::nullopt;
      out.push_back(*next);
      skip_spaces();
      if (at >= text.size() || text[at] != '*') return out;
      ++at;
    }
  }

  std::optional<Expression> sum() {
    Expression out;
    for (;;) {
      auto next = product();
      if (!next) return std::nullopt;
      out.terms_.push_back(std::move(*next));
      skip_spaces();
      if (at >= text.size()) return out;
      if (text[at] != '+') {
        error = "expected + or * or the end, found " + found();
        return std::nullopt;
      }
      ++at;
    }
  }
};

Expression Expression::zero() {
  Expression out;
  out.terms_ = {{int64_t{0}}};
  return out;
}

int Expression::highest_argument() const {
  int highest = 0;
  for (const auto& product : terms_)
    for (const auto& factor : product)
      if (const auto* argument = std::get_if<Argument>(&factor))
        highest = std::max(highest, argument->index);
  return highest;
}

std::string Expression::to_stap() const {
  return joined(*this, true);
}

std::string Expression::to_text() const {
  return joined(*this, false);
}

ParsedExpression parse_expression(std::string_view text) {
  ExpressionParser parser{text, 0, {}};
  auto expression = parser.sum();
  if (!expression) return {std::nullopt, parser.error};
  return {std::move(expression), ""};
}

}  // namespace iotap::provider
