// A record as the text line it stands for, and text lines as records: what `iotap run` shows, and
// what the tests and the benchmark feed the engine (docs/event-format.md, version 2).
#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <string>
#include <string_view>

#include "record.h"
#include "record_layout.h"

namespace iotap::engine {
namespace {

using namespace record_layout;  // NOLINT(google-build-using-namespace): the records' own table

template <typename T>
void append_number(std::string& out, T value, int base = 10) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value, base);
  out.append(digits.data(), end);
}

// `field` of `event` as the text line has it, after a space.
void append_field(Field field, const Event& event, std::string& out) {
  out.push_back(' ');
  switch (field) {
    case Field::id:
      return append_number(out, event.id);
    case Field::address:
      return append_number(out, event.id, 16);
    case Field::thread:
      return append_number(out, event.thread);
    case Field::block:
      return append_number(out, event.block);
    case Field::offset:
      return append_number(out, event.offset);
    case Field::size:
      return append_number(out, event.size);
    case Field::result:
    case Field::error:
      return append_number(out, event.value);
    case Field::dev:
      return append_number(out, event.dev);
    case Field::sector:
      return append_number(out, event.sector);
    case Field::bytes:
      return append_number(out, event.bytes);
    case Field::from_dev:
      return append_number(out, event.from_dev);
    case Field::from_sector:
      return append_number(out, event.from_sector);
    case Field::parent:
      return append_number(out, event.parent, 16);
    case Field::inode:
      return append_number(out, event.inode);
    case Field::direct:
      out.push_back(event.direct != 0 ? '1' : '0');
      return;
    case Field::call:
      out.append(kSyscalls[event.syscall].name);
      return;
  }
}

}  // namespace

bool text_of_record(std::string_view record, std::string& out) {
  Event event;
  if (decode_record(record, event).kind != LineKind::event) return false;
  const Layout& layout = kLayouts[static_cast<unsigned char>(record[1]) - 1];
  out.append(layout.word);
  out.push_back(' ');
  append_number(out, event.ts);
  out.push_back(' ');
  append_number(out, event.cpu);
  out.push_back(' ');
  append_number(out, event.seq);
  out.push_back(' ');
  append_number(out, event.tid);
  for (uint8_t i = 0; i <= layout.count; ++i) {
    if (layout.letter != Letter::none && i == layout.letter_at) {
      out.push_back(' ');
      out.push_back(event.rw);
    }
    if (i < layout.count) append_field(layout.fields[i], event, out);
  }
  return true;
}

std::string records_of(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (!encode_line(text.substr(at, end - at), out))
      out.append(text.substr(at, std::min(end + 1, text.size()) - at));
    at = end + 1;
  }
  return out;
}

}  // namespace iotap::engine
