#include "iotap/stack_spec/stack_spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "iotap/util/error.h"
#include "spec_caret.h"
#include "spec_parts.h"

namespace iotap::stack_spec {
namespace {

std::string without_blanks(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) out += c;
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : spec_(text), text_(text) {}

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
  [[noreturn]] void fail(size_t at, const std::string& message) const { spec_.fail(at, message); }

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
      count = count_value(spec_, n);
      // The copies are counted before they are made.
      const size_t one_copy = devices_ - devices_before;
      const size_t one_copy_virtio = virtio_ - virtio_before;
      devices_ += (count - 1) * one_copy;
      virtio_ += (count - 1) * one_copy_virtio;
      check_counts(repeat_at_);
    }
    apply_arguments(spec_, node, args);
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

  SpecText spec_;
  std::string_view text_;
  size_t pos_ = 0;
  size_t repeat_at_ = 0;
  size_t depth_ = 0;    // levels open at pos_
  size_t devices_ = 0;  // devices so far, copies of X*N included
  size_t virtio_ = 0;   // virtio disks among them
};

}  // namespace

void SpecText::fail(size_t at, const std::string& message) const {
  throw UserError("--stack: " + message + caret_under(text_, at));
}

StackNode parse_stack_spec(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace iotap::stack_spec
