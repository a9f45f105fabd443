#include <cstdint>
#include <string>
#include <utility>

#include "sections.h"

namespace iotap::report::attribution_json {
namespace {

std::string dev_text(uint32_t dev) {
  return std::to_string(dev >> 20U) + ":" + std::to_string(dev & ((1U << 20U) - 1));
}

}  // namespace

// Every device a bio was seen on, with its latency and the time it alone added.
Json devices(const engine::Result& r) {
  Json devices = Json::array();
  for (const auto& d : r.devices) {
    Json device = {{"name", d.name},
                   {"dev", dev_text(d.dev)},
                   {"spec", name_or_null(d.spec)},
                   {"parent", name_or_null(d.parent)},
                   {"ios", d.ios},
                   {"bytes", d.bytes},
                   {"errors", d.errors},
                   {"latency_us", latency_us(d.latency)},
                   {"exclusive_us", {{"mean", d.exclusive_us}}}};
    // Request-based disks only (I and D events): each request's issue to completion.
    if (d.service.count > 0)
      device["service_us"] = {{"requests", d.service.count}, {"mean", d.service.mean_us},
                              {"p50", d.service.p50_us},     {"p95", d.service.p95_us},
                              {"p99", d.service.p99_us},     {"max", d.service.max_us}};
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace iotap::report::attribution_json
