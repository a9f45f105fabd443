#include "tokenizer.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace iotap::engine {
namespace {

// PB's LEVEL: a provider with more levels than this is not a nesting of requests.
constexpr uint64_t kMaxLevel = 63;

// Reads space-separated fields left to right; any failure sticks.
class Fields {
 public:
  Fields(const char* begin, const char* end) : p_(begin), end_(end) {}

  template <typename T>
  bool number(T& out, int base = 10) {
    if (!skip_spaces()) return false;
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (base == 10 && eight_at_a_time(out)) return true;
    }
    const auto [next, ec] = std::from_chars(p_, end_, out, base);
    if (ec != std::errc() || (next != end_ && *next != ' ')) return fail();
    p_ = next;
    return true;
  }

  bool dev(uint32_t& out) {
    uint64_t value = 0;
    if (!number(value)) return false;
    if (value > UINT32_MAX) return fail();
    out = static_cast<uint32_t>(value);
    return true;
  }

  // A one-letter field, one of `allowed`.
  bool letter(char& out, std::string_view allowed) {
    if (!skip_spaces()) return false;
    if (end_ - p_ < 1 || (p_ + 1 != end_ && p_[1] != ' ')) return fail();
    if (allowed.find(*p_) == std::string_view::npos) return fail();
    out = *p_++;
    return true;
  }
  // Q and X's RW: R, W or -.
  bool rw(char& out) { return letter(out, "RW-"); }
  // A replayed request's op (US): R, W or F.
  bool op(char& out) { return letter(out, "RWF"); }
  // A provider request's op (PB): R, W, F, or - (not I/O itself: a query).
  bool level_op(char& out) { return letter(out, "RWF-"); }
  // A level index: small (a provider declares a few).
  bool level(uint32_t& out) {
    uint64_t value = 0;
    if (!number(value)) return false;
    if (value > kMaxLevel) return fail();
    out = static_cast<uint32_t>(value);
    return true;
  }

  // PT's TEXT: the rest of the line after one space (it may be empty, and hold spaces).
  std::string_view rest() {
    if (!ok_ || p_ == end_) return {};
    const std::string_view text(p_ + 1, static_cast<size_t>(end_ - p_ - 1));  // *p_ is ' '
    p_ = end_;
    return text;
  }

  // A call SS names: its index in kSyscalls, and its R/W/F.
  bool syscall(uint8_t& index, char& op) {
    if (!skip_spaces()) return false;
    const char* end = p_;
    while (end != end_ && *end != ' ') ++end;
    const std::string_view word(p_, static_cast<size_t>(end - p_));
    for (size_t i = 0; i < std::size(kSyscalls); ++i) {
      if (kSyscalls[i].name != word) continue;
      index = static_cast<uint8_t>(i);
      op = kSyscalls[i].op;
      p_ = end;
      return true;
    }
    return fail();
  }

  bool flag(uint32_t& out) {
    uint64_t value = 0;
    if (!number(value)) return false;
    if (value > 1) return fail();
    out = static_cast<uint32_t>(value);
    return true;
  }

  // Every field was read and nothing is left.
  bool done() {
    while (p_ != end_ && *p_ == ' ') ++p_;
    return ok_ && p_ == end_;
  }

 private:
  bool skip_spaces() {
    if (!ok_) return false;
    if (p_ == end_ || *p_ != ' ') return fail();
    while (p_ != end_ && *p_ == ' ') ++p_;
    if (p_ == end_) return fail();
    return true;
  }
  bool fail() {
    ok_ = false;
    return false;
  }

  // A decimal field of 1 to 19 digits, eight bytes at a time (SWAR): the timestamps, sequence
  // numbers, sectors and sizes that are most of a line. Only where 8 bytes past each step are
  // inside the line; anything else (shorter tail, 20 digits) is from_chars's, as before.
  bool eight_at_a_time(uint64_t& out) {
    uint64_t value = 0;
    const char* p = p_;
    int digits = 0;
    while (end_ - p >= 8) {
      uint64_t word = 0;
      std::memcpy(&word, p, 8);
      const uint64_t n = digit_bytes(word);
      if (n == 8) {
        value = value * 100'000'000 + eight_digits(word);
        p += 8;
        digits += 8;
        continue;
      }
      // The field ends inside this word: its n digits, then a space.
      if (p[n] != ' ') return false;
      // Its digits moved to the word's end, '0's before them.
      if (n > 0)
        value = value * kPowers[n] +
                eight_digits(word << (8 * (8 - n)) | 0x3030303030303030ULL >> (8 * n));
      digits += static_cast<int>(n);
      if (digits == 0 || digits > 19) return false;
      out = value;
      p_ = p + n;
      return true;
    }
    return false;  // the line's last few bytes: from_chars reads them
  }

  // How many of the word's bytes, from the first, are ASCII digits.
  static uint64_t digit_bytes(uint64_t word) {
    // A byte is a digit when its high nibble is 3 and adding 6 keeps it there.
    const uint64_t high = word & 0xF0F0F0F0F0F0F0F0ULL;
    const uint64_t carry = (word + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL;
    const uint64_t not_digit = (high ^ 0x3030303030303030ULL) | (carry ^ 0x3030303030303030ULL);
    return not_digit == 0 ? 8 : static_cast<uint64_t>(std::countr_zero(not_digit)) / 8;
  }
  // Eight ASCII digits, the first (the most significant) in the lowest byte, as a number.
  static uint64_t eight_digits(uint64_t word) {
    word -= 0x3030303030303030ULL;
    word = (word * 10) + (word >> 8);
    word = (((word & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((word >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
    return word;
  }
  static constexpr std::array<uint64_t, 9> kPowers = {1,      10,      100,      1000,     10000,
                                                      100000, 1000000, 10000000, 100000000};

  const char* p_;
  const char* end_;
  bool ok_ = true;
};

// The kind from the line's first word; false if it is no event's.
bool kind_of(std::string_view word, Kind& kind) {
  if (word.size() == 1) {
    switch (word[0]) {
      case 'Q':
        kind = Kind::queue;
        return true;
      case 'X':
        kind = Kind::split;
        return true;
      case 'M':
        kind = Kind::remap;
        return true;
      case 'C':
        kind = Kind::complete;
        return true;
      case 'I':
        kind = Kind::rq_issue;
        return true;
      case 'D':
        kind = Kind::rq_complete;
        return true;
      default:
        return false;
    }
  }
  if (word == "RS") {
    kind = Kind::read_start;
    return true;
  }
  if (word == "RD") {
    kind = Kind::read_done;
    return true;
  }
  if (word == "SS") {
    kind = Kind::sys_start;
    return true;
  }
  if (word == "SD") {
    kind = Kind::sys_done;
    return true;
  }
  // A replayed request (io_replayer): a USDT request with its op, read as RS and RD are.
  if (word == "US") {
    kind = Kind::read_start;
    return true;
  }
  if (word == "UD") {
    kind = Kind::read_done;
    return true;
  }
  if (word == "RB") {
    kind = Kind::run_start;
    return true;
  }
  if (word == "PB") {
    kind = Kind::level_begin;
    return true;
  }
  if (word == "PT") {
    kind = Kind::level_text;
    return true;
  }
  if (word == "PE") {
    kind = Kind::level_end;
    return true;
  }
  return false;
}

}  // namespace

Tokenized tokenize(std::string_view line, Event& event) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return {LineKind::other, nullptr, {}};
  const std::string_view word = line.substr(0, space);
  if (!kind_of(word, event.kind)) {
    if (word == "iotap-events") return {LineKind::header, nullptr, {}};
    return {LineKind::other, nullptr, {}};
  }

  Fields f(line.data() + space, line.data() + line.size());
  if (!(f.number(event.ts) && f.number(event.cpu) && f.number(event.seq) && f.number(event.tid)))
    return {LineKind::malformed, "bad TS CPU SEQ TID", {}};
  bool read = false;
  std::string_view text;
  switch (event.kind) {
    case Kind::read_start:
      if (word == "US") {
        read = f.number(event.id) && f.number(event.thread) && f.op(event.rw) &&
               f.number(event.offset) && f.number(event.size) && f.flag(event.direct);
        break;
      }
      read = f.number(event.id) && f.number(event.thread) && f.number(event.block) &&
             f.number(event.offset) && f.number(event.size);
      event.rw = 'R';
      break;
    case Kind::read_done:
      read = f.number(event.id) && f.number(event.value);
      break;
    case Kind::queue:
      read = f.number(event.id, 16) && f.dev(event.dev) && f.number(event.sector) &&
             f.number(event.bytes) && f.rw(event.rw);
      break;
    case Kind::split:
      read = f.number(event.id, 16) && f.number(event.parent, 16) && f.number(event.sector) &&
             f.number(event.bytes) && f.rw(event.rw);
      break;
    case Kind::remap:
      read = f.number(event.id, 16) && f.dev(event.dev) && f.number(event.sector) &&
             f.number(event.bytes) && f.dev(event.from_dev) && f.number(event.from_sector);
      break;
    case Kind::complete:
      read = f.number(event.id, 16) && f.number(event.value);
      break;
    case Kind::rq_issue:
      read = f.number(event.id, 16) && f.dev(event.dev) && f.number(event.sector) &&
             f.number(event.bytes) && f.number(event.parent, 16);
      break;
    case Kind::rq_complete:
      read = f.number(event.id, 16) && f.dev(event.dev) && f.number(event.sector) &&
             f.number(event.bytes) && f.number(event.value);
      break;
    case Kind::sys_start:
      read = f.syscall(event.syscall, event.rw) && f.dev(event.dev) && f.number(event.inode) &&
             f.number(event.offset) && f.number(event.size) && f.flag(event.direct);
      break;
    case Kind::sys_done:
      read = f.number(event.value);
      break;
    case Kind::run_start:
      read = f.flag(event.direct);
      break;
    case Kind::level_begin:
      read = f.level(event.level) && f.number(event.id) && f.level_op(event.rw) &&
             f.number(event.inode) && f.number(event.offset) && f.number(event.size);
      break;
    case Kind::level_text:
      read = f.level(event.level) && f.number(event.id);
      text = f.rest();
      read = read && f.done();
      break;
    case Kind::level_end:
      read = f.level(event.level) && f.number(event.id) && f.number(event.value);
      break;
  }
  if (!read) return {LineKind::malformed, "bad or missing field", {}};
  if (!f.done()) return {LineKind::malformed, "extra fields", {}};
  return {LineKind::event, nullptr, text};
}

}  // namespace iotap::engine
