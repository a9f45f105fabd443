#include "iotap/report.h"

namespace iotap::report {
namespace {

using Json = nlohmann::ordered_json;

// The powers of two from the lowest one used to the highest, the empty ones between included,
// so that a chart of them keeps its scale.
Json histogram(const std::vector<uint64_t>& log2_us) {
  Json buckets = Json::array();
  size_t first = 0;
  while (first < log2_us.size() && log2_us[first] == 0) ++first;
  for (size_t power = first; power < log2_us.size(); ++power)
    buckets.push_back({{"from_us", power == 0 ? 0 : uint64_t{1} << (power - 1)},
                       {"to_us", uint64_t{1} << power},
                       {"count", log2_us[power]}});
  return buckets;
}

Json latency_us(const engine::Latency& l) {
  return Json{{"mean", l.mean_us}, {"p50", l.p50_us}, {"p95", l.p95_us},
              {"p99", l.p99_us},   {"max", l.max_us}, {"histogram", histogram(l.log2_us)}};
}

// Microseconds from `from` to `to`, which may be earlier. Subtracted as integers: a double
// cannot hold a nanosecond timestamp exactly.
double since(uint64_t from, uint64_t to) {
  return to >= from ? static_cast<double>(to - from) / 1000
                    : -static_cast<double>(from - to) / 1000;
}

// An absent name (no spec, no parent) is null, as in iotap.run/1's device list.
Json name_or_null(const std::string& name) {
  return name.empty() ? Json(nullptr) : Json(name);
}

std::string dev_text(uint32_t dev) {
  return std::to_string(dev >> 20U) + ":" + std::to_string(dev & ((1U << 20U) - 1));
}

}  // namespace

Json json(const engine::Result& r, std::string_view why) {
  Json out;
  out["schema"] = kSchema;

  Json kinds = Json::array();
  for (const auto& k : r.request_kinds)
    kinds.push_back({{"op", k.op},
                     {"count", k.count},
                     {"errors", k.errors},
                     {"without_block_io", k.without_block_io},
                     {"latency_us", latency_us(k.latency)}});
  out["requests"] = {{"source", engine::to_string(r.request_source)},
                     {"provider", name_or_null(r.request_provider)},
                     {"count", r.requests.count},
                     {"errors", r.request_errors},
                     {"without_block_io", r.requests_without_block_io},
                     {"latency_us", latency_us(r.requests)},
                     {"kinds", std::move(kinds)}};
  out["unrequested"] = {{"reads", r.unrequested.reads},
                        {"writes", r.unrequested.writes},
                        {"flushes", r.unrequested.flushes},
                        {"others", r.unrequested.others},
                        {"bytes", r.unrequested.bytes}};

  Json layers = Json::array();
  for (const auto& layer : r.layers)
    layers.push_back({{"name", layer.name}, {"mean_us", layer.mean_us}, {"share", layer.share}});
  out["layers"] = std::move(layers);

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
  out["devices"] = std::move(devices);

  Json slow = Json::array();
  for (const auto& s : r.slow_members)
    slow.push_back({{"name", s.name},
                    {"spec", name_or_null(s.spec)},
                    {"parent", name_or_null(s.parent)},
                    {"member", s.member},
                    {"array", s.array},
                    {"evidence",
                     {{"mean_us", s.mean_us},
                      {"siblings_mean_us", s.siblings_mean_us},
                      {"siblings", s.siblings},
                      {"share_of_slowest", s.share_of_slowest},
                      {"slowest_fraction", engine::kSlowestFraction},
                      {"slowest_requests", s.slowest_requests}}}});
  Json failing = Json::array();
  for (const auto& f : r.failing_members)
    failing.push_back({{"name", f.name},
                       {"spec", name_or_null(f.spec)},
                       {"parent", name_or_null(f.parent)},
                       {"ios", f.ios},
                       {"errors", f.errors}});
  Json reason = nullptr;
  if (const std::string sentence = verdict_status_sentence(r); !sentence.empty())
    reason = why.empty() ? sentence : sentence + "; " + std::string(why);
  out["verdict"] = {{"status", engine::to_string(engine::verdict_status(r))},
                    {"reason", std::move(reason)},
                    {"slow_members", std::move(slow)},
                    {"failing_members", std::move(failing)}};

  out["loss"] = {{"sequence_gaps", r.loss.sequence_gaps},
                 {"events_lost", r.loss.events_lost},
                 {"unmatched_completions", r.loss.unmatched_completions},
                 {"malformed_lines", r.loss.malformed_lines},
                 {"skipped_probes", r.loss.skipped_probes},
                 {"transport_failures", r.loss.transport_failures}};

  out["remap_check"] = {{"checked", r.remap_check.checked},
                        {"mismatches", r.remap_check.mismatches},
                        {"examples", r.remap_check.examples}};

  Json slowest = Json::array();
  for (const auto& w : r.slowest) {
    Json stages = Json::array();
    for (const auto& s : w.stages)
      stages.push_back(
          {{"layer", s.layer},
           {"device", s.device},
           {"start_us", since(w.start_ns, s.start_ns)},
           {"dwell_us",
            s.end_ns >= s.start_ns ? static_cast<double>(s.end_ns - s.start_ns) / 1000 : 0.0},
           {"bios", s.bios}});
    slowest.push_back({{"request", w.request_id},
                       {"call", w.call},
                       {"thread", w.thread},
                       {"offset", w.offset},
                       {"size", w.size},
                       {"result", w.result},
                       {"latency_us", static_cast<double>(w.latency_ns) / 1000},
                       {"stages", std::move(stages)}});
  }
  out["slowest"] = std::move(slowest);

  out["stream"] = {{"events", r.events},
                   {"other_lines", r.stream.other_lines},
                   {"late_events", r.stream.late_events},
                   {"untraced_split_completions", r.stream.untraced_split_completions},
                   {"abandoned_bios", r.stream.abandoned_bios},
                   {"bios_in_flight", r.stream.bios_in_flight},
                   {"requests_unfinished", r.stream.requests_unfinished},
                   {"requests_elsewhere", r.stream.requests_elsewhere}};
  return out;
}

}  // namespace iotap::report
