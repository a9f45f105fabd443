#pragma once
// An attribution as one self-contained HTML page (`attribute --html`, `diagnose --html`, `iotap
// report`): no script, nothing fetched from the network, no font to load; the charts are SVG
// drawn here, so the file opens anywhere, offline, as it was written.
#include <string>

#include "iotap/util/json_text.h"

namespace iotap::report {

// The page for `attribution`, the JSON `attribute --json` prints (schema iotap.attribution/3, or
// 2): the verdict first; the stack as a tree, the slow and failing members marked; the requests'
// and each device's latency histogram over powers of two (a log scale); the layers' shares of
// the requests' time; the slowest requests' waterfalls (with a provider's levels: the levels' time
// split, and the slowest queries with the waterfalls of their reads); every device's numbers; what
// was lost and what the probes cost. `title` says what was run (a command line, a file name).
std::string html(const Json& attribution, const std::string& title);

}  // namespace iotap::report
