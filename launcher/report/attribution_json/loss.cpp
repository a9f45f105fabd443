#include "sections.h"

namespace iotap::report::attribution_json {

// What the stream lost or could not use: a verdict on a lossy stream is read with care.
Json loss(const engine::Result& r) {
  return {{"sequence_gaps", r.loss.sequence_gaps},
          {"events_lost", r.loss.events_lost},
          {"unmatched_completions", r.loss.unmatched_completions},
          {"malformed_lines", r.loss.malformed_lines},
          {"skipped_probes", r.loss.skipped_probes},
          {"transport_failures", r.loss.transport_failures}};
}

}  // namespace iotap::report::attribution_json
