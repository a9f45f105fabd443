#include "sections.h"

namespace iotap::report::attribution_json {

// Where the requests' time went: each layer's mean and its share.
Json layers(const engine::Result& r) {
  Json layers = Json::array();
  for (const auto& layer : r.layers)
    layers.push_back({{"name", layer.name}, {"mean_us", layer.mean_us}, {"share", layer.share}});
  return layers;
}

}  // namespace iotap::report::attribution_json
