#include <string>
#include <utility>

#include "iotap/recording/recording.h"

namespace iotap::recording {

namespace {

// Requests are handed to the sink in chunks of about this size: few writes, flat memory.
constexpr size_t kChunkBytes = size_t{64} * 1024;

// A header or end line's object. Bytes that are not UTF-8 (a -c command may hold any) become
// U+FFFD instead of making dump() throw after a whole run.
std::string one_line(const Json& object) {
  return object.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string format_line(const Request& request) {
  std::string line;
  line.reserve(96);
  const auto field = [&line](const std::string& text) {
    if (!line.empty()) line += ' ';
    line += text;
  };
  field(std::to_string(request.start_ns));
  field(std::to_string(request.thread));
  field(std::string(1, request.op));
  field(std::to_string(request.offset));
  field(std::to_string(request.size));
  field(std::to_string(request.result));
  field(std::to_string(request.latency_ns));
  field(request.dev.empty() ? "-" : request.dev);
  field(request.direct ? "1" : "0");
  field(request.call);
  return line;
}

Writer::Writer(Sink sink, const Json& header) : sink_(std::move(sink)) {
  buffer_ =
      std::string(kMagic) + " " + std::to_string(kVersion) + "\nheader " + one_line(header) + "\n";
  flush();  // at once: a recording cut short still says what it was of
}

void Writer::add(const Request& request) {
  buffer_ += format_line(request);
  buffer_ += '\n';
  ++requests_;
  if (buffer_.size() >= kChunkBytes) flush();
}

void Writer::finish(Json end) {
  end["requests"] = requests_;
  buffer_ += "end " + one_line(end) + "\n";
  flush();
}

void Writer::flush() {
  if (buffer_.empty()) return;
  sink_(buffer_);
  buffer_.clear();
}

}  // namespace iotap::recording
