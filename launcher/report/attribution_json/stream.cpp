#include "sections.h"

namespace iotap::report::attribution_json {

// The event stream's own counts: what was read, and what was left unjoined at its end.
Json stream(const engine::Result& r) {
  return {{"events", r.events},
          {"other_lines", r.stream.other_lines},
          {"late_events", r.stream.late_events},
          {"untraced_split_completions", r.stream.untraced_split_completions},
          {"abandoned_bios", r.stream.abandoned_bios},
          {"bios_in_flight", r.stream.bios_in_flight},
          {"requests_unfinished", r.stream.requests_unfinished},
          {"requests_elsewhere", r.stream.requests_elsewhere}};
}

}  // namespace iotap::report::attribution_json
