#include "iotap/stack_spec/stack_spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "iotap/util/error.h"
#include "spec_caret.h"

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

// The longest completion time a null disk takes: past it a run would only wait.
constexpr std::chrono::seconds kMaxNullLatency{10};

std::optional<DeviceKind> kind_from_name(std::string_view name) {
  for (const auto& info : kKinds) {
    if (info.name == name) return info.kind;
  }
  return std::nullopt;
}

std::string without_blanks(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) out += c;
  }
  return out;
}

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

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  StackNode parse() {
    check_characters();
    skip_blanks();
    if (at_end()) fail(pos_, "the spec is empty (example: 'raid0(ram*7, delay(ram, 50ms))')");
    auto nodes = parse_node();
    if (nodes.front().kind == DeviceKind::kMissing)
      fail(nodes.front().column - 1,
           "'missing' is an absent raid5 member, not a device "
           "(example: raid5(ram*3, missing))");
    if (nodes.size() != 1)
      fail(
          repeat_at_,
          "the top of the stack is one device; '*N' belongs inside a parent, as in 'raid0(ram*4)'");
    skip_blanks();
    if (!at_end()) fail(pos_, std::string("unexpected '") + text_[pos_] + "' after the top device");
    return std::move(nodes.front());
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& message) const {
    throw UserError("--stack: " + message + caret_under(text_, at));
  }

  // A spec is ASCII; anything else is named as typed (a whole UTF-8 character, not half of
  // one) before the grammar gets to misread it.
  void check_characters() const {
    for (size_t at = 0; at < text_.size(); ++at) {
      const auto byte = static_cast<unsigned char>(text_[at]);
      if (byte >= 0x80 || (byte < 0x20 && std::isspace(byte) == 0) || byte == 0x7f) {
        fail(at, "unexpected " + describe_character(text_, at) +
                     " (a spec is written in ASCII: device names, numbers and ( ) , : * =)");
      }
    }
  }

  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_blanks() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }

  bool accept(char c) {
    skip_blanks();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c, const char* what) {
    skip_blanks();
    if (peek() != c) {
      fail(pos_, at_end() ? std::string("the spec ends where ") + what + " was expected"
                          : std::string("expected ") + what + ", found '" + peek() + "'");
    }
    ++pos_;
  }

  // Letters, digits, dots and underscores: names, numbers with units.
  Value word() {
    skip_blanks();
    Value value{"", pos_};
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) != 0 || peek() == '.' ||
                         peek() == '_')) {
      value.text += text_[pos_++];
    }
    return value;
  }

  // Counts one device as it is parsed, so a spec that asks for too many fails before the
  // parser builds (or copies) them.
  void count_device(DeviceKind kind, size_t at) {
    if (kind == DeviceKind::kMissing) return;  // a slot, not a device
    ++devices_;
    if (kind == DeviceKind::kVirtio) ++virtio_;
    check_counts(at);
  }

  void check_counts(size_t at) const {
    if (devices_ > kMaxStackDevices) {
      fail(at, "more than " + std::to_string(kMaxStackDevices) +
                   " devices, the most a stack has (" +
                   "disks, md arrays and dm targets together, each copy of X*N counted)");
    }
    if (virtio_ > kMaxVirtioDisks) {
      fail(at,
           "more than " + std::to_string(kMaxVirtioDisks) +
               " virtio disks, the most a guest names (vda to vdz); use ram disks for the rest");
    }
  }

  std::vector<StackNode> parse_node() {
    skip_blanks();
    const size_t start = pos_;
    // Each level is one more recursion here, and one more layer the guest has to build.
    if (++depth_ > kMaxStackDepth) {
      fail(start, "the stack is more than " + std::to_string(kMaxStackDepth) +
                      " levels deep, the most it can be (a device inside another's parentheses "
                      "is one level down)");
    }
    const Value name = word();
    if (name.text.empty()) {
      fail(pos_, at_end() ? "the spec ends where a device was expected"
                          : std::string("expected a device, found '") + peek() + "'");
    }
    const auto kind = kind_from_name(name.text);
    if (!kind) {
      fail(start, "unknown device '" + name.text +
                      "' (devices: raid0, raid1, raid10, raid5, linear, delay, flakey, error, "
                      "striped, crypt, ram, virtio, null)");
    }
    const size_t devices_before = devices_;
    const size_t virtio_before = virtio_;
    count_device(*kind, start);
    StackNode node;
    node.kind = *kind;
    node.column = start + 1;
    std::vector<Argument> args;
    if (accept(':')) args.push_back(size_argument(pos_ - 1));
    if (accept('(')) {
      do {
        for (auto& arg : parse_argument()) args.push_back(std::move(arg));
      } while (accept(','));
      expect(')', "',' or ')'");
    }
    if (accept(':')) args.push_back(size_argument(pos_ - 1));
    node.spec = without_blanks(text_.substr(start, pos_ - start));
    size_t count = 1;
    skip_blanks();
    if (peek() == '*') {
      repeat_at_ = pos_;
      ++pos_;
      const Value n = word();
      count = count_value(n);
      // The copies are counted before they are made.
      const size_t one_copy = devices_ - devices_before;
      const size_t one_copy_virtio = virtio_ - virtio_before;
      devices_ += (count - 1) * one_copy;
      virtio_ += (count - 1) * one_copy_virtio;
      check_counts(repeat_at_);
    }
    apply_arguments(node, args);
    --depth_;
    std::vector<StackNode> copies;
    copies.reserve(count);
    for (size_t i = 1; i < count; ++i) copies.push_back(node);
    copies.push_back(std::move(node));
    return copies;
  }

  // `ram:128M` is `ram(size=128M)`; `at` is the colon.
  Argument size_argument(size_t at) { return Argument{"size", word(), std::nullopt, at}; }

  // One argument as written; a repeated member (`ram*4`) comes back as its copies.
  std::vector<Argument> parse_argument() {
    skip_blanks();
    const size_t start = pos_;
    const size_t saved = pos_;
    const Value first = word();
    if (first.text.empty()) {
      fail(pos_, at_end() ? "the spec ends where a member or an option was expected"
                          : std::string("expected a member or an option, found '") + peek() + "'");
    }
    if (accept('=')) {
      const Value value = word();
      if (value.text.empty()) fail(pos_, "option '" + first.text + "' has no value");
      return {Argument{first.text, value, std::nullopt, start}};
    }
    // Anything that starts with a letter is a member; a misspelt one is reported by parse_node.
    if (std::isalpha(static_cast<unsigned char>(first.text[0])) != 0) {
      pos_ = saved;
      std::vector<Argument> members;
      for (auto& node : parse_node()) members.push_back(Argument{"", {}, std::move(node), start});
      return members;
    }
    return {Argument{"", first, std::nullopt, start}};
  }

  // Moves parsed arguments into the node, checking each against what its kind accepts.
  void apply_arguments(StackNode& node, std::vector<Argument>& args) {
    std::vector<Value> positional;
    std::vector<const Argument*> given;  // options so far, to catch one given twice
    for (auto& arg : args) {
      if (arg.node) {
        if (is_disk(node.kind))
          fail(arg.at, std::string(kind_name(node.kind)) + " is a disk and has no members");
        if (arg.node->kind == DeviceKind::kMissing && node.kind != DeviceKind::kRaid5) {
          fail(arg.at, "'missing' is an absent raid5 member; " + std::string(kind_name(node.kind)) +
                           " takes none (example: raid5(ram*3, missing))");
        }
        node.members.push_back(std::move(*arg.node));
        continue;
      }
      if (arg.key.empty() && node.kind == DeviceKind::kDelay)
        arg.key = "delay";  // delay(ram, 50ms)
      if (arg.key.empty()) {
        positional.push_back(arg.value);
        continue;
      }
      for (const Argument* earlier : given) {
        if (earlier->key == arg.key) {
          fail(arg.at, "option '" + arg.key + "' is given twice (first at column " +
                           std::to_string(earlier->at + 1) + ")" + same_option_hint(arg.key));
        }
      }
      given.push_back(&arg);
      apply_option(node, arg);
    }
    const bool has_delay = std::any_of(given.begin(), given.end(),
                                       [](const Argument* arg) { return arg->key == "delay"; });
    check_shape(node, positional, has_delay);
  }

  static std::string same_option_hint(const std::string& key) {
    if (key == "size") return "; ram:SIZE is the same as size=SIZE";
    if (key == "delay") return "; delay(ram, 50ms) is the same as delay=50ms";
    return "";
  }

  void apply_option(StackNode& node, const Argument& arg) {
    const auto reject = [&] {
      fail(arg.at, "option '" + arg.key + "' does not apply to " +
                       std::string(kind_name(node.kind)) + options_hint(node.kind));
    };
    if (arg.key == "chunk") {
      if (!takes_chunk(node.kind)) reject();
      node.chunk_bytes = size_value(arg.value);
      if (node.chunk_bytes < 4096 || (node.chunk_bytes & (node.chunk_bytes - 1)) != 0) {
        fail(arg.value.at, "chunk must be a power of two of at least 4k");
      }
    } else if (arg.key == "up" || arg.key == "down") {
      if (node.kind != DeviceKind::kFlakey) reject();
      const auto ms = duration_ms(arg.value);
      if (ms.count() % 1000 != 0)
        fail(arg.value.at, "dm-flakey counts whole seconds: write '1s', '2s', ...");
      (arg.key == "up" ? node.up : node.down) =
          std::chrono::duration_cast<std::chrono::seconds>(ms);
    } else if (arg.key == "delay") {
      if (node.kind != DeviceKind::kDelay) reject();
      node.delay = duration_ms(arg.value);
    } else if (arg.key == "lat") {
      if (node.kind != DeviceKind::kNull) reject();
      node.latency = duration_ns(arg.value);
    } else if (arg.key == "cache") {
      if (node.kind != DeviceKind::kNull) reject();
      node.cache_bytes = size_value(arg.value);
      if (node.cache_bytes == 0 || node.cache_bytes % (1U << 20) != 0)
        fail(arg.value.at, "null_blk sizes its cache in whole MiB: write '1M', '16M', ...");
    } else if (arg.key == "size") {
      if (!is_disk(node.kind)) {
        fail(arg.at, "a size belongs to a disk (ram:128M, virtio:1G); " +
                         std::string(kind_name(node.kind)) + "'s size comes from its members");
      }
      node.size_bytes = size_value(arg.value);
      if (node.kind == DeviceKind::kNull && node.size_bytes % (1U << 20) != 0)
        fail(arg.value.at, "null_blk sizes its disks in whole MiB: write '1M', '64M', '1G', ...");
    } else if (arg.key == "iops" || arg.key == "bps") {
      if (node.kind != DeviceKind::kVirtio) reject();
      (arg.key == "iops" ? node.iops : node.bps) =
          arg.key == "iops" ? count_value(arg.value, 1'000'000) : size_value(arg.value);
    } else {
      reject();
    }
  }

  static std::string options_hint(DeviceKind kind) {
    switch (kind) {
      case DeviceKind::kRaid0:
      case DeviceKind::kRaid10:
      case DeviceKind::kRaid5:
      case DeviceKind::kStriped:
        return " (" + std::string(kind_name(kind)) + " takes chunk=SIZE)";
      case DeviceKind::kNull:
        return " (null takes lat=DURATION, cache=SIZE, size=SIZE, or null:SIZE)";
      case DeviceKind::kDelay:
        return " (delay takes a duration: delay(ram, 50ms))";
      case DeviceKind::kFlakey:
        return " (flakey takes up=SECONDS, down=SECONDS)";
      case DeviceKind::kVirtio:
        return " (virtio takes iops=N, bps=SIZE, size=SIZE)";
      case DeviceKind::kRam:
        return " (ram takes size=SIZE, or ram:SIZE)";
      default:
        return " (it takes no options)";
    }
  }

  void check_shape(StackNode& node, const std::vector<Value>& positional, bool has_delay) {
    const size_t members = node.members.size();
    const auto need_members = [&](size_t least, size_t most, const char* example) {
      if (members >= least && members <= most) return;
      std::string wanted;
      if (least == most) {
        wanted = "needs " + std::to_string(least) + (least == 1 ? " member" : " members");
      } else if (most == SIZE_MAX) {
        wanted = "needs at least " + std::to_string(least) + " members";
      } else if (least == 0) {
        wanted = "takes at most " + std::to_string(most) + (most == 1 ? " member" : " members");
      } else {
        wanted = "needs " + std::to_string(least) + " to " + std::to_string(most) + " members";
      }
      fail(node.column - 1, std::string(kind_name(node.kind)) + " " + wanted + ", got " +
                                std::to_string(members) + " (example: " + example + ")");
    };
    if (!positional.empty()) {
      fail(positional[0].at, "unexpected value '" + positional[0].text + "' for " +
                                 std::string(kind_name(node.kind)) + options_hint(node.kind));
    }
    switch (node.kind) {
      case DeviceKind::kRaid0:
        need_members(2, SIZE_MAX, "raid0(ram*4)");
        break;
      case DeviceKind::kRaid1:
        need_members(2, SIZE_MAX, "raid1(ram, ram)");
        break;
      case DeviceKind::kRaid10:
        need_members(2, SIZE_MAX, "raid10(ram*4)");
        break;
      case DeviceKind::kRaid5:
        need_members(3, SIZE_MAX, "raid5(ram*4), or raid5(ram*3, missing)");
        check_one_missing(node);
        break;
      case DeviceKind::kStriped:
        need_members(2, SIZE_MAX, "striped(ram*4)");
        break;
      case DeviceKind::kCrypt:
        need_members(1, 1, "crypt(ram)");
        break;
      case DeviceKind::kLinear:
        need_members(1, SIZE_MAX, "linear(ram, ram)");
        break;
      case DeviceKind::kDelay:
        need_members(1, 1, "delay(ram, 50ms)");
        if (!has_delay) fail(node.column - 1, "delay needs a duration (example: delay(ram, 50ms))");
        break;
      case DeviceKind::kFlakey:
        need_members(1, 1, "flakey(ram, up=1s, down=1s)");
        if (node.up.count() == 0) node.up = std::chrono::seconds(1);
        if (node.down.count() == 0) node.down = std::chrono::seconds(1);
        break;
      case DeviceKind::kError:
        // Alone it is a 64M device that fails every I/O; with a member, it takes that size.
        need_members(0, 1, "error(ram), or error alone");
        break;
      case DeviceKind::kRam:
      case DeviceKind::kVirtio:
      case DeviceKind::kNull:
        break;
      case DeviceKind::kMissing:
        if (members != 0) fail(node.column - 1, "'missing' is an absent member and has none");
        break;
    }
  }

  // raid5 keeps its data with one member gone, not two: mdadm would not start the array.
  void check_one_missing(const StackNode& node) const {
    size_t missing = 0;
    for (const auto& member : node.members) {
      if (member.kind != DeviceKind::kMissing || ++missing < 2) continue;
      fail(member.column - 1,
           "raid5 runs with at most one member missing (example: raid5(ram*3, missing))");
    }
  }

  static bool takes_chunk(DeviceKind kind) {
    return kind == DeviceKind::kRaid0 || kind == DeviceKind::kRaid10 ||
           kind == DeviceKind::kRaid5 || kind == DeviceKind::kStriped;
  }

  [[nodiscard]] uint64_t size_value(const Value& value) const {
    try {
      return parse_size(value.text);
    } catch (const UserError& e) {
      fail(value.at, e.what());
    }
  }

  [[nodiscard]] size_t count_value(const Value& value, size_t most = kMaxRepeat) const {
    size_t n = 0;
    const auto* end = value.text.data() + value.text.size();
    const auto [ptr, ec] = std::from_chars(value.text.data(), end, n);
    if (value.text.empty() || ec != std::errc() || ptr != end || n == 0 || n > most) {
      fail(value.at,
           "expected a count from 1 to " + std::to_string(most) + ", found '" + value.text + "'");
    }
    return n;
  }

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
  [[nodiscard]] Amount amount(const Value& value, uint64_t most, const char* example) const {
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
      fail(value.at, std::string("expected a duration such as ") + example + ", found '" + t + "'");
    return a;
  }

  // The amount in nanoseconds, for a unit of `unit_ns`; nullopt when its decimals come to a
  // fraction of a nanosecond.
  static std::optional<uint64_t> nanoseconds(const Amount& a, uint64_t unit_ns) {
    if (a.fraction * unit_ns % a.fraction_scale != 0) return std::nullopt;
    return a.n * unit_ns + a.fraction * unit_ns / a.fraction_scale;
  }

  static uint64_t unit_nanoseconds(const std::string& unit) {
    if (unit == "ns") return 1;
    if (unit == "us") return 1'000;
    if (unit == "ms") return 1'000'000;
    if (unit == "s") return 1'000'000'000;
    return 0;
  }

  [[nodiscard]] std::chrono::milliseconds duration_ms(const Value& value) const {
    const std::string& t = value.text;
    const Amount a = amount(value, 3'600'000, "50ms or 1s");
    const uint64_t unit_ns = a.unit == "ns" ? 0 : unit_nanoseconds(a.unit);
    if (unit_ns == 0) fail(value.at + a.digits, "a duration needs a unit: ms or s (as in 50ms)");
    const std::optional<uint64_t> ns = nanoseconds(a, unit_ns);
    if (!ns || *ns % 1'000'000 != 0)
      fail(value.at,
           "dm-delay counts whole milliseconds: '" + t + "' is not a whole number of them");
    return std::chrono::milliseconds(*ns / 1'000'000);
  }

  // A null disk's latency: 500us, 5ms, 0.5ms, 1s (null_blk counts nanoseconds).
  [[nodiscard]] std::chrono::nanoseconds duration_ns(const Value& value) const {
    const std::string& t = value.text;
    const Amount a = amount(value, 10'000'000'000ULL, "5ms or 500us");
    const uint64_t unit_ns = unit_nanoseconds(a.unit);
    if (unit_ns == 0)
      fail(value.at + a.digits, "a duration needs a unit: ns, us, ms or s (as in 5ms)");
    const std::optional<uint64_t> ns = nanoseconds(a, unit_ns);
    if (!ns) fail(value.at, "null_blk counts whole nanoseconds: '" + t + "' is a fraction of one");
    const std::chrono::nanoseconds latency(*ns);
    if (latency > kMaxNullLatency)
      fail(value.at, "a null disk's latency is at most 10s, found '" + t + "'");
    return latency;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t repeat_at_ = 0;
  size_t depth_ = 0;    // levels open at pos_
  size_t devices_ = 0;  // devices so far, copies of X*N included
  size_t virtio_ = 0;   // virtio disks among them
};

}  // namespace

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

StackNode parse_stack_spec(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace iotap::stack_spec
