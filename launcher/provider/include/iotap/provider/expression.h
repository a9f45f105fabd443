#pragma once
// A provider's arithmetic over a probe's arguments: `$arg2 * 8192`, `$arg7`, `8192`,
// `$arg3 + $arg4 * 512`. The whole grammar is a sum of products of arguments and decimal
// integers; it is parsed and checked here and written out by iotap, so nothing a provider file
// says reaches stap's code unchecked.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace iotap::provider {

struct Argument {
  int index = 0;  // $argN, from 1
  friend bool operator==(const Argument&, const Argument&) = default;
};

class Expression {
 public:
  using Factor = std::variant<Argument, int64_t>;
  using Product = std::vector<Factor>;

  static Expression zero();

  // The terms, each a product; an empty expression is never made (zero() is the integer 0).
  [[nodiscard]] const std::vector<Product>& terms() const { return terms_; }
  // The highest $argN it reads, 0 for none.
  [[nodiscard]] int highest_argument() const;
  // As stap code: "($arg2 * 8192)".
  [[nodiscard]] std::string to_stap() const;
  // As written in a provider file, normalised: "$arg2 * 8192".
  [[nodiscard]] std::string to_text() const;

 private:
  friend struct ExpressionParser;
  std::vector<Product> terms_;
};

// `text` parsed, or the reason it is not an expression ("expected $argN or an integer, found
// 'x'"). Arguments are checked against nothing here: the caller knows the probe's count.
struct ParsedExpression {
  std::optional<Expression> expression;
  std::string error;
};
ParsedExpression parse_expression(std::string_view text);

}  // namespace iotap::provider
