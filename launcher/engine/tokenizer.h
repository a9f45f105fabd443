#pragma once
// A line of the stream -> an Event. Hand-rolled with std::from_chars: this is the hot loop.
// Errors are values: a line is an event, the stream's header, another line (the traced
// program shares the stream), or malformed (it starts like an event and does not parse).
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "event.h"

namespace iotap::engine {

enum class LineKind : uint8_t { event, header, other, malformed };

struct Tokenized {
  LineKind kind = LineKind::other;
  const char* error = nullptr;  // malformed: what was wrong
  std::string_view text;        // PT: its TEXT, inside the line
};

// `line` has no newline; a trailing '\r' is ignored.
Tokenized tokenize(std::string_view line, Event& event);

// A binary record (record.h) starts with this marker (ASCII's record separator), which no text
// line starts with; its head is kRecordHead bytes: marker, code, length, letter, CPU, TID, TS,
// SEQ.
inline constexpr char kRecordMarker = '\x1e';
inline constexpr size_t kRecordHead = 28;

// Cuts a byte stream into lines and binary records (record.h), whatever the chunking: a line or
// a record that straddles two chunks is kept until its end arrives. A unit that starts with
// kRecordMarker is a record of the length its third byte says, newlines inside it included (a
// length under a record's head is no record: that unit is read as a line). A line longer than
// `max_line` is not an event and is dropped (counted by the caller through the `overlong`
// callback) so memory stays bounded.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line = size_t{64} * 1024) : max_line_(max_line) {}

  template <typename OnLine, typename OnOverlong>
  void feed(std::string_view bytes, OnLine&& on_line, OnOverlong&& on_overlong) {
    while (!bytes.empty()) {
      if (in_record_) {
        if (!take_record_part(bytes, on_line)) return;
        continue;
      }
      if (partial_.empty() && !discarding_ && bytes[0] == kRecordMarker) {
        const size_t length = bytes.size() >= 3 ? static_cast<unsigned char>(bytes[2]) : 0;
        if (length >= kRecordHead && bytes.size() >= length) {
          on_line(bytes.substr(0, length));
          bytes.remove_prefix(length);
          continue;
        }
        if (bytes.size() < 3 || length >= kRecordHead) {
          in_record_ = true;
          if (!take_record_part(bytes, on_line)) return;
          continue;
        }
      }
      const size_t nl = bytes.find('\n');
      if (nl == std::string_view::npos) {
        if (!discarding_) {
          if (partial_.size() + bytes.size() > max_line_) {
            partial_.clear();
            discarding_ = true;
            on_overlong();
          } else {
            partial_.append(bytes);
          }
        }
        return;
      }
      if (discarding_) {
        discarding_ = false;
      } else if (partial_.empty()) {
        on_line(bytes.substr(0, nl));
      } else if (partial_.size() + nl > max_line_) {
        partial_.clear();
        on_overlong();
      } else {
        partial_.append(bytes.substr(0, nl));
        on_line(std::string_view(partial_));
        partial_.clear();
      }
      bytes.remove_prefix(nl + 1);
    }
  }

  // The stream ended: a last line without its newline is still a line (a record cut short is
  // passed on as it is, for the reader to find malformed).
  template <typename OnLine>
  void finish(OnLine&& on_line) {
    if (!partial_.empty() && !discarding_) on_line(std::string_view(partial_));
    partial_.clear();
    discarding_ = false;
    in_record_ = false;
  }

 private:
  // Adds to the record begun in partial_ from `bytes`; passes it on when whole. False when
  // `bytes` ran out first. A record whose length turns out to be too short is read as a line.
  template <typename OnLine>
  bool take_record_part(std::string_view& bytes, OnLine& on_line) {
    if (partial_.size() < 3) {
      const size_t head = std::min(3 - partial_.size(), bytes.size());
      partial_.append(bytes.substr(0, head));
      bytes.remove_prefix(head);
      if (partial_.size() < 3) return false;
      if (static_cast<unsigned char>(partial_[2]) < kRecordHead) {
        in_record_ = false;  // no record: the bytes so far begin a line
        return true;
      }
    }
    const size_t length = static_cast<unsigned char>(partial_[2]);
    const size_t part = std::min(length - partial_.size(), bytes.size());
    partial_.append(bytes.substr(0, part));
    bytes.remove_prefix(part);
    if (partial_.size() < length) return false;
    on_line(std::string_view(partial_));
    partial_.clear();
    in_record_ = false;
    return true;
  }

  size_t max_line_;
  std::string partial_;
  bool discarding_ = false;
  bool in_record_ = false;
};

}  // namespace iotap::engine
