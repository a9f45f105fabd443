#pragma once
// The --stack parser's parts beside the grammar (stack_spec.cpp): the spec's text for errors
// that point into it, the values options take (spec_values.cpp) and the checks that a parsed
// node's options and members fit its kind (spec_options.cpp).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/stack_spec/stack_spec.h"

namespace iotap::stack_spec {

// The spec as typed: an error names a column of it and draws a caret under it.
class SpecText {
 public:
  explicit SpecText(std::string_view text) : text_(text) {}
  [[noreturn]] void fail(size_t at, const std::string& message) const;
  [[nodiscard]] std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};

// A value written after `=`, or a positional one such as 50ms.
struct Value {
  std::string text;
  size_t at = 0;
};

struct Argument {
  std::string key;  // empty for positional values and for member nodes
  Value value;
  std::optional<StackNode> node;
  size_t at = 0;
};

std::optional<DeviceKind> kind_from_name(std::string_view name);

uint64_t size_value(const SpecText& spec, const Value& value);
size_t count_value(const SpecText& spec, const Value& value, size_t most = kMaxRepeat);
// A dm-delay's delay: whole milliseconds (50ms, 1s).
std::chrono::milliseconds duration_ms(const SpecText& spec, const Value& value);
// A null disk's latency: 500us, 5ms, 0.5ms, 1s (null_blk counts nanoseconds).
std::chrono::nanoseconds duration_ns(const SpecText& spec, const Value& value);

// Moves parsed arguments into the node, checking each against what its kind accepts.
void apply_arguments(const SpecText& spec, StackNode& node, std::vector<Argument>& args);

}  // namespace iotap::stack_spec
