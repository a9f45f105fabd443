#pragma once
// The pieces report/html.h's page is made of: text made safe for HTML, durations as people read
// them, and the inline SVG charts. Every chart takes the JSON part it draws, as `attribute
// --json` prints it, and returns markup; a <title> on each bar says its exact numbers on hover.
#include <string>
#include <string_view>

#include "iotap/util/json_text.h"

namespace iotap::report::html_parts {

// The text with &, <, >, " and ' as character references: safe in an element or an attribute.
std::string escape(std::string_view text);

// `object`'s member `key` when it is a string, else "" (absent, null). An attribution read from
// a file is checked first (attribution_check.h); this keeps the page safe without it.
std::string text_of(const Json& object, const char* key);

// Microseconds as a person reads them: "0.8 µs", "850 µs", "12.3 ms", "1.20 s".
std::string duration(double us);

// A count of bytes: "512 B", "64.0 KiB", "1.0 GiB".
std::string bytes(double count);

// The colour a layer ("md", "member device", ...) has on every chart of the page.
std::string_view layer_colour(std::string_view layer);

// A latency histogram: `buckets` is a latency_us.histogram ([{from_us, to_us, count}], powers of
// two, so the axis is a log scale); `what` names it for the hover text; its bars are `colour`.
// Empty buckets: "".
std::string histogram_svg(const Json& buckets, std::string_view what,
                          std::string_view colour = "#4c78a8");

// The layers' shares of the requests' time as one bar, a segment per layer ("layers").
std::string shares_svg(const Json& layers);

// One of "slowest": each stage a row, its bar where it started and as long as it dwelt, on the
// request's own time scale.
std::string waterfall_svg(const Json& request);

}  // namespace iotap::report::html_parts
