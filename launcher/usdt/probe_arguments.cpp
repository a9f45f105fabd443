#include "probe_arguments.h"

#include <string>

namespace iotap::usdt {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Splits off one argument, honouring brackets so "[sp, 16]" stays whole.
Expected<std::string_view> next_token(std::string_view& rest) {
  int depth = 0;
  std::size_t end = 0;
  for (; end < rest.size(); ++end) {
    const char c = rest[end];
    if (c == ' ' && depth == 0) {
      break;
    }
    if (c == '(' || c == '[') {
      ++depth;
    }
    if (c == ')' || c == ']') {
      if (--depth < 0) {
        return Unexpected{"'" + std::string(rest.substr(0, end + 1)) +
                          "' closes a bracket it never opened"};
      }
    }
  }
  const std::string_view token = rest.substr(0, end);
  if (depth != 0) {
    return Unexpected{"'" + std::string(token) + "' leaves a bracket open"};
  }
  rest.remove_prefix(end);
  return token;
}

Expected<Argument> parse_one(std::string_view token) {
  std::size_t i = token.starts_with('-') ? 1 : 0;
  const std::size_t digits_begin = i;
  while (i < token.size() && is_digit(token[i])) {
    ++i;
  }
  const std::size_t digits_end = i;
  const bool is_float = i < token.size() && token[i] == 'f';
  if (is_float) {
    ++i;
  }
  const bool sized = digits_end > digits_begin && i < token.size() && token[i] == '@';
  if (!sized) {
    return Argument{
        .size_bytes = 0, .is_signed = false, .is_float = false, .operand = std::string(token)};
  }

  const std::string_view digits = token.substr(digits_begin, digits_end - digits_begin);
  const std::string quoted = "'" + std::string(token) + "'";
  // Three digits already exceed every valid size; stopping there keeps the arithmetic small.
  int size = 0;
  if (digits.size() <= 2) {
    for (const char c : digits) {
      size = size * 10 + (c - '0');
    }
  }
  const bool valid_size =
      size == 1 || size == 2 || size == 4 || size == 8 || (is_float && size == 16);
  if (!valid_size) {
    return Unexpected{quoted + " has size " + std::string(digits) +
                      " (sizes are 1, 2, 4 or 8 bytes)"};
  }
  const std::string_view operand = token.substr(i + 1);
  if (operand.empty()) {
    return Unexpected{quoted + " has no operand after '@'"};
  }
  return Argument{.size_bytes = size,
                  .is_signed = digits_begin == 1,
                  .is_float = is_float,
                  .operand = std::string(operand)};
}

}  // namespace

Expected<std::vector<Argument>> parse_arguments(std::string_view text) {
  std::vector<Argument> args;
  std::string_view rest = text;
  while (true) {
    while (rest.starts_with(' ')) {
      rest.remove_prefix(1);
    }
    if (rest.empty()) {
      break;
    }
    auto token = next_token(rest);
    if (!token) {
      return Unexpected{"argument " + std::to_string(args.size() + 1) + ": " + token.error()};
    }
    auto arg = parse_one(*token);
    if (!arg) {
      return Unexpected{"argument " + std::to_string(args.size() + 1) + ": " + arg.error()};
    }
    args.push_back(std::move(arg).value());
  }
  return args;
}

}  // namespace iotap::usdt
