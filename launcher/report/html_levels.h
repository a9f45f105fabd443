#pragma once
// The HTML page's parts for a provider's levels (report/html.h): a table of the levels with
// each one's time split as a bar, and the slowest queries, each with its text and the
// waterfalls of the slowest I/O inside it. Both take the attribution JSON; both are "" when it
// has no levels (schema 2, or a run without them).
#include <string>

#include "iotap/util/json_text.h"

namespace iotap::report::html_levels {

// The unit the user reads: the outermost level's name and plural ("query", "queries"), or
// "request", "requests" without levels.
struct Unit {
  std::string one, many;
};
Unit unit_of(const Json& attribution);

std::string levels_section(const Json& attribution);
std::string slowest_section(const Json& attribution);

}  // namespace iotap::report::html_levels
