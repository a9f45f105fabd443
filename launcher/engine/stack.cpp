#include "stack.h"

#include <charconv>
#include <string_view>
#include <system_error>
#include <unordered_map>

namespace iotap::engine {
namespace {

constexpr uint32_t kMdMajor = 9;

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t start = text.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    const size_t end = text.find(' ');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end);
  }
  return out;
}

bool parse_u64(std::string_view text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "MAJ:MIN" as dmsetup prints a table's devices.
bool parse_majmin(std::string_view text, uint32_t& dev) {
  const size_t colon = text.find(':');
  uint64_t major = 0;
  uint64_t minor = 0;
  if (colon == std::string_view::npos || !parse_u64(text.substr(0, colon), major) ||
      !parse_u64(text.substr(colon + 1), minor) || major >= (1U << 12) || minor >= (1U << 20))
    return false;
  dev = make_dev(static_cast<uint32_t>(major), static_cast<uint32_t>(minor));
  return true;
}

// striped N CHUNK_SECTORS DEV0 OFFSET0 DEV1 OFFSET1 ... (`w` is the whole line's words).
bool parse_stripes(const std::vector<std::string_view>& w, DmTarget& target) {
  uint64_t n = 0;
  if (w.size() < 5 || !parse_u64(w[3], n) || !parse_u64(w[4], target.chunk_sectors) || n == 0 ||
      target.chunk_sectors == 0 || w.size() != 5 + 2 * n)
    return false;
  for (size_t i = 0; i < n; ++i) {
    std::pair<uint32_t, uint64_t> stripe;
    if (!parse_majmin(w[5 + 2 * i], stripe.first) || !parse_u64(w[6 + 2 * i], stripe.second))
      return false;
    target.stripes.push_back(stripe);
  }
  return true;
}

DmTarget parse_target(std::string_view line) {
  DmTarget target;
  const auto w = words(line);
  if (w.size() < 3 || !parse_u64(w[0], target.start) || !parse_u64(w[1], target.length))
    return target;
  target.type = std::string(w[2]);
  // linear DEV OFFSET; delay DEV OFFSET DELAY ...; flakey DEV OFFSET UP DOWN ...
  if ((target.type == "linear" || target.type == "delay" || target.type == "flakey") &&
      w.size() >= 5)
    target.mapped = parse_majmin(w[3], target.dev) && parse_u64(w[4], target.offset);
  if (target.type == "striped") {
    target.mapped = parse_stripes(w, target);
    if (!target.mapped) target.stripes.clear();
  }
  return target;
}

}  // namespace

const char* layer_name(LayerId layer) {
  switch (layer) {
    case LayerId::before_submit:
      return "before submit";
    case LayerId::md:
      return "md";
    case LayerId::dm:
      return "dm";
    case LayerId::member:
      return "member device";
    case LayerId::completion:
      return "completion back up";
  }
  return "?";
}

Stack::Stack(std::vector<StackDevice> devices) : stack_size_(devices.size()) {
  std::unordered_map<std::string, size_t> by_name;
  devices_.reserve(devices.size());
  for (auto& info : devices) {
    Device device;
    device.in_stack = true;
    if (!info.md_level.empty() || info.dev >> 20U == kMdMajor)
      device.layer = LayerId::md;
    else if (!info.dm_table.empty() || info.name.starts_with("dm-"))
      device.layer = LayerId::dm;
    for (const auto& line : info.dm_table) device.dm_targets.push_back(parse_target(line));
    by_name.emplace(info.name, devices_.size());
    if (by_dev_.find(info.dev) == nullptr) by_dev_[info.dev] = devices_.size();
    device.info = std::move(info);
    devices_.push_back(std::move(device));
  }
  for (size_t i = 0; i < devices_.size(); ++i) {
    Device& device = devices_[i];
    if (const auto it = by_name.find(device.info.parent); it != by_name.end()) {
      device.parent = it->second;
      devices_[it->second].children.push_back(i);
    }
    for (const auto& [name, offset] : device.info.md_members) {
      const auto it = by_name.find(name);
      device.md_slots.push_back(it == by_name.end() ? 0 : devices_[it->second].info.dev);
    }
  }
}

size_t Stack::index_of(uint32_t dev) {
  if (dev == last_dev_) return last_index_;
  const size_t* found = by_dev_.find(dev);
  size_t index = found != nullptr ? *found : devices_.size();
  if (found == nullptr) {
    Device device;
    device.info.name = dev_name(dev);
    device.info.dev = dev;
    if (dev >> 20U == kMdMajor) device.layer = LayerId::md;
    by_dev_[dev] = index;
    devices_.push_back(std::move(device));
  }
  last_dev_ = dev;
  last_index_ = index;
  return index;
}

std::string Stack::name_of(uint32_t dev) const {
  const size_t* found = by_dev_.find(dev);
  return found == nullptr ? dev_name(dev) : devices_[*found].info.name;
}

bool Stack::takes_requests(uint32_t dev) const {
  if (stack_size_ == 0) return true;
  const size_t* found = by_dev_.find(dev);
  return found != nullptr && is_top(*found);
}

std::vector<size_t> Stack::subtree(size_t i) const {
  std::vector<size_t> out{i};
  for (size_t k = 0; k < out.size(); ++k)
    for (const size_t child : devices_[out[k]].children) out.push_back(child);
  return out;
}

}  // namespace iotap::engine
