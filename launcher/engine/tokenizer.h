#pragma once
// A line of the stream -> an Event. Hand-rolled with std::from_chars: this is the hot loop.
// Errors are values: a line is an event, the stream's header, another line (the traced
// program shares the stream), or malformed (it starts like an event and does not parse).
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

// Cuts a byte stream into lines, whatever the chunking: a line that straddles two chunks is
// kept until its end arrives. A line longer than `max_line` is not an event and is dropped
// (counted by the caller through the `overlong` callback) so memory stays bounded.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line = size_t{64} * 1024) : max_line_(max_line) {}

  template <typename OnLine, typename OnOverlong>
  void feed(std::string_view bytes, OnLine&& on_line, OnOverlong&& on_overlong) {
    while (!bytes.empty()) {
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

  // The stream ended: a last line without its newline is still a line.
  template <typename OnLine>
  void finish(OnLine&& on_line) {
    if (!partial_.empty() && !discarding_) on_line(std::string_view(partial_));
    partial_.clear();
    discarding_ = false;
  }

 private:
  size_t max_line_;
  std::string partial_;
  bool discarding_ = false;
};

}  // namespace iotap::engine
