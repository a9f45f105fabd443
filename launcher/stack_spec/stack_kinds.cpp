#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "iotap/util/error.h"
#include "spec_parts.h"

// The kinds of device a spec names, and the sizes written in one.
namespace iotap::stack_spec {
namespace {

struct KindInfo {
  DeviceKind kind;
  std::string_view name;
};

constexpr std::array kKinds{
    KindInfo{DeviceKind::kRaid0, "raid0"},     KindInfo{DeviceKind::kRaid1, "raid1"},
    KindInfo{DeviceKind::kRaid10, "raid10"},   KindInfo{DeviceKind::kRaid5, "raid5"},
    KindInfo{DeviceKind::kLinear, "linear"},   KindInfo{DeviceKind::kDelay, "delay"},
    KindInfo{DeviceKind::kFlakey, "flakey"},   KindInfo{DeviceKind::kError, "error"},
    KindInfo{DeviceKind::kStriped, "striped"}, KindInfo{DeviceKind::kCrypt, "crypt"},
    KindInfo{DeviceKind::kRam, "ram"},         KindInfo{DeviceKind::kVirtio, "virtio"},
    KindInfo{DeviceKind::kNull, "null"},       KindInfo{DeviceKind::kMissing, "missing"},
};

}  // namespace

std::optional<DeviceKind> kind_from_name(std::string_view name) {
  for (const auto& info : kKinds) {
    if (info.name == name) return info.kind;
  }
  return std::nullopt;
}

std::string_view kind_name(DeviceKind kind) {
  for (const auto& info : kKinds) {
    if (info.kind == kind) return info.name;
  }
  return "?";
}

bool is_md(DeviceKind kind) {
  return kind == DeviceKind::kRaid0 || kind == DeviceKind::kRaid1 || kind == DeviceKind::kRaid10 ||
         kind == DeviceKind::kRaid5;
}
bool is_dm(DeviceKind kind) {
  return kind == DeviceKind::kLinear || kind == DeviceKind::kDelay || kind == DeviceKind::kFlakey ||
         kind == DeviceKind::kError || kind == DeviceKind::kStriped || kind == DeviceKind::kCrypt;
}
bool is_disk(DeviceKind kind) {
  return kind == DeviceKind::kRam || kind == DeviceKind::kVirtio || kind == DeviceKind::kNull;
}

uint64_t parse_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0)
    ++digits;
  uint64_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, n);
  (void)ptr;
  if (digits == 0 || ec != std::errc())
    throw UserError("expected a size such as 64k, 128M or 1G, found '" + std::string(text) + "'");
  const std::string_view unit = text.substr(digits);
  int shift = 0;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "k" || unit == "K") {
    shift = 10;
  } else if (unit == "M") {
    shift = 20;
  } else if (unit == "G") {
    shift = 30;
  } else {
    throw UserError("unknown size unit '" + std::string(unit) + "' (use k, M or G)");
  }
  if (n == 0 || n > (UINT64_MAX >> shift))
    throw UserError("size '" + std::string(text) + "' is out of range");
  return n << shift;
}

std::string describe_size(uint64_t bytes) {
  constexpr std::array kUnits{std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "k"}};
  for (const auto& [shift, unit] : kUnits) {
    const uint64_t one = 1ULL << shift;
    if (bytes != 0 && bytes % one == 0) return std::to_string(bytes / one) + unit;
  }
  return std::to_string(bytes);
}

}  // namespace iotap::stack_spec
