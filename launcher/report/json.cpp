#include "attribution_json/sections.h"
#include "iotap/report.h"

namespace iotap::report {

// One writer per section (attribution_json/): this is their order.
Json json(const engine::Result& r, std::string_view why) {
  Json out;
  out["schema"] = kSchema;
  out["requests"] = attribution_json::requests(r);
  out["levels"] = attribution_json::levels(r);
  out["slowest_time"] = attribution_json::slowest_time(r);
  out["unrequested"] = attribution_json::unrequested(r);
  out["layers"] = attribution_json::layers(r);
  out["devices"] = attribution_json::devices(r);
  out["verdict"] = attribution_json::verdict(r, why);
  out["loss"] = attribution_json::loss(r);
  out["remap_check"] = attribution_json::remap_check(r);
  out["slowest"] = attribution_json::slowest(r);
  out["stream"] = attribution_json::stream(r);
  return out;
}

}  // namespace iotap::report
