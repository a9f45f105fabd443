#include "iotap/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "iotap/recording/fidelity.h"
#include "iotap/report/attribution_check.h"

namespace iotap::compare {

namespace {

constexpr const char* kAttributionSchema = "iotap.attribution/3";

// The relative change from a to b, or null when a is 0 (no base to compare with).
Json change(double a, double b) {
  if (a == 0) return nullptr;
  return (b - a) / a;
}

// Worth a look: B's change against A is more than kNotableChange (any change from 0), and for a
// latency more than kNotableMicroseconds.
bool notable(double a, double b, bool latency) {
  const double difference = std::abs(b - a);
  if (latency && difference <= kNotableMicroseconds) return false;
  return a == 0 ? difference > 0 : difference / std::abs(a) > kNotableChange;
}

Json pair(const Json& a, const Json& b, bool latency) {
  Json out{{"a", a}, {"b", b}, {"change", nullptr}, {"notable", false}};
  if (a.is_number() && b.is_number()) {
    out["change"] = change(a.get<double>(), b.get<double>());
    out["notable"] = notable(a.get<double>(), b.get<double>(), latency);
  } else {
    out["notable"] = a.is_null() != b.is_null();
  }
  return out;
}

const Json& at_or_null(const Json& doc, const Json::json_pointer& pointer) {
  static const Json kNull = nullptr;
  return doc.contains(pointer) ? doc.at(pointer) : kNull;
}

// The stack an attribution ran on: its top device's spec (a recording's: its header's), or null.
Json stack_of(const Json& doc) {
  if (const auto recording = doc.find("recording");
      recording != doc.end() && recording->is_object())
    return recording->value("stack", Json(nullptr));
  const Json& devices = at_or_null(doc, Json::json_pointer("/devices"));
  if (devices.is_array() && !devices.empty() && devices[0].contains("spec"))
    return devices[0]["spec"];
  return nullptr;
}

Json latency_pairs(const Json& a, const Json& b) {
  Json out = Json::object();
  for (const char* key : {"mean", "p50", "p95", "p99", "max"}) {
    const Json::json_pointer at(std::string("/") + key);
    out[key] = pair(at_or_null(a, at), at_or_null(b, at), /*latency=*/true);
  }
  return out;
}

// `doc`'s member `key` when it is an array, else an empty one; a reference, not a copy.
const Json& list_of(const Json& doc, const char* key) {
  static const Json kEmpty = Json::array();
  const auto it = doc.find(key);
  return it != doc.end() && it->is_array() ? *it : kEmpty;
}

// `doc`'s member `key`, or null.
Json member(const Json& doc, const char* key) {
  return doc.is_object() ? doc.value(key, Json(nullptr)) : Json(nullptr);
}

// An item's name (a layer's, a device's), or "" when it has none.
std::string name_of(const Json& item) {
  const Json name = member(item, "name");
  return name.is_string() ? name.get<std::string>() : "";
}

// `doc`'s member `key` when it is an object, else an empty one.
Json object_of(const Json& doc, const char* key) {
  const Json value = member(doc, key);
  return value.is_object() ? value : Json::object();
}

// The items of `list` by their `key` (a string): the first of each name. One pass, so that
// matching thousands of devices stays linear.
std::unordered_map<std::string, const Json*> by_name(const Json& list, const char* key) {
  std::unordered_map<std::string, const Json*> out;
  for (const auto& item : list) {
    const auto it = item.is_object() ? item.find(key) : item.end();
    if (it != item.end() && it->is_string()) out.emplace(it->get<std::string>(), &item);
  }
  return out;
}

const Json& found_or_null(const std::unordered_map<std::string, const Json*>& items,
                          const std::string& name) {
  static const Json kNull = nullptr;
  const auto it = items.find(name);
  return it == items.end() ? kNull : *it->second;
}

// A recording holds requests only: it has no data for the block I/O rows (layers, devices).
bool is_recording(const Json& doc) {
  return doc.contains("recording");
}

// A block I/O row where one side is a recording: that side has no data, which is not a
// difference worth a look.
void mark_no_data(Json& pair, const char* side) {
  pair["notable"] = false;
  pair["no_data"] = side;
}

// The slow members named; null for a recording, which holds no block I/O to judge.
Json verdict_of(const Json& doc) {
  if (is_recording(doc)) return nullptr;
  Json out = Json::array();
  const Json& slow = at_or_null(doc, Json::json_pointer("/verdict/slow_members"));
  if (!slow.is_array()) return out;
  for (const auto& s : slow) {
    const Json evidence = object_of(s, "evidence");
    const Json array = member(s, "array");
    out.push_back({{"name", name_of(s)},
                   {"spec", member(s, "spec")},
                   {"array", array.is_string() ? array : Json("")},
                   {"mean_us", evidence.value("mean_us", 0.0)},
                   {"share_of_slowest", evidence.value("share_of_slowest", 0.0)}});
  }
  return out;
}

// A provider's levels by name (a's first, then b's that a lacks): count, latency and the time
// split. Empty when neither side has levels (schema 2, or a run without a provider's levels).
Json level_pairs(const Json& a, const Json& b) {
  const Json& la = list_of(a, "levels");
  const Json& lb = list_of(b, "levels");
  const auto levels_a = by_name(la, "name");
  const auto levels_b = by_name(lb, "name");
  Json levels = Json::array();
  std::unordered_map<std::string, bool> listed;
  for (const Json* list : {&la, &lb}) {
    for (const auto& level : *list) {
      const std::string name = name_of(level);
      if (!listed.emplace(name, true).second) continue;
      const Json& x = found_or_null(levels_a, name);
      const Json& y = found_or_null(levels_b, name);
      Json time;
      for (const char* part : {"reads_stack", "reads_cache", "writes", "other"})
        time[part] = pair(member(object_of(x, "time_us"), part),
                          member(object_of(y, "time_us"), part), /*latency=*/true);
      levels.push_back(
          {{"name", name},
           {"count", pair(member(x, "count"), member(y, "count"), false)},
           {"latency_us", latency_pairs(object_of(x, "latency_us"), object_of(y, "latency_us"))},
           {"time_us", std::move(time)}});
    }
  }
  return levels;
}

}  // namespace

Json attribution_of(const recording::Recording& recording) {
  std::vector<double> all;
  std::vector<std::vector<double>> by_op(3);
  const std::string ops = "RWF";
  for (const auto& r : recording.requests) {
    const double us = static_cast<double>(r.latency_ns) / 1000;
    all.push_back(us);
    by_op[ops.find(r.op)].push_back(us);
  }
  const auto latency = [](std::vector<double> values) {
    if (values.empty()) return Json{{"mean", 0}, {"p50", 0}, {"p95", 0}, {"p99", 0}, {"max", 0}};
    double sum = 0;
    for (const double v : values) sum += v;
    const double mean = sum / static_cast<double>(values.size());
    const double max = *std::max_element(values.begin(), values.end());
    return Json{{"mean", mean},
                {"p50", recording::nearest_rank(values, 0.50)},
                {"p95", recording::nearest_rank(values, 0.95)},
                {"p99", recording::nearest_rank(values, 0.99)},
                {"max", max}};
  };
  Json kinds = Json::array();
  const std::vector<std::string> names = {"read", "write", "flush"};
  for (size_t i = 0; i < by_op.size(); ++i) {
    if (by_op[i].empty()) continue;
    kinds.push_back(
        {{"op", names[i]}, {"count", by_op[i].size()}, {"latency_us", latency(by_op[i])}});
  }
  const Json header = recording.header();
  return Json{{"schema", kAttributionSchema},
              {"recording",
               {{"program", header.value("program", Json(nullptr))},
                {"stack", header.value("stack", Json(nullptr))}}},
              {"requests",
               {{"source", header.value("source", "")},
                {"count", recording.requests.size()},
                {"latency_us", latency(all)},
                {"kinds", kinds}}}};
}

void check_attribution(const Json& doc, const std::string& name) {
  report::check_attribution(doc, name, " nor a recording");
}

Json compare(const Json& a, const std::string& a_name, const Json& b, const std::string& b_name) {
  Json out;
  out["schema"] = kSchema;
  out["a"] = {{"file", a_name},
              {"stack", stack_of(a)},
              {"kind", is_recording(a) ? "recording" : "attribution"}};
  out["b"] = {{"file", b_name},
              {"stack", stack_of(b)},
              {"kind", is_recording(b) ? "recording" : "attribution"}};
  const Json ra = object_of(a, "requests");
  const Json rb = object_of(b, "requests");
  Json requests{
      {"count", pair(member(ra, "count"), member(rb, "count"), /*latency=*/false)},
      {"latency_us", latency_pairs(object_of(ra, "latency_us"), object_of(rb, "latency_us"))}};
  Json kinds = Json::array();
  const auto kinds_a = by_name(list_of(ra, "kinds"), "op");
  const auto kinds_b = by_name(list_of(rb, "kinds"), "op");
  for (const char* op : {"read", "write", "flush"}) {
    const Json& ka = found_or_null(kinds_a, op);
    const Json& kb = found_or_null(kinds_b, op);
    if (ka.is_null() && kb.is_null()) continue;
    kinds.push_back(
        {{"op", op},
         {"count", pair(member(ka, "count"), member(kb, "count"), false)},
         {"latency_us", latency_pairs(object_of(ka, "latency_us"), object_of(kb, "latency_us"))}});
  }
  requests["kinds"] = std::move(kinds);
  out["requests"] = std::move(requests);
  out["levels"] = level_pairs(a, b);

  // The block I/O rows: a recording has none of its own (it is marked as having no data).
  const char* no_data = is_recording(a) ? "a" : is_recording(b) ? "b" : nullptr;
  const auto with_no_data = [no_data](Json pair) {
    if (no_data != nullptr) mark_no_data(pair, no_data);
    return pair;
  };
  Json layers = Json::array();
  const Json& la = list_of(a, "layers");
  const Json& lb = list_of(b, "layers");
  const auto layers_a = by_name(la, "name");
  const auto layers_b = by_name(lb, "name");
  for (const auto& layer : la.empty() ? lb : la) {
    const std::string name = name_of(layer);
    const Json& x = found_or_null(layers_a, name);
    const Json& y = found_or_null(layers_b, name);
    layers.push_back(
        {{"name", name},
         {"mean_us", with_no_data(pair(member(x, "mean_us"), member(y, "mean_us"), true))},
         {"share", with_no_data(pair(member(x, "share"), member(y, "share"), false))}});
  }
  out["layers"] = std::move(layers);

  // Devices by name, a's first in its order, then b's that a lacks.
  const Json& da = list_of(a, "devices");
  const Json& db = list_of(b, "devices");
  const auto devices_a = by_name(da, "name");
  const auto devices_b = by_name(db, "name");
  Json devices = Json::array();
  std::unordered_map<std::string, bool> listed;
  for (const Json* list : {&da, &db}) {
    for (const auto& d : *list) {
      if (!d.contains("ios")) continue;
      const std::string name = name_of(d);
      if (!listed.emplace(name, true).second) continue;
      const Json& x = found_or_null(devices_a, name);
      const Json& y = found_or_null(devices_b, name);
      devices.push_back(
          {{"name", name},
           {"spec", {{"a", member(x, "spec")}, {"b", member(y, "spec")}}},
           {"ios", with_no_data(pair(member(x, "ios"), member(y, "ios"), false))},
           {"bytes", with_no_data(pair(member(x, "bytes"), member(y, "bytes"), false))},
           {"latency_us", latency_pairs(object_of(x, "latency_us"), object_of(y, "latency_us"))}});
      if (no_data != nullptr)
        for (const auto& [key, latency] : devices.back()["latency_us"].items())
          mark_no_data(latency, no_data);
    }
  }
  out["devices"] = std::move(devices);
  out["verdicts"] = {{"a", verdict_of(a)}, {"b", verdict_of(b)}};
  return out;
}

}  // namespace iotap::compare
