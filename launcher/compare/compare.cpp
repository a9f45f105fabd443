#include "iotap/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "iotap/recording/fidelity.h"
#include "iotap/util/error.h"

namespace iotap::compare {

namespace {

constexpr const char* kAttributionSchema = "iotap.attribution/2";

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
  if (doc.contains("recording")) return doc["recording"].value("stack", Json(nullptr));
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

Json find_by(const Json& list, const char* key, const Json& value) {
  if (!list.is_array()) return nullptr;
  for (const auto& item : list)
    if (item.contains(key) && item[key] == value) return item;
  return nullptr;
}

// The slow members named; null for a recording, which holds no block I/O to judge.
Json verdict_of(const Json& doc) {
  if (doc.contains("recording")) return nullptr;
  Json out = Json::array();
  const Json& slow = at_or_null(doc, Json::json_pointer("/verdict/slow_members"));
  if (!slow.is_array()) return out;
  for (const auto& s : slow) {
    out.push_back({{"name", s.value("name", "")},
                   {"spec", s.value("spec", Json(nullptr))},
                   {"array", s.value("array", "")},
                   {"mean_us", s["evidence"].value("mean_us", 0.0)},
                   {"share_of_slowest", s["evidence"].value("share_of_slowest", 0.0)}});
  }
  return out;
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
  if (!doc.is_object() || doc.value("schema", "") != kAttributionSchema ||
      !doc.contains("requests"))
    throw UserError(name +
                    " is not an iotap attribution (the --json of iotap attribute, diagnose "
                    "or replay, schema " +
                    std::string(kAttributionSchema) + ") nor a recording");
}

Json compare(const Json& a, const std::string& a_name, const Json& b, const std::string& b_name) {
  Json out;
  out["schema"] = kSchema;
  out["a"] = {{"file", a_name}, {"stack", stack_of(a)}};
  out["b"] = {{"file", b_name}, {"stack", stack_of(b)}};
  const Json& ra = a["requests"];
  const Json& rb = b["requests"];
  Json requests{{"count", pair(ra.value("count", Json(nullptr)), rb.value("count", Json(nullptr)),
                               /*latency=*/false)},
                {"latency_us", latency_pairs(ra.value("latency_us", Json::object()),
                                             rb.value("latency_us", Json::object()))}};
  Json kinds = Json::array();
  for (const char* op : {"read", "write", "flush"}) {
    const Json ka = find_by(ra.value("kinds", Json::array()), "op", op);
    const Json kb = find_by(rb.value("kinds", Json::array()), "op", op);
    if (ka.is_null() && kb.is_null()) continue;
    kinds.push_back(
        {{"op", op},
         {"count", pair(ka.is_null() ? Json(nullptr) : ka["count"],
                        kb.is_null() ? Json(nullptr) : kb["count"], false)},
         {"latency_us", latency_pairs(ka.is_null() ? Json::object() : ka["latency_us"],
                                      kb.is_null() ? Json::object() : kb["latency_us"])}});
  }
  requests["kinds"] = std::move(kinds);
  out["requests"] = std::move(requests);

  Json layers = Json::array();
  const Json la = a.value("layers", Json::array());
  const Json lb = b.value("layers", Json::array());
  for (const auto& layer : la.empty() ? lb : la) {
    const Json x = find_by(la, "name", layer["name"]);
    const Json y = find_by(lb, "name", layer["name"]);
    layers.push_back({{"name", layer["name"]},
                      {"mean_us", pair(x.is_null() ? Json(nullptr) : x["mean_us"],
                                       y.is_null() ? Json(nullptr) : y["mean_us"], true)},
                      {"share", pair(x.is_null() ? Json(nullptr) : x["share"],
                                     y.is_null() ? Json(nullptr) : y["share"], false)}});
  }
  out["layers"] = std::move(layers);

  // Devices by name, a's first in its order, then b's that a lacks.
  Json devices = Json::array();
  std::vector<std::string> names;
  for (const Json* doc : {&a, &b})
    for (const auto& d : doc->value("devices", Json::array()))
      if (d.contains("ios") &&
          std::find(names.begin(), names.end(), d["name"].get<std::string>()) == names.end())
        names.push_back(d["name"]);
  for (const auto& name : names) {
    const Json x = find_by(a.value("devices", Json::array()), "name", name);
    const Json y = find_by(b.value("devices", Json::array()), "name", name);
    const auto field = [](const Json& d, const char* key) {
      return d.is_null() ? Json(nullptr) : d.value(key, Json(nullptr));
    };
    const auto latency = [](const Json& d) {
      return d.is_null() ? Json::object() : d.value("latency_us", Json::object());
    };
    devices.push_back({{"name", name},
                       {"spec", {{"a", field(x, "spec")}, {"b", field(y, "spec")}}},
                       {"ios", pair(field(x, "ios"), field(y, "ios"), false)},
                       {"bytes", pair(field(x, "bytes"), field(y, "bytes"), false)},
                       {"latency_us", latency_pairs(latency(x), latency(y))}});
  }
  out["devices"] = std::move(devices);
  out["verdicts"] = {{"a", verdict_of(a)}, {"b", verdict_of(b)}};
  return out;
}

}  // namespace iotap::compare
