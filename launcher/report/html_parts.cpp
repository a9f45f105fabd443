#include "html_parts.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>

namespace iotap::report::html_parts {
namespace {

std::string format(const char* pattern, double value) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), pattern, value);
  return text.data();
}

std::string number(double value) {
  return format("%.1f", value);
}

// An SVG <rect> with its hover text.
std::string rect(double x, double y, double width, double height, std::string_view fill,
                 const std::string& hover) {
  return "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(width) +
         "\" height=\"" + number(height) + "\" fill=\"" + std::string(fill) + "\"><title>" +
         escape(hover) + "</title></rect>";
}

std::string text_at(double x, double y, std::string_view anchor, const std::string& text,
                    std::string_view css_class = "axis") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" text-anchor=\"" +
         std::string(anchor) + "\" class=\"" + std::string(css_class) + "\">" + escape(text) +
         "</text>";
}

// An SVG as wide as its box, drawn in `width` x `height` units.
std::string svg_open(double width, double height, std::string_view css_class,
                     const std::string& label) {
  return "<svg class=\"" + std::string(css_class) + "\" viewBox=\"0 0 " + number(width) + " " +
         number(height) + R"(" width="100%" role="img" aria-label=")" + escape(label) + "\">";
}

}  // namespace

std::string text_of(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string duration(double us) {
  if (us < 10) return format("%.1f µs", us);
  if (us < 1000) return format("%.0f µs", us);
  if (us < 100'000) return format("%.1f ms", us / 1000);
  if (us < 1'000'000) return format("%.0f ms", us / 1000);
  return format("%.2f s", us / 1e6);
}

std::string bytes(double count) {
  constexpr std::array<const char*, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (count >= 1024 && unit + 1 < kUnits.size()) {
    count /= 1024;
    ++unit;
  }
  return unit == 0 ? format("%.0f B", count) : format("%.1f ", count) + kUnits[unit];
}

std::string_view layer_colour(std::string_view layer) {
  if (layer == "before submit") return "#8da0cb";
  if (layer == "md") return "#66c2a5";
  if (layer == "dm") return "#fc8d62";
  if (layer == "member device") return "#e78ac3";
  if (layer == "completion back up") return "#a6d854";
  return "#b3b3b3";
}

std::string histogram_svg(const Json& buckets, std::string_view what, std::string_view colour) {
  if (!buckets.is_array() || buckets.empty()) return "";
  constexpr double kWidth = 460;
  constexpr double kHeight = 136;
  constexpr double kLeft = 36;   // the count axis' labels
  constexpr double kTop = 10;    // the tallest bar's count
  constexpr double kBase = 104;  // the bars stand on this line; their labels below it
  uint64_t tallest = 0;
  for (const auto& bucket : buckets)
    tallest = std::max(tallest, bucket.value("count", uint64_t{0}));
  const double slot = (kWidth - kLeft - 8) / static_cast<double>(buckets.size());
  // A label under every bucket while they fit (a label is about 44 units wide), else every
  // other or every third one.
  const size_t label_every = std::max<size_t>(1, static_cast<size_t>(44 / slot) + 1);
  std::string svg = svg_open(kWidth, kHeight, "histogram",
                             std::string(what) + ": latency histogram, powers of two");
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(kBase) + "\" x2=\"" +
         number(kWidth - 8) + "\" y2=\"" + number(kBase) + R"(" class="rule"/>)";
  svg += text_at(kLeft - 6, kTop + 4, "end", std::to_string(tallest));
  svg += text_at(kLeft - 6, kBase, "end", "0");
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Json& bucket = buckets[i];
    const auto count = bucket.value("count", uint64_t{0});
    const double from = bucket.value("from_us", 0.0);
    const double to = bucket.value("to_us", 0.0);
    const double x = kLeft + slot * static_cast<double>(i);
    if (count > 0) {
      const double height =
          std::max(1.0, (kBase - kTop) * static_cast<double>(count) / static_cast<double>(tallest));
      svg += rect(x + 1, kBase - height, std::max(1.0, slot - 2), height, colour,
                  std::string(what) + ": " + std::to_string(count) + " from " + duration(from) +
                      " to " + duration(to));
    }
    if (i % label_every == 0) svg += text_at(x, kBase + 14, "start", duration(from));
  }
  svg += text_at(kWidth - 8, kBase + 28, "end", "latency (each bar twice the one before)");
  return svg + "</svg>";
}

std::string shares_svg(const Json& layers) {
  if (!layers.is_array() || layers.empty()) return "";
  constexpr double kWidth = 900;
  constexpr double kHeight = 34;
  std::string svg = svg_open(kWidth, kHeight, "shares", "each layer's share of the time");
  double x = 0;
  for (const auto& layer : layers) {
    const std::string name = layer.value("name", "");
    const double share = layer.value("share", 0.0);
    const double width = share * kWidth;
    if (width <= 0) continue;
    svg += rect(x, 0, width, kHeight, layer_colour(name),
                name + ": " + format("%.1f%%", share * 100) + ", mean " +
                    duration(layer.value("mean_us", 0.0)));
    // The name inside when it fits (about 7 units a letter).
    const std::string label = name + " " + format("%.0f%%", share * 100);
    if (width > 7.0 * static_cast<double>(label.size()))
      svg += text_at(x + width / 2, 22, "middle", label, "inside");
    x += width;
  }
  return svg + "</svg>";
}

std::string waterfall_svg(const Json& request) {
  const Json stages = request.value("stages", Json::array());
  const double latency = request.value("latency_us", 0.0);
  if (stages.empty() || latency <= 0) return "";
  constexpr double kWidth = 900;
  constexpr double kLabels = 230;  // the stage names' column
  constexpr double kRow = 20;
  constexpr double kTop = 18;  // the time axis
  const double scale = (kWidth - kLabels - 10) / latency;
  const double height = kTop + kRow * static_cast<double>(stages.size()) + 4;
  std::string svg = svg_open(kWidth, height, "waterfall", "the request's stages over its time");
  svg += text_at(kLabels, 12, "start", "0");
  svg += text_at(kWidth - 10, 12, "end", duration(latency));
  for (size_t i = 0; i < stages.size(); ++i) {
    const Json& stage = stages[i];
    const std::string layer = stage.value("layer", "");
    const std::string device = stage.value("device", "");
    const double start = stage.value("start_us", 0.0);
    const double dwell = stage.value("dwell_us", 0.0);
    const auto bios = stage.value("bios", uint64_t{1});
    const double y = kTop + kRow * static_cast<double>(i);
    std::string name = layer;
    if (!device.empty()) name.append(" · ").append(device);
    if (bios > 1) name += " (" + std::to_string(bios) + " bios)";
    svg += text_at(kLabels - 8, y + 14, "end", name, "stage");
    svg += rect(kLabels + std::max(0.0, start) * scale, y + 3, std::max(1.0, dwell * scale),
                kRow - 6, layer_colour(layer),
                name + ": " + duration(dwell) + ", from " + duration(std::max(0.0, start)));
  }
  return svg + "</svg>";
}

}  // namespace iotap::report::html_parts
