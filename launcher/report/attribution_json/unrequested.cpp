#include "sections.h"

namespace iotap::report::attribution_json {

// Block I/O no request of the program caused, by kind.
Json unrequested(const engine::Result& r) {
  return {{"reads", r.unrequested.reads},
          {"writes", r.unrequested.writes},
          {"flushes", r.unrequested.flushes},
          {"others", r.unrequested.others},
          {"bytes", r.unrequested.bytes}};
}

}  // namespace iotap::report::attribution_json
