#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "iotap/compare/compare.h"

namespace iotap::compare {

namespace {

std::string number(const Json& value, bool share = false) {
  if (!value.is_number()) return "-";
  std::array<char, 32> text{};
  const double v = value.get<double>();
  if (share) {
    std::snprintf(text.data(), text.size(), "%.1f%%", 100 * v);
  } else if (value.is_number_integer() || v == std::floor(v)) {
    std::snprintf(text.data(), text.size(), "%.0f", v);
  } else {
    std::snprintf(text.data(), text.size(), "%.1f", v);
  }
  return text.data();
}

std::string change_text(const Json& pair) {
  const Json& change = pair["change"];
  if (!change.is_number()) return "";
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%+.1f%%", 100 * change.get<double>());
  return text.data();
}

std::string padded(const std::string& text, size_t width, bool right = true) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

// One row: a label, a's value, b's value, the change, and "<<" when it is worth a look.
std::string row(const std::string& label, const Json& pair, bool share = false) {
  return "  " + padded(label, 20, false) + padded(number(pair["a"], share), 12) +
         padded(number(pair["b"], share), 12) + padded(change_text(pair), 10) +
         (pair["notable"].get<bool>() ? "  <<" : "") + "\n";
}

std::string latency_rows(const std::string& prefix, const Json& latency) {
  std::string text;
  for (const auto& [key, pair] : latency.items()) text += row(prefix + key + " us", pair);
  return text;
}

std::string verdict_line(const Json& slow) {
  if (slow.is_null()) return "none (a recording holds no block I/O)";
  if (slow.empty()) return "no slow member";
  std::string text;
  for (const auto& s : slow) {
    if (!text.empty()) text += "; ";
    std::array<char, 64> share{};
    std::snprintf(share.data(), share.size(), "%.0f%%", 100 * s["share_of_slowest"].get<double>());
    text += "slow member " + s["name"].get<std::string>() +
            (s["spec"].is_string() ? " = " + s["spec"].get<std::string>() : "") + " in " +
            s["array"].get<std::string>() + " (" + share.data() + " of the slowest requests' time)";
  }
  return text;
}

// Under the block I/O sections, when one side is a recording: why its column is empty.
std::string no_data_note(const Json& c) {
  for (const char* side : {"a", "b"}) {
    if (c[side].value("kind", "") == "recording")
      return std::string("  ") + (side[0] == 'a' ? "A" : "B") +
             " is a recording: it holds no block I/O, so it has no data here (-)\n";
  }
  return "";
}

std::string side(const Json& s) {
  return s["file"].get<std::string>() +
         (s["stack"].is_string() ? " (stack " + s["stack"].get<std::string>() + ")" : "");
}

}  // namespace

std::string compare_text(const Json& c) {
  std::string text = "A: " + side(c["a"]) + "\nB: " + side(c["b"]) + "\n\n";
  text += "requests" + std::string(14, ' ') + padded("A", 12) + padded("B", 12) +
          padded("change", 10) + "\n";
  text += row("count", c["requests"]["count"]);
  text += latency_rows("", c["requests"]["latency_us"]);
  for (const auto& kind : c["requests"]["kinds"]) {
    const std::string op = kind["op"];
    text += row(op + "s", kind["count"]);
    text += row(op + " mean us", kind["latency_us"]["mean"]);
  }
  for (const auto& level : c.value("levels", Json::array())) {
    const std::string name = level["name"];
    text += "\n" + name + " (a provider's level)\n";
    text += row("count", level["count"]);
    text += row("mean us", level["latency_us"]["mean"]);
    text += row("p99 us", level["latency_us"]["p99"]);
    for (const auto& [part, pair] : level["time_us"].items()) text += row(part + " us", pair);
  }
  if (!c["layers"].empty()) {
    text += "\nlayers (critical path, mean per request)\n" + no_data_note(c);
    for (const auto& layer : c["layers"]) {
      text += row(layer["name"].get<std::string>() + " us", layer["mean_us"]);
      text += row("  share", layer["share"], /*share=*/true);
    }
  }
  if (!c["devices"].empty()) {
    text += "\ndevices (queue to completion per io)\n" + no_data_note(c);
    for (const auto& d : c["devices"]) {
      const Json& a = d["spec"]["a"];
      const Json& b = d["spec"]["b"];
      std::string spec;
      if (a.is_string() && b.is_string() && a != b) {
        spec = ": A " + a.get<std::string>() + ", B " + b.get<std::string>();
      } else if (a.is_string() || b.is_string()) {
        spec = " = " + (a.is_string() ? a : b).get<std::string>();
      }
      text += "  " + d["name"].get<std::string>() + spec + "\n";
      text += row("  ios", d["ios"]);
      text += row("  mean us", d["latency_us"]["mean"]);
      text += row("  p99 us", d["latency_us"]["p99"]);
    }
  }
  text += "\nverdict\n  A: " + verdict_line(c["verdicts"]["a"]) +
          "\n  B: " + verdict_line(c["verdicts"]["b"]) + "\n";
  std::array<char, 160> legend{};
  std::snprintf(legend.data(), legend.size(),
                "\n<<: B differs from A by more than %.0f%% of A (and by %.0f us, for "
                "latencies); -: not in that one\n",
                100 * kNotableChange, kNotableMicroseconds);
  return text + legend.data();
}

}  // namespace iotap::compare
