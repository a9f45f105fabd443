#include "perfetto/events.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "html_parts.h"
#include "iotap/util/json_text.h"

namespace iotap::report::perfetto {
namespace {

template <typename Number>
void number(std::string& out, Number value) {
  std::array<char, 24> digits{};
  const auto [end, error] = std::to_chars(digits.begin(), digits.end(), value);
  out.append(digits.begin(), end);
}

// Nanoseconds as the format's microseconds, exactly: "12345.678".
void microseconds(std::string& out, uint64_t ns) {
  number(out, ns / 1000);
  const uint64_t fraction = ns % 1000;
  out += '.';
  out += static_cast<char>('0' + fraction / 100);
  out += static_cast<char>('0' + fraction / 10 % 10);
  out += static_cast<char>('0' + fraction % 10);
}

// A JSON string. Names iotap makes are plain ASCII and go as they are; a title or a query's text
// may hold anything, and goes through nlohmann::json, any byte that is not UTF-8 replaced.
void string(std::string& out, std::string_view text) {
  const bool plain = std::ranges::all_of(
      text, [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `"key":`
void key(std::string& out, std::string_view name) {
  out += '"';
  out += name;
  out += "\":";
}

// `,"name":VALUE`: an args field after the first.
template <typename Number>
void number_field(std::string& out, std::string_view name, Number value) {
  out += ',';
  key(out, name);
  number(out, value);
}

// The start of a slice: {"ph":"X","cat":CAT,"name":NAME,"pid":P,"tid":T,"ts":TS,"dur":DUR,"args":{
void slice_start(std::string& out, std::string_view cat, std::string_view name, int pid, int tid,
                 uint64_t start_ns, uint64_t duration_ns) {
  out += R"({"ph":"X","cat":)";
  string(out, cat);
  out += R"(,"name":)";
  string(out, name);
  out += R"(,"pid":)";
  number(out, pid);
  out += R"(,"tid":)";
  number(out, tid);
  out += R"(,"ts":)";
  microseconds(out, start_ns);
  out += R"(,"dur":)";
  microseconds(out, duration_ns);
  out += R"(,"args":{)";
}

}  // namespace

void name_event(std::string& out, const char* what, int pid, int tid, std::string_view name) {
  out += R"({"ph":"M","name":")";
  out += what;
  out += R"(","pid":)";
  number(out, pid);
  out += R"(,"tid":)";
  number(out, tid);
  out += R"(,"args":{"name":)";
  string(out, name);
  out += "}}";
}

void sort_index_event(std::string& out, int pid, int sort_index) {
  out += R"({"ph":"M","name":"process_sort_index","pid":)";
  number(out, pid);
  out += R"(,"tid":0,"args":{"sort_index":)";
  number(out, sort_index);
  out += "}}";
}

void request_slice(std::string& out, const engine::FinishedRequest& request) {
  slice_start(
      out, "request",
      std::string(request.call) + " " + html_parts::bytes(static_cast<double>(request.size)),
      kProgramPid, request.tid, request.start_ns, request.latency_ns);
  key(out, "request");
  number(out, request.id);
  number_field(out, "offset", request.offset);
  number_field(out, "size", request.size);
  number_field(out, "result", request.result);
  out += "}}";
}

void level_slice(std::string& out, const engine::FinishedLevelRequest& request) {
  // A query's name is its text (shortened), as a DBA knows it; the rest its level's name.
  const std::string name(request.name);
  const std::string shown =
      request.text.empty() ? name : name + ": " + std::string(request.text.substr(0, 60));
  slice_start(out, "level", shown, kProgramPid, request.tid, request.start_ns, request.latency_ns);
  key(out, "level");
  string(out, name);
  number_field(out, "level_request", request.id);
  number_field(out, "file", request.file);
  number_field(out, "offset", request.offset);
  number_field(out, "result", request.result);
  out += ',';
  key(out, "text");
  string(out, request.text);
  out += "}}";
}

void bio_slice(std::string& out, const engine::FinishedBio& bio, int pid, int tid,
               std::string_view name) {
  slice_start(out, "bio", name, pid, tid, bio.start_ns,
              bio.end_ns > bio.start_ns ? bio.end_ns - bio.start_ns : 0);
  key(out, "bio");
  number(out, bio.id);
  number_field(out, "sector", bio.sector);
  number_field(out, "bytes", bio.bytes);
  number_field(out, "request", bio.request_id);
  number_field(out, "error", bio.error);
  // A split part, or the first stage of a bio remapped as itself: not an io of the device.
  if (!bio.io) out += R"(,"io":false)";
  out += "}}";
}

void flow_event(std::string& out, char phase, uint64_t id, int pid, int tid, uint64_t ts_ns) {
  out += R"({"ph":")";
  out += phase;
  out += phase == 'f' ? R"(","bp":"e",)" : R"(",)";
  out += R"("cat":"flow","name":"bio","id":)";
  number(out, id);
  out += R"(,"pid":)";
  number(out, pid);
  out += R"(,"tid":)";
  number(out, tid);
  out += R"(,"ts":)";
  microseconds(out, ts_ns);
  out += '}';
}

}  // namespace iotap::report::perfetto
