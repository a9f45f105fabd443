#include "sections.h"

namespace iotap::report::attribution_json {

// The remaps (M events) checked against the stack's own geometry, and those that disagreed.
Json remap_check(const engine::Result& r) {
  return {{"checked", r.remap_check.checked},
          {"mismatches", r.remap_check.mismatches},
          {"examples", r.remap_check.examples}};
}

}  // namespace iotap::report::attribution_json
