#pragma once
// The binary records' layouts (docs/event-format.md, version 2), one table for the reader, the
// writer and the text (record.cpp, record_text.cpp): which Event member each field is, how wide,
// and where a kind's letter goes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "event.h"
#include "tokenizer.h"

namespace iotap::engine::record_layout {

// A field after the head: which Event member, and how wide it is on the wire.
enum class Field : uint8_t {
  id,           // u64: REQUEST (decimal in the text line)
  address,      // u64: BIO, RQ (hex in the text line)
  thread,       // i32
  block,        // u64
  offset,       // u64
  size,         // u64
  result,       // i64: RESULT
  error,        // i32: a block status
  dev,          // u32
  sector,       // u64
  bytes,        // u32
  from_dev,     // u32
  from_sector,  // u64
  parent,       // u64: X's PARENT, I's BIO (hex in the text line)
  inode,        // u64
  direct,       // u32, 0 or 1
  call,         // u32: the index in kSyscalls
};

constexpr size_t width(Field field) {
  switch (field) {
    case Field::thread:
    case Field::error:
    case Field::dev:
    case Field::bytes:
    case Field::from_dev:
    case Field::direct:
    case Field::call:
      return 4;
    default:
      return 8;
  }
}

// What the record's fourth byte holds: nothing (0), Q and X's RW, or US's OP.
enum class Letter : uint8_t { none, rw, op };

struct Layout {
  std::string_view word;  // the text line's KIND
  Kind kind;
  Letter letter;
  std::array<Field, 6> fields;
  uint8_t count;
  uint8_t letter_at = 0;  // in the text line, the letter comes before fields[letter_at]
};

// Indexed by the record's code (its second byte) - 1: docs/event-format.md's table, in order.
constexpr std::array<Layout, 13> kLayouts = {{
    {"RB", Kind::run_start, Letter::none, {Field::direct}, 1},
    {"RS",
     Kind::read_start,
     Letter::none,
     {Field::id, Field::thread, Field::block, Field::offset, Field::size},
     5},
    {"RD", Kind::read_done, Letter::none, {Field::id, Field::result}, 2},
    {"US",
     Kind::read_start,
     Letter::op,
     {Field::id, Field::thread, Field::offset, Field::size, Field::direct},
     5,
     2},
    {"UD", Kind::read_done, Letter::none, {Field::id, Field::result}, 2},
    {"Q", Kind::queue, Letter::rw, {Field::address, Field::dev, Field::sector, Field::bytes}, 4, 4},
    {"X",
     Kind::split,
     Letter::rw,
     {Field::address, Field::parent, Field::sector, Field::bytes},
     4,
     4},
    {"M",
     Kind::remap,
     Letter::none,
     {Field::address, Field::dev, Field::sector, Field::bytes, Field::from_dev, Field::from_sector},
     6},
    {"C", Kind::complete, Letter::none, {Field::address, Field::error}, 2},
    {"I",
     Kind::rq_issue,
     Letter::none,
     {Field::address, Field::dev, Field::sector, Field::bytes, Field::parent},
     5},
    {"D",
     Kind::rq_complete,
     Letter::none,
     {Field::address, Field::dev, Field::sector, Field::bytes, Field::error},
     5},
    {"SS",
     Kind::sys_start,
     Letter::none,
     {Field::call, Field::dev, Field::inode, Field::offset, Field::size, Field::direct},
     6},
    {"SD", Kind::sys_done, Letter::none, {Field::result}, 1},
}};

constexpr size_t length_of(const Layout& layout) {
  size_t length = kRecordHead;
  for (uint8_t i = 0; i < layout.count; ++i) length += width(layout.fields[i]);
  return length;
}

// Each layout's length, worked out once: the decoder checks it for every record.
constexpr std::array<uint8_t, kLayouts.size()> kLengths = [] {
  std::array<uint8_t, kLayouts.size()> lengths{};
  for (size_t i = 0; i < kLayouts.size(); ++i)
    lengths[i] = static_cast<uint8_t>(length_of(kLayouts[i]));
  return lengths;
}();
static_assert(kLengths[5] == 52, "Q's record, as docs/event-format.md gives it");

}  // namespace iotap::engine::record_layout
