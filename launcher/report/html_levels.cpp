#include "html_levels.h"

#include <array>
#include <cstdio>

#include "html_parts.h"
#include "words.h"

namespace iotap::report::html_levels {
namespace {

using html_parts::duration;
using html_parts::escape;
using html_parts::text_of;

// The split's parts, in the order the bar draws them, with their colours and names.
struct Part {
  const char* key;
  const char* name;
  const char* colour;
};
constexpr std::array<Part, 4> kParts = {{{"reads_stack", "reads that reached the stack", "#e45756"},
                                         {"reads_cache", "reads the page cache served", "#72b7b2"},
                                         {"writes", "writes", "#f2cf5b"},
                                         {"other", "other: CPU, locks", "#bab0ac"}}};

double number(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0;
}

// A bar of the split's shares, a segment per part (a <title> on each says its share).
std::string split_bar(const Json& time) {
  double total = 0;
  for (const Part& part : kParts) total += number(time, part.key);
  if (total <= 0) return "";
  std::string svg = R"(<svg class="split" viewBox="0 0 100 4" width="240" height="12">)";
  double at = 0;
  for (const Part& part : kParts) {
    const double share = number(time, part.key) / total;
    if (share <= 0) continue;
    std::array<char, 96> rect{};
    std::snprintf(rect.data(), rect.size(), R"(<rect x="%.2f" y="0" width="%.2f" height="4" )",
                  at * 100, share * 100);
    svg += rect.data() + std::string("fill=\"") + part.colour + "\"><title>" + part.name + ": " +
           whole_percent(share) + "</title></rect>";
    at += share;
  }
  return svg + "</svg>";
}

std::string legend() {
  std::string html = "<p class=\"legend\">";
  for (const Part& part : kParts)
    html += "<span><i style=\"background:" + std::string(part.colour) + "\"></i>" + part.name +
            "</span>";
  return html + "</p>";
}

}  // namespace

Unit unit_of(const Json& a) {
  const Json levels = a.value("levels", Json::array());
  if (!levels.is_array() || levels.empty() || text_of(levels[0], "name").empty())
    return {"request", "requests"};
  const std::string many = text_of(levels[0], "plural");
  return {text_of(levels[0], "name"), many.empty() ? text_of(levels[0], "name") : many};
}

std::string levels_section(const Json& a) {
  const Json levels = a.value("levels", Json::array());
  if (!levels.is_array() || levels.empty()) return "";
  std::string rows;
  for (const auto& level : levels) {
    const Json latency = level.value("latency_us", Json::object());
    const Json time = level.value("time_us", Json::object());
    double total = 0;
    for (const Part& part : kParts) total += number(time, part.key);
    rows += "<tr><td>" + escape(text_of(level, "name")) + "</td><td>" +
            std::to_string(level.value("count", uint64_t{0})) + "</td><td>" +
            duration(number(latency, "mean")) + "</td><td>" + duration(number(latency, "p99")) +
            "</td>";
    for (const Part& part : kParts)
      rows += "<td>" + whole_percent(total > 0 ? number(time, part.key) / total : 0) + "</td>";
    rows += "<td class=\"text\">" + split_bar(time) + "</td></tr>";
  }
  std::string sentence;
  const Json tail = a.value("slowest_time", Json());
  const bool one = tail.is_object() && tail.value("requests", uint64_t{0}) == 1;
  if (tail.is_object() && tail.value("requests", uint64_t{0}) > 0)
    sentence = "<p>The " + std::to_string(tail.value("requests", uint64_t{0})) + " slowest " +
               escape(text_of(levels[0], one ? "name" : "plural")) + " spent " +
               whole_percent(number(tail, "reads_share")) + " of " + (one ? "its" : "their") +
               " time waiting on reads (" + whole_percent(number(tail, "stack_share")) +
               " on reads that reached the stack).</p>";
  return "<section id=\"levels\"><h2>Where the " + escape(text_of(levels[0], "plural")) +
         "' time went</h2>" + sentence + legend() +
         "<table><tr><th>level</th><th>count</th><th>mean</th><th>p99</th><th>reads: stack</th>"
         "<th>reads: cache</th><th>writes</th><th>other</th><th class=\"text\">split</th></tr>" +
         rows + "</table></section>\n";
}

std::string slowest_section(const Json& a) {
  const Json slowest = a.value("slowest", Json::array());
  const Json levels = a.value("levels", Json::array());
  if (!slowest.is_array() || slowest.empty() || !levels.is_array() || levels.empty()) return "";
  std::string html =
      "<section id=\"slowest\"><h2>The slowest " + escape(text_of(levels[0], "plural")) + "</h2>";
  for (const auto& request : slowest) {
    html += "<figure class=\"waterfall\"><figcaption>" + escape(text_of(request, "level")) + " #" +
            std::to_string(request.value("request", uint64_t{0})) + "<span class=\"stat\">thread " +
            std::to_string(request.value("thread", 0)) + " · " +
            duration(number(request, "latency_us")) + " · " +
            std::to_string(request.value("io", uint64_t{0})) + " I/O inside</span> " +
            split_bar(request.value("time_us", Json::object())) + "</figcaption>";
    if (!text_of(request, "text").empty())
      html += "<p><code>" + escape(text_of(request, "text")) + "</code></p>";
    for (const auto& io : request.value("inner", Json::array())) {
      html += "<p class=\"sub\">" + escape(text_of(io, "call")) + " at " +
              duration(number(io, "start_us")) + " · " + duration(number(io, "latency_us")) +
              "</p>" + html_parts::waterfall_svg(io);
    }
    html += "</figure>";
  }
  return html + "</section>\n";
}

}  // namespace iotap::report::html_levels
