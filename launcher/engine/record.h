#pragma once
// An event as a binary record (docs/event-format.md, version 2): the same fields as its text
// line, fixed-width and little-endian, so that a probe writes it without formatting a number
// and the engine reads it without parsing one. A stream may mix records and text lines: a
// record starts with kRecordMarker (tokenizer.h), which no text line starts with, and says its
// own length.
#include <string>
#include <string_view>

#include "event.h"
#include "tokenizer.h"

namespace iotap::engine {

// `record` is one whole record: from its marker, record_length() bytes. A code no event has
// (a later version's) is LineKind::other; a known code with the wrong length or a field out of
// range is malformed.
Tokenized decode_record(std::string_view record, Event& event);

// The record of the event text line `line` is, appended to `out`; false (nothing appended) for
// a line that is no event, or an event with no record form (PB, PT, PE stay text). For tests
// and the benchmark: the probes write records themselves.
bool encode_line(std::string_view line, std::string& out);

// The text line `record` stands for (no newline), appended to `out`, as the probes print it;
// false (nothing appended) for a record that is malformed or from a later version.
bool text_of_record(std::string_view record, std::string& out);

// The record of CODE as the tapsets' printf writes it: its LENGTH, and the format of its fields
// after the head ("%8b%4b..."); 0 and "" for a code no event has. What tests hold the tapsets to.
size_t record_length(unsigned code);
std::string record_fields_format(unsigned code);

// `text` (whole lines) with every event line that has a record form as its record; the header,
// PB, PT, PE and other lines kept as they are.
std::string records_of(std::string_view text);

}  // namespace iotap::engine
