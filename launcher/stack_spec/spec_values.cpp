#include <cctype>
#include <charconv>
#include <optional>
#include <string>

#include "iotap/util/error.h"
#include "spec_parts.h"

// The values an option takes: sizes (64k, 128M), counts (the N of X*N) and durations (50ms,
// 0.5ms), each refused with a caret under it when it is not one.
namespace iotap::stack_spec {
namespace {

// The longest completion time a null disk takes: past it a run would only wait.
constexpr std::chrono::seconds kMaxNullLatency{10};

// A duration's number and unit ("50ms" -> 50, "ms"; "0.5ms" -> 0, 5 tenths, "ms"), its whole
// part at most `most`. Decimals are taken (null(lat=0.5ms) once said "needs a unit"), as many
// as come to a whole nanosecond, at most 9.
struct Amount {
  uint64_t n = 0;
  uint64_t fraction = 0;        // the digits after the '.', as a number
  uint64_t fraction_scale = 1;  // 10 to the number of those digits
  std::string unit;
  size_t digits = 0;  // the number's bytes, its '.' and decimals included
};

Amount amount(const SpecText& spec, const Value& value, uint64_t most, const char* example) {
  const std::string& t = value.text;
  const auto is_digit = [&t](size_t at) {
    return at < t.size() && std::isdigit(static_cast<unsigned char>(t[at])) != 0;
  };
  Amount a;
  while (is_digit(a.digits)) ++a.digits;
  const size_t whole = a.digits;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + whole, a.n);
  (void)ptr;
  bool decimals_ok = true;
  if (whole > 0 && a.digits < t.size() && t[a.digits] == '.') {
    ++a.digits;
    const size_t first = a.digits;
    while (is_digit(a.digits)) {
      a.fraction = a.fraction * 10 + static_cast<uint64_t>(t[a.digits] - '0');
      a.fraction_scale *= 10;
      ++a.digits;
      if (a.digits - first > 9) break;
    }
    decimals_ok = a.digits > first && a.digits - first <= 9;
  }
  a.unit = t.substr(a.digits);
  if (whole == 0 || ec != std::errc() || a.n > most || !decimals_ok)
    spec.fail(value.at,
              std::string("expected a duration such as ") + example + ", found '" + t + "'");
  return a;
}

// The amount in nanoseconds, for a unit of `unit_ns`; nullopt when its decimals come to a
// fraction of a nanosecond.
std::optional<uint64_t> nanoseconds(const Amount& a, uint64_t unit_ns) {
  if (a.fraction * unit_ns % a.fraction_scale != 0) return std::nullopt;
  return a.n * unit_ns + a.fraction * unit_ns / a.fraction_scale;
}

uint64_t unit_nanoseconds(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  return 0;
}

}  // namespace

uint64_t size_value(const SpecText& spec, const Value& value) {
  try {
    return parse_size(value.text);
  } catch (const UserError& e) {
    spec.fail(value.at, e.what());
  }
}

size_t count_value(const SpecText& spec, const Value& value, size_t most) {
  size_t n = 0;
  const auto* end = value.text.data() + value.text.size();
  const auto [ptr, ec] = std::from_chars(value.text.data(), end, n);
  if (value.text.empty() || ec != std::errc() || ptr != end || n == 0 || n > most) {
    spec.fail(value.at, "expected a count from 1 to " + std::to_string(most) + ", found '" +
                            value.text + "'");
  }
  return n;
}

std::chrono::milliseconds duration_ms(const SpecText& spec, const Value& value) {
  const std::string& t = value.text;
  const Amount a = amount(spec, value, 3'600'000, "50ms or 1s");
  const uint64_t unit_ns = a.unit == "ns" ? 0 : unit_nanoseconds(a.unit);
  if (unit_ns == 0) spec.fail(value.at + a.digits, "a duration needs a unit: ms or s (as in 50ms)");
  const std::optional<uint64_t> ns = nanoseconds(a, unit_ns);
  if (!ns || *ns % 1'000'000 != 0)
    spec.fail(value.at,
              "dm-delay counts whole milliseconds: '" + t + "' is not a whole number of them");
  return std::chrono::milliseconds(*ns / 1'000'000);
}

std::chrono::nanoseconds duration_ns(const SpecText& spec, const Value& value) {
  const std::string& t = value.text;
  const Amount a = amount(spec, value, 10'000'000'000ULL, "5ms or 500us");
  const uint64_t unit_ns = unit_nanoseconds(a.unit);
  if (unit_ns == 0)
    spec.fail(value.at + a.digits, "a duration needs a unit: ns, us, ms or s (as in 5ms)");
  const std::optional<uint64_t> ns = nanoseconds(a, unit_ns);
  if (!ns)
    spec.fail(value.at, "null_blk counts whole nanoseconds: '" + t + "' is a fraction of one");
  const std::chrono::nanoseconds latency(*ns);
  if (latency > kMaxNullLatency)
    spec.fail(value.at, "a null disk's latency is at most 10s, found '" + t + "'");
  return latency;
}

}  // namespace iotap::stack_spec
