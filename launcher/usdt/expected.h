#pragma once
// A value or a one-line reason it could not be had. Parsing corrupt input is routine here, so
// failures are values, not exceptions. Shaped like C++23 std::expected<T, std::string> so it
// can be swapped for it once the compilers we build with all have it.
#include <string>
#include <utility>
#include <variant>

namespace iotap::usdt {

struct Unexpected {
  std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  // Implicit, like std::expected: `return probe;` and `return Unexpected{"..."};` both read well.
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Expected(Unexpected error) : state_(std::in_place_index<1>, std::move(error.message)) {}

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  [[nodiscard]] const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const std::string& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, std::string> state_;
};

}  // namespace iotap::usdt
