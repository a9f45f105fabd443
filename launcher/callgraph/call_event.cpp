#include "iotap/callgraph/call_event.h"

#include <array>
#include <charconv>

namespace iotap::callgraph {
namespace {

constexpr size_t kFields = 8;

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const auto* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

}  // namespace

std::optional<CallEvent> parse_call_event(std::string_view line) {
  std::array<std::string_view, kFields> fields;
  size_t count = 0;
  while (count + 1 < kFields) {
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) break;
    fields.at(count++) = line.substr(0, tab);
    line.remove_prefix(tab + 1);
  }
  // The detail is the rest of the line, tabs and all.
  fields.at(count++) = line;
  if (count != kFields || fields[0] != "cg") return std::nullopt;

  CallEvent event;
  if (fields[1] == ">") {
    event.direction = Direction::kEntry;
  } else if (fields[1] == "<") {
    event.direction = Direction::kReturn;
  } else if (fields[1] == "!") {
    event.direction = Direction::kUnwound;
  } else {
    return std::nullopt;
  }
  if (fields[5] == "u") {
    event.side = Side::kUser;
  } else if (fields[5] == "k") {
    event.side = Side::kKernel;
  } else {
    return std::nullopt;
  }
  if (!parse_number(fields[2], event.ns) || !parse_number(fields[3], event.pid) ||
      !parse_number(fields[4], event.tid) || fields[6].empty())
    return std::nullopt;
  event.function = fields[6];
  event.detail = fields[7];
  return event;
}

}  // namespace iotap::callgraph
