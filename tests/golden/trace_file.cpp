#include "trace_file.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace iotap::golden {
namespace {

uint32_t parse_dev(const std::string& text) {
  const size_t colon = text.find(':');
  uint32_t major = 0;
  uint32_t minor = 0;
  if (colon == std::string::npos ||
      std::from_chars(text.data(), text.data() + colon, major).ec != std::errc() ||
      std::from_chars(text.data() + colon + 1, text.data() + text.size(), minor).ec != std::errc())
    throw std::runtime_error("bad dev '" + text + "'");
  return make_dev(major, minor);
}

std::string string_or_empty(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace

Trace load_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const nlohmann::json run = nlohmann::json::parse(buffer.str());
  Trace trace;
  trace.output = run.at("output").get<std::string>();
  if (run.contains("postgres")) {
    for (const auto& [name, value] : run.at("postgres").items())
      if (value.is_number()) trace.postgres[name] = value.get<double>();
  }
  trace.script = run.value("script", "");
  for (const auto& d : run.at("devices")) {
    StackDevice device;
    device.name = d.at("name").get<std::string>();
    device.dev = parse_dev(d.at("dev").get<std::string>());
    device.spec = string_or_empty(d.value("spec", nlohmann::json()));
    device.parent = string_or_empty(d.value("parent", nlohmann::json()));
    if (d.contains("md")) {
      const auto& md = d.at("md");
      device.md_level = md.at("level").get<std::string>();
      device.chunk_bytes = md.value("chunk_bytes", uint64_t{0});
      device.md_layout = md.value("layout", int64_t{0});
      for (const auto& m : md.at("members"))
        device.md_members.emplace_back(m.at("name").get<std::string>(),
                                       m.value("data_offset_sectors", uint64_t{0}));
    }
    if (d.contains("dm_table"))
      for (const auto& line : d.at("dm_table")) device.dm_table.push_back(line.get<std::string>());
    trace.stack.push_back(std::move(device));
  }
  return trace;
}

engine::Result run_trace(const Trace& trace, const engine::Options& options, size_t chunk) {
  engine::Engine engine(trace.stack, options);
  const std::string_view all(trace.output);
  for (size_t at = 0; at < all.size(); at += chunk)
    engine.feed(all.substr(at, std::min(chunk, all.size() - at)));
  return engine.finish();
}

}  // namespace iotap::golden
