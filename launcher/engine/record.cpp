#include "record.h"

#include <array>
#include <cstring>
#include <iterator>
#include <limits>
#include <utility>

#include "record_layout.h"

namespace iotap::engine {
namespace {

using namespace record_layout;  // NOLINT(google-build-using-namespace): this file's own table

template <typename T>
T load(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

// Reads `field` at `at` into `event`; false if its value is out of the field's range.
[[gnu::always_inline]] inline bool read_field(Field field, const char* at, Event& event) {
  switch (field) {
    case Field::id:
    case Field::address:
      event.id = load<uint64_t>(at);
      return true;
    case Field::thread:
      event.thread = load<int32_t>(at);
      return true;
    case Field::block:
      event.block = load<uint64_t>(at);
      return true;
    case Field::offset:
      event.offset = load<uint64_t>(at);
      return true;
    case Field::size:
      event.size = load<uint64_t>(at);
      return true;
    case Field::result:
      event.value = load<int64_t>(at);
      return true;
    case Field::error:
      event.value = load<int32_t>(at);
      return true;
    case Field::dev:
      event.dev = load<uint32_t>(at);
      return true;
    case Field::sector:
      event.sector = load<uint64_t>(at);
      return true;
    case Field::bytes:
      event.bytes = load<uint32_t>(at);
      return true;
    case Field::from_dev:
      event.from_dev = load<uint32_t>(at);
      return true;
    case Field::from_sector:
      event.from_sector = load<uint64_t>(at);
      return true;
    case Field::parent:
      event.parent = load<uint64_t>(at);
      return true;
    case Field::inode:
      event.inode = load<uint64_t>(at);
      return true;
    case Field::direct: {
      const auto flag = load<uint32_t>(at);
      event.direct = flag;
      return flag <= 1;
    }
    case Field::call: {
      const auto call = load<uint32_t>(at);
      if (call >= std::size(kSyscalls)) return false;
      event.syscall = static_cast<uint8_t>(call);
      event.rw = kSyscalls[call].op;
      return true;
    }
  }
  return false;
}

template <typename T>
void store(std::string& out, T value) {
  std::array<char, sizeof value> bytes{};
  std::memcpy(bytes.data(), &value, sizeof value);
  out.append(bytes.data(), bytes.size());
}

// Writes `field` of `event`; false if its value does not fit the field's width.
bool write_field(Field field, const Event& event, std::string& out) {
  switch (field) {
    case Field::id:
    case Field::address:
      store(out, event.id);
      return true;
    case Field::thread:
      store(out, event.thread);
      return true;
    case Field::block:
      store(out, event.block);
      return true;
    case Field::offset:
      store(out, event.offset);
      return true;
    case Field::size:
      store(out, event.size);
      return true;
    case Field::result:
      store(out, event.value);
      return true;
    case Field::error:
      if (event.value < std::numeric_limits<int32_t>::min() ||
          event.value > std::numeric_limits<int32_t>::max())
        return false;
      store(out, static_cast<int32_t>(event.value));
      return true;
    case Field::dev:
      store(out, event.dev);
      return true;
    case Field::sector:
      store(out, event.sector);
      return true;
    case Field::bytes:
      store(out, event.bytes);
      return true;
    case Field::from_dev:
      store(out, event.from_dev);
      return true;
    case Field::from_sector:
      store(out, event.from_sector);
      return true;
    case Field::parent:
      store(out, event.parent);
      return true;
    case Field::inode:
      store(out, event.inode);
      return true;
    case Field::direct:
      store(out, event.direct);
      return true;
    case Field::call:
      store(out, static_cast<uint32_t>(event.syscall));
      return true;
  }
  return false;
}

bool letter_allowed(Letter letter, char value) {
  switch (letter) {
    case Letter::none:
      return value == '\0';
    case Letter::rw:
      return value == 'R' || value == 'W' || value == '-';
    case Letter::op:
      return value == 'R' || value == 'W' || value == 'F';
  }
  return false;
}

// A record of CODE, its length checked: its layout known when compiled, so that reading it is
// a run of loads with no switch per field.
template <unsigned Code>
Tokenized decode_as(const char* at, Event& event) {
  event.kind = kLayouts[Code - 1].kind;
  const char letter = at[3];
  if (!letter_allowed(kLayouts[Code - 1].letter, letter))
    return {LineKind::malformed, "bad RW or OP", {}};
  if constexpr (kLayouts[Code - 1].letter != Letter::none) {
    event.rw = letter;
  } else if constexpr (kLayouts[Code - 1].kind == Kind::read_start) {
    event.rw = 'R';
  }
  const auto cpu = load<uint32_t>(at + 4);
  if (cpu >= kMaxCpus) return {LineKind::malformed, "CPU out of range", {}};
  event.cpu = static_cast<uint16_t>(cpu);
  event.tid = load<int32_t>(at + 8);
  event.ts = load<uint64_t>(at + 12);
  event.seq = load<uint64_t>(at + 20);
  bool in_range = true;
  size_t offset = kRecordHead;
  const auto read_fields = [&]<size_t... I>(std::index_sequence<I...>) {
    ((in_range = read_field(kLayouts[Code - 1].fields[I], at + offset, event) && in_range,
      offset += width(kLayouts[Code - 1].fields[I])),
     ...);
  };
  read_fields(std::make_index_sequence<kLayouts[Code - 1].count>{});
  if (!in_range) return {LineKind::malformed, "field out of range", {}};
  return {LineKind::event, nullptr, {}};
}

using Decoder = Tokenized (*)(const char*, Event&);

template <size_t... C>
constexpr std::array<Decoder, sizeof...(C)> decoders(std::index_sequence<C...> /*codes*/) {
  return {&decode_as<C + 1>...};
}
constexpr auto kDecoders = decoders(std::make_index_sequence<kLayouts.size()>{});

}  // namespace

Tokenized decode_record(std::string_view record, Event& event) {
  const auto code = static_cast<unsigned char>(record[1]);
  if (code == 0 || code > kLayouts.size()) return {LineKind::other, nullptr, {}};
  if (record.size() != kLengths[code - 1]) return {LineKind::malformed, "bad record length", {}};
  return kDecoders[code - 1](record.data(), event);
}

bool encode_line(std::string_view line, std::string& out) {
  Event event;
  if (tokenize(line, event).kind != LineKind::event) return false;
  const std::string_view word = line.substr(0, line.find(' '));
  for (size_t code = 1; code <= kLayouts.size(); ++code) {
    const Layout& layout = kLayouts[code - 1];
    if (layout.word != word) continue;
    const size_t start = out.size();
    out.push_back(kRecordMarker);
    out.push_back(static_cast<char>(code));
    out.push_back(static_cast<char>(kLengths[code - 1]));
    out.push_back(layout.letter != Letter::none ? event.rw : '\0');
    store(out, static_cast<uint32_t>(event.cpu));
    store(out, event.tid);
    store(out, event.ts);
    store(out, event.seq);
    for (uint8_t i = 0; i < layout.count; ++i) {
      if (!write_field(layout.fields[i], event, out)) {
        out.resize(start);
        return false;
      }
    }
    return true;
  }
  return false;
}

size_t record_length(unsigned code) {
  return code >= 1 && code <= kLayouts.size() ? kLengths[code - 1] : 0;
}

std::string record_fields_format(unsigned code) {
  if (code == 0 || code > kLayouts.size()) return {};
  const Layout& layout = kLayouts[code - 1];
  std::string format;
  for (uint8_t i = 0; i < layout.count; ++i) format += width(layout.fields[i]) == 4 ? "%4b" : "%8b";
  return format;
}

}  // namespace iotap::engine