#pragma once
// A value or a one-line reason it could not be had. Parsing corrupt input is routine here, so
// failures are values, not exceptions. Shaped like C++23 std::expected<T, Unexpected> so it
// can be swapped for it once the compilers we build with all have it.
#include <string>
#include <utility>
#include <variant>

namespace iotap::usdt {

struct Unexpected {
  std::string message;
  // The file was read and is sound, it just carries no USDT probes: `probes --json` reports
  // that as an empty list, the table as an error.
  bool no_probes = false;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  // Implicit, like std::expected: `return probe;` and `return Unexpected{"..."};` both read well.
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Expected(Unexpected error) : state_(std::in_place_index<1>, std::move(error)) {}

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  [[nodiscard]] const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const std::string& error() const { return std::get<1>(state_).message; }
  [[nodiscard]] bool error_is_no_probes() const { return std::get<1>(state_).no_probes; }

 private:
  std::variant<T, Unexpected> state_;
};

}  // namespace iotap::usdt
