#include "iotap/interval/top_format.h"

#include <sstream>

#include "block_json.h"

namespace iotap::interval {

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

bool all_digits(const std::string& word) {
  return !word.empty() && word.find_first_not_of("0123456789") == std::string::npos;
}

// A row is a name followed by `numbers` counts, nothing else.
bool is_row(const std::vector<std::string>& words, size_t numbers) {
  if (words.size() != numbers + 1) return false;
  for (size_t i = 1; i < words.size(); ++i) {
    if (!all_digits(words[i])) return false;
  }
  return true;
}

}  // namespace

TopTable parse_top_table(const std::vector<std::string>& lines) {
  enum class Section { kNone, kDevices, kProbes };
  Section section = Section::kNone;
  TopTable table;
  for (const auto& line : lines) {
    const auto words = words_of(line);
    if (words.empty()) continue;
    if (words[0] == "device" && words.size() > 1 && words[1] == "submits") {
      section = Section::kDevices;
    } else if (words[0] == "probe" && words.size() > 1 && words[1] == "hits") {
      section = Section::kProbes;
    } else if (section == Section::kDevices && is_row(words, 3)) {
      table.devices.push_back(
          {words[0], std::stoull(words[1]), std::stoull(words[2]), std::stoull(words[3])});
    } else if (section == Section::kProbes && is_row(words, 2)) {
      table.probes.push_back({words[0], std::stoull(words[1]), std::stoull(words[2])});
    }
  }
  return table;
}

Json top_json(const TableBlock& block, const std::vector<StackDevice>& stack) {
  const TopTable table = parse_top_table(block.lines);
  Json devices = Json::array();
  for (const auto& row : table.devices) {
    Json device = device_json(row.device, stack);
    device["submits"] = row.submits;
    device["submits_per_s"] = row.submits_per_second;
    device["kib_per_s"] = row.kib_per_second;
    devices.push_back(device);
  }
  Json probes = Json::array();
  for (const auto& row : table.probes)
    probes.push_back(
        {{"name", row.probe}, {"hits", row.hits}, {"hits_per_s", row.hits_per_second}});
  Json json = block_head_json(block);
  json["devices"] = devices;
  json["probes"] = probes;
  return json;
}

}  // namespace iotap::interval
