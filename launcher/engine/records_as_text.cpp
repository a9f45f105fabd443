#include "iotap/records_as_text.h"

#include <algorithm>
#include <string>
#include <utility>

#include "record.h"
#include "tokenizer.h"

namespace iotap::engine {

// Text goes on at once (a live script's prompt must not wait for its newline); a record is
// held until whole. A record can only start where a line could: at the stream's start, after
// a newline, or after another record.
struct RecordsAsText::Impl {
  explicit Impl(std::function<void(std::string_view)> sink) : out(std::move(sink)) {}

  void feed(std::string_view bytes) {
    while (!bytes.empty()) {
      if (!record.empty() || (at_unit_start && bytes[0] == kRecordMarker)) {
        if (!take_record(bytes)) return;
        continue;
      }
      const size_t nl = bytes.find('\n');
      const size_t end = nl == std::string_view::npos ? bytes.size() : nl + 1;
      out(bytes.substr(0, end));
      at_unit_start = nl != std::string_view::npos;
      bytes.remove_prefix(end);
    }
  }

  // Adds to the record begun from `bytes`; false when they ran out first. A length too short
  // for a record's head means these bytes begin a text line after all.
  bool take_record(std::string_view& bytes) {
    const size_t head = std::min(bytes.size(), record.size() < 3 ? 3 - record.size() : 0);
    record.append(bytes.substr(0, head));
    bytes.remove_prefix(head);
    if (record.size() < 3) return false;
    const size_t length = static_cast<unsigned char>(record[2]);
    if (length < kRecordHead) {
      pass_on_as_is();
      return true;
    }
    const size_t part = std::min(length - record.size(), bytes.size());
    record.append(bytes.substr(0, part));
    bytes.remove_prefix(part);
    if (record.size() < length) return false;
    // Whole, it is a unit as the engine frames one, whatever its code: the next unit may be a
    // record too. One no reader knows (a later version's) is shown as it came.
    line.clear();
    if (text_of_record(record, line)) {
      line.push_back('\n');
      out(line);
    } else {
      out(record);
    }
    record.clear();
    at_unit_start = true;
    return true;
  }

  // Bytes that began like a record and are none (a length too short, or cut short at the end):
  // the script's own, shown as they are.
  void pass_on_as_is() {
    out(record);
    at_unit_start = record.back() == '\n';
    record.clear();
  }

  std::function<void(std::string_view)> out;
  std::string record;
  std::string line;
  bool at_unit_start = true;
};

RecordsAsText::RecordsAsText(std::function<void(std::string_view)> out)
    : impl_(std::make_unique<Impl>(std::move(out))) {}

RecordsAsText::~RecordsAsText() = default;

void RecordsAsText::feed(std::string_view bytes) {
  impl_->feed(bytes);
}

void RecordsAsText::finish() {
  if (!impl_->record.empty()) impl_->pass_on_as_is();
  impl_->at_unit_start = true;
}

}  // namespace iotap::engine
