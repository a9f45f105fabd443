#include "iotap/report/html.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string_view>
#include <vector>

#include "html_axis.h"
#include "html_levels.h"
#include "html_parts.h"
#include "words.h"

namespace iotap::report {
namespace {

using html_parts::Axis;
using html_parts::duration;
using html_parts::escape;
using html_parts::on_axis;
using html_parts::text_of;
using html_parts::widen;

constexpr const char* kBarColour = "#4c78a8";
constexpr const char* kSlowColour = "#d33";  // the .slow rules' colour below

// Inline: the page fetches nothing.
constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 960px; color: #222; }
h1 { font-size: 1.5em; margin: 0; }
h2 { font-size: 1.15em; margin: 1.6em 0 0.5em; border-bottom: 1px solid #ddd; }
.sub { color: #666; margin: 0.2em 0 1em; }
.verdict { padding: 0.8em 1em; border-radius: 6px; background: #eef6ee; border-left: 6px solid #3a3; }
.verdict.slow, .verdict.failing { background: #fdeeee; border-left-color: #d33; }
.verdict.none { background: #f4f4f4; border-left-color: #999; }
.verdict .headline { font-size: 1.2em; font-weight: 600; margin: 0 0 0.3em; }
.verdict p { margin: 0.2em 0; }
ul.tree, ul.tree ul { list-style: none; padding-left: 1.6em; margin: 0; }
ul.tree { padding-left: 0; }
ul.tree li { position: relative; margin: 0.3em 0; }
ul.tree ul li::before { content: ""; position: absolute; left: -1em; top: 0.9em; width: 0.8em;
  border-top: 1px solid #bbb; }
.node { display: inline-block; padding: 0.25em 0.6em; border: 1px solid #ccc; border-radius: 4px; }
.node .spec { color: #555; margin-left: 0.5em; font-family: ui-monospace, monospace; }
.node .stat { color: #666; margin-left: 0.8em; }
.node.slow { border: 2px solid #d33; background: #fdeeee; }
.node.failing { border: 2px solid #a0a; background: #fbeefb; }
.badge { color: #fff; background: #d33; border-radius: 3px; padding: 0 0.4em; margin-left: 0.6em;
  font-size: 0.85em; }
.node.failing .badge { background: #a0a; }
figure { margin: 0.6em 0 1.2em; }
.charts { display: grid; grid-template-columns: 1fr 1fr; column-gap: 1.5em; }
.charts figure { margin: 0.3em 0 0.8em; }
figcaption { font-weight: 600; }
figcaption .stat { font-weight: normal; color: #666; margin-left: 0.6em; }
figure.histogram.slow figcaption { color: #d33; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
svg text.inside { fill: #fff; font-weight: 600; }
svg text.stage { fill: #222; }
svg .rule { stroke: #999; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { padding: 0.2em 0.7em; text-align: right; border-bottom: 1px solid #eee;
  white-space: nowrap; }
th:first-child, td:first-child, .text { text-align: left; }
tr.slow td { color: #d33; font-weight: 600; }
.legend span { display: inline-block; margin-right: 1.2em; }
.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em;
  vertical-align: -0.1em; }
#devices { overflow-x: auto; }
footer { color: #555; margin-top: 2em; border-top: 1px solid #ddd; padding-top: 0.6em; }
footer p { margin: 0.2em 0; }
)";

// The devices the verdict names, by kind.
struct Marked {
  std::set<std::string> slow;
  std::set<std::string> failing;
};

Marked marked(const Json& verdict) {
  Marked out;
  for (const auto& s : verdict.value("slow_members", Json::array()))
    out.slow.insert(text_of(s, "name"));
  for (const auto& f : verdict.value("failing_members", Json::array()))
    out.failing.insert(text_of(f, "name"));
  return out;
}

std::string slow_member_sentence(const Json& s, bool with_share, const html_levels::Unit& unit) {
  const Json evidence = s.value("evidence", Json::object());
  std::string text = "<b>" + escape(text_of(s, "name")) + "</b>";
  if (!text_of(s, "spec").empty()) text += " = <code>" + escape(text_of(s, "spec")) + "</code>";
  text += " in " + escape(text_of(s, "parent"));
  if (text_of(s, "member") != text_of(s, "name") && !text_of(s, "array").empty())
    text += " (under " + escape(text_of(s, "array")) + ")";
  text += ": mean " + duration(evidence.value("mean_us", 0.0)) + " against " +
          duration(evidence.value("siblings_mean_us", 0.0)) + " for its " +
          plural(evidence.value("siblings", uint64_t{0}), "sibling", "siblings");
  const auto slowest = evidence.value("slowest_requests", uint64_t{0});
  if (with_share && slowest > 0)
    text += "; " + whole_percent(evidence.value("share_of_slowest", 0.0)) + " of the slowest " +
            whole_percent(evidence.value("slowest_fraction", 0.0)) + " of " + unit.many +
            "' time (" + plural(slowest, unit.one, unit.many) + ")";
  return text;
}

std::string verdict_section(const Json& a) {
  const Json verdict = a.value("verdict", Json::object());
  const std::string status = verdict.value("status", "ok");
  const Json slow = verdict.value("slow_members", Json::array());
  const Json failing = verdict.value("failing_members", Json::array());
  std::string kind = "healthy";
  std::string headline = "No slow member: every member is in line with its siblings";
  if (status != "ok" && slow.empty() && failing.empty()) {
    kind = "none";
    headline = "No verdict";
  }
  if (!failing.empty()) {
    kind = "failing";
    headline = "Failing member: " + escape(text_of(failing[0], "name"));
  }
  if (!slow.empty()) {
    kind = "slow";
    headline = "Slow member: " + escape(text_of(slow[0], "name"));
    if (!text_of(slow[0], "spec").empty()) headline += " = " + escape(text_of(slow[0], "spec"));
  }
  std::string html = R"(<section id="verdict" class="verdict )" + kind +
                     R"("><p class="headline">)" + headline + "</p>";
  const html_levels::Unit unit = html_levels::unit_of(a);
  for (const auto& s : slow) html += "<p>" + slow_member_sentence(s, status == "ok", unit) + "</p>";
  for (const auto& f : failing)
    html += "<p><b>" + escape(text_of(f, "name")) + "</b> in " + escape(text_of(f, "parent")) +
            ": " + std::to_string(f.value("errors", uint64_t{0})) + " of " +
            plural(f.value("ios", uint64_t{0}), "io", "ios") + " failed</p>";
  if (!verdict.value("reason", Json(nullptr)).is_null())
    html += "<p>" + escape(text_of(verdict, "reason")) + "</p>";
  return html + "</section>\n";
}

// The stack as nested lists. Each device is drawn once, under its parent: the roots are the
// devices with no parent (the top device, and devices outside the stack, named MAJ:MIN).
class StackTree {
 public:
  StackTree(const Json& devices, const Marked& marks) : devices_(devices), marks_(marks) {
    for (size_t i = 0; i < devices.size(); ++i) children_.emplace(text_of(devices[i], "parent"), i);
  }

  // The items for the devices under `parent` ("" for the roots).
  std::string items(const std::string& parent, int depth) {
    std::string html;
    const auto [first, last] = children_.equal_range(parent);
    for (auto it = first; it != last && depth <= kMaxDepth; ++it) {
      const Json& d = devices_[it->second];
      const std::string name = text_of(d, "name");
      if (name == parent || !drawn_.insert(it->second).second) continue;
      html += item(d, name, depth);
    }
    return html;
  }

 private:
  static constexpr int kMaxDepth = 32;

  std::string item(const Json& d, const std::string& name, int depth) {
    const bool slow = marks_.slow.contains(name);
    const bool failing = marks_.failing.contains(name);
    const Json latency = d.value("latency_us", Json::object());
    std::string html = "<li><span class=\"node" + std::string(slow ? " slow" : "") +
                       (failing ? " failing" : "") + "\" data-device=\"" + escape(name) + "\"><b>" +
                       escape(name) + "</b>";
    if (!text_of(d, "spec").empty())
      html += "<span class=\"spec\">" + escape(text_of(d, "spec")) + "</span>";
    html += "<span class=\"stat\">" + plural(d.value("ios", uint64_t{0}), "io", "ios");
    if (d.value("ios", uint64_t{0}) > 0) html += " · mean " + duration(latency.value("mean", 0.0));
    html += "</span>";
    if (slow) html += "<span class=\"badge\">slow</span>";
    if (failing) html += "<span class=\"badge\">failing</span>";
    const std::string children = items(name, depth + 1);
    return html + "</span>" + (children.empty() ? "" : "<ul>" + children + "</ul>") + "</li>";
  }

  const Json& devices_;
  const Marked& marks_;
  std::multimap<std::string, size_t> children_;  // parent's name -> the device's index
  std::set<size_t> drawn_;
};

std::string stack_section(const Json& a, const Marked& marks) {
  const Json devices = a.value("devices", Json::array());
  if (devices.empty()) return "";
  return R"(<section id="stack"><h2>The stack</h2><ul class="tree">)" +
         StackTree(devices, marks).items("", 0) + "</ul></section>\n";
}

Json histogram_of(const Json& latency) {
  return latency.value("histogram", Json::array());
}

std::string latency_caption(const std::string& name, const Json& latency, uint64_t count,
                            std::string_view unit, std::string_view units = {}) {
  return "<figcaption>" + escape(name) + "<span class=\"stat\">" +
         plural(count, unit, units.empty() ? std::string(unit) + "s" : std::string(units)) +
         " · p50 " + duration(latency.value("p50", 0.0)) + " · p99 " +
         duration(latency.value("p99", 0.0)) + " · max " + duration(latency.value("max", 0.0)) +
         "</span></figcaption>";
}

std::string histograms_section(const Json& a, const Marked& marks) {
  std::string html;
  const Json requests = a.value("requests", Json::object());
  const Json request_latency = requests.value("latency_us", Json::object());
  const auto request_count = requests.value("count", uint64_t{0});
  Axis axis;
  widen(axis, histogram_of(request_latency));
  for (const auto& d : a.value("devices", Json::array()))
    widen(axis, histogram_of(d.value("latency_us", Json::object())));
  if (request_count > 0) {
    html += "<figure class=\"histogram requests\">" +
            latency_caption(html_levels::unit_of(a).many + " (" + text_of(requests, "source") + ")",
                            request_latency, request_count, html_levels::unit_of(a).one,
                            html_levels::unit_of(a).many) +
            html_parts::histogram_svg(on_axis(histogram_of(request_latency), axis), "requests") +
            "</figure>";
  }
  for (const auto& d : a.value("devices", Json::array())) {
    const auto ios = d.value("ios", uint64_t{0});
    if (ios == 0) continue;
    const std::string name = text_of(d, "name");
    const Json latency = d.value("latency_us", Json::object());
    const Json buckets = histogram_of(latency);
    const bool slow = marks.slow.contains(name);
    const std::string chart = buckets.empty()
                                  ? ""
                                  : html_parts::histogram_svg(on_axis(buckets, axis), name,
                                                              slow ? kSlowColour : kBarColour);
    html += "<figure class=\"histogram device" + std::string(slow ? " slow" : "") +
            "\" data-device=\"" + escape(name) + "\">" +
            latency_caption(name + (text_of(d, "spec").empty() ? "" : " = " + text_of(d, "spec")),
                            latency, ios, "io") +
            (chart.empty() ? "<p>No histogram in this report (written by an older iotap).</p>"
                           : chart) +
            "</figure>";
  }
  if (html.empty()) return "";
  return "<section id=\"latency\"><h2>Latency, per device</h2><p class=\"sub\">Each bar counts "
         "the ios whose time from queueing to completion fell in its range; each range is twice "
         "the one before, on one axis for every chart.</p><div class=\"charts\">" +
         html + "</div></section>\n";
}

std::string layers_section(const Json& a) {
  const Json layers = a.value("layers", Json::array());
  if (layers.empty()) return "";
  std::string legend = "<p class=\"legend\">";
  std::string rows;
  for (const auto& layer : layers) {
    const std::string name = text_of(layer, "name");
    legend += "<span><i style=\"background:" + std::string(html_parts::layer_colour(name)) +
              "\"></i>" + escape(name) + "</span>";
    rows += "<tr><td>" + escape(name) + "</td><td>" + duration(layer.value("mean_us", 0.0)) +
            "</td><td>" + whole_percent(layer.value("share", 0.0)) + "</td></tr>";
  }
  return "<section id=\"layers\"><h2>Where the requests' time went</h2>" +
         html_parts::shares_svg(layers) + legend +
         "</p><table><tr><th>layer</th><th>mean per request</th><th>share</th></tr>" + rows +
         "</table></section>\n";
}

std::string slowest_section(const Json& a) {
  const Json slowest = a.value("slowest", Json::array());
  if (slowest.empty()) return "";
  std::string html = "<section id=\"slowest\"><h2>The slowest requests</h2>";
  for (const auto& request : slowest) {
    html += "<figure class=\"waterfall\"><figcaption>" + escape(text_of(request, "call")) + " #" +
            std::to_string(request.value("request", uint64_t{0})) + "<span class=\"stat\">thread " +
            std::to_string(request.value("thread", 0)) + " · offset " +
            std::to_string(request.value("offset", int64_t{0})) + " · " +
            html_parts::bytes(request.value("size", 0.0)) + " · " +
            duration(request.value("latency_us", 0.0)) + "</span></figcaption>" +
            html_parts::waterfall_svg(request) + "</figure>";
  }
  return html + "</section>\n";
}

std::string devices_table(const Json& a, const Marked& marks) {
  const Json devices = a.value("devices", Json::array());
  if (devices.empty()) return "";
  bool kernel = false;
  for (const auto& d : devices) kernel = kernel || d.contains("kernel_stats");
  std::string html =
      "<section id=\"devices\"><h2>Every device</h2><table><tr><th>device</th>"
      "<th class=\"text\">spec</th><th "
      "class=\"text\">parent</th><th>ios</th><th>bytes</th><th>errors</th><th>mean</th><th>p50</th>"
      "<th>p95</th><th>p99</th><th>max</th>" +
      std::string(kernel ? "<th>kernel's mean</th>" : "") + "</tr>";
  for (const auto& d : devices) {
    const std::string name = text_of(d, "name");
    const Json l = d.value("latency_us", Json::object());
    html += "<tr" + std::string(marks.slow.contains(name) ? " class=\"slow\"" : "") + "><td>" +
            escape(name) + "</td><td class=\"text\">" + escape(text_of(d, "spec")) +
            "</td><td class=\"text\">" + escape(text_of(d, "parent")) + "</td><td>" +
            std::to_string(d.value("ios", uint64_t{0})) + "</td><td>" +
            html_parts::bytes(d.value("bytes", 0.0)) + "</td><td>" +
            std::to_string(d.value("errors", uint64_t{0})) + "</td>";
    for (const char* key : {"mean", "p50", "p95", "p99", "max"})
      html +=
          "<td>" + (d.value("ios", uint64_t{0}) > 0 ? duration(l.value(key, 0.0)) : "") + "</td>";
    if (kernel) {
      // The kernel's read ticks over its reads, as the JSON has it (null without reads).
      const Json mean = d.value("kernel_stats", Json::object()).value("read_mean_us", Json());
      html += "<td>" + (mean.is_number() ? duration(mean.get<double>()) : "") + "</td>";
    }
    html += "</tr>";
  }
  return html + "</table></section>\n";
}

std::string footer(const Json& a) {
  const Json loss = a.value("loss", Json::object());
  std::string lost;
  for (const auto& [key, value] : loss.items()) {
    if (!value.is_number() || value.get<double>() == 0) continue;
    if (!lost.empty()) lost += ", ";
    lost += escape(key) + " " + value.dump();
  }
  std::string html = "<footer><p>loss: " + (lost.empty() ? std::string("none") : lost) + "</p>";
  if (a.contains("overhead") && a["overhead"].is_object()) {
    const Json& o = a["overhead"];
    html += "<p>overhead: " + std::to_string(o.value("probe_hits", uint64_t{0})) + " probe hits, " +
            std::to_string(o.value("skipped_probes", uint64_t{0})) + " skipped";
    if (o.value("seconds", Json(nullptr)).is_number())
      html += ", ~" + duration(o["seconds"].get<double>() * 1e6);
    if (o.value("share", Json(nullptr)).is_number())
      html += " (" + whole_percent(o["share"].get<double>()) + " of the run)";
    html += "</p>";
  }
  const Json remap = a.value("remap_check", Json::object());
  if (remap.value("checked", uint64_t{0}) > 0)
    html += "<p>md remapping checked against the array's geometry: " +
            std::to_string(remap.value("checked", uint64_t{0})) + " bios, " +
            std::to_string(remap.value("mismatches", uint64_t{0})) + " mismatches</p>";
  html += "<p>" + escape(a.value("schema", "")) + ", written by iotap</p></footer>\n";
  return html;
}

}  // namespace

std::string html(const Json& attribution, const std::string& title) {
  const Marked marks = marked(attribution.value("verdict", Json::object()));
  const Json requests = attribution.value("requests", Json::object());
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>iotap: " +
      escape(title) + "</title><style>" + kStyle +
      "</style></head><body>\n<h1>iotap</h1><p class=\"sub\">" + escape(title) + " · " +
      plural(requests.value("count", uint64_t{0}), html_levels::unit_of(attribution).one,
             html_levels::unit_of(attribution).many) +
      "</p>\n";
  page += verdict_section(attribution);
  page += stack_section(attribution, marks);
  page += html_levels::levels_section(attribution);
  page += layers_section(attribution);
  page += histograms_section(attribution, marks);
  const std::string level_waterfalls = html_levels::slowest_section(attribution);
  page += level_waterfalls.empty() ? slowest_section(attribution) : level_waterfalls;
  page += devices_table(attribution, marks);
  page += footer(attribution);
  return page + "</body></html>\n";
}

}  // namespace iotap::report
