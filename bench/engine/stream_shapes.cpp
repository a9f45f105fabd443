#include "stream_shapes.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

namespace iotap::bench {
namespace {

constexpr uint64_t kSector = 512;
constexpr uint64_t kTidsPerSlot = 100'000;  // a copy's tids, shifted clear of the others'
constexpr uint64_t kStaggerNs = 1'000;      // between the starts of copies in flight at once

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < line.size()) {
    const size_t end = std::min(line.find(' ', at), line.size());
    if (end > at) out.emplace_back(line.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

uint64_t number(std::string_view text, int base = 10) {
  uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, base);
  return value;
}

void put(std::string& out, uint64_t value, int base = 10) {
  std::array<char, 24> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, base);
  out.append(buffer.data(), end);
}

bool is_event_kind(std::string_view kind) {
  // Not a provider's PB, PT, PE: the bench's recordings are block_hasher's and io_replayer's.
  static constexpr std::array<std::string_view, 13> kKinds = {
      "RS", "RD", "US", "UD", "SS", "SD", "RB", "Q", "X", "M", "C", "I", "D"};
  return std::find(kKinds.begin(), kKinds.end(), kind) != kKinds.end();
}

bool is_request(std::string_view kind) {
  return kind == "RS" || kind == "RD" || kind == "US" || kind == "UD";
}

// Whether field `i` (after TID) of a `kind` event is a bio's or a request's address (hex).
bool is_address(std::string_view kind, size_t i) {
  if (kind == "Q" || kind == "M" || kind == "C" || kind == "D") return i == 0;
  if (kind == "X") return i <= 1;
  if (kind == "I") return i == 0 || i == 4;
  return false;
}

// The dev whose sectors field `i` (after TID) of `line` counts, or 0 if it is no sector.
uint32_t sector_field_dev(const RecordedLine& line, size_t i) {
  const std::string_view kind = line.kind;
  if (kind == "Q" || kind == "X" || kind == "I" || kind == "D") return i == 2 ? line.sector_dev : 0;
  if (kind == "M") return i == 2 ? line.sector_dev : i == 5 ? line.from_dev : 0;
  return 0;
}

}  // namespace

Recording parse_recording(const std::string& output) {
  Recording r;
  std::unordered_map<std::string, uint32_t> device_of_address;  // as the stream goes
  size_t at = 0;
  while (at < output.size()) {
    const size_t end = std::min(output.find('\n', at), output.size());
    const std::string_view text(output.data() + at, end - at);
    at = end + 1;
    RecordedLine line;
    auto words = split(text);
    if (words.size() >= 5 && is_event_kind(words[0])) {
      line.event = true;
      line.kind = words[0];
      line.ts = number(words[1]);
      line.cpu = static_cast<uint32_t>(number(words[2]));
      line.seq = number(words[3]);
      line.tid = static_cast<int64_t>(number(words[4]));
      line.fields.assign(words.begin() + 5, words.end());
      const auto& f = line.fields;
      if ((line.kind == "Q" || line.kind == "M" || line.kind == "I" || line.kind == "D") &&
          f.size() >= 3)
        line.sector_dev = static_cast<uint32_t>(number(f[1]));
      if (line.kind == "M" && f.size() >= 6) line.from_dev = static_cast<uint32_t>(number(f[4]));
      if (line.kind == "X" && f.size() >= 3) line.sector_dev = device_of_address[f[1]];
      if ((line.kind == "Q" || line.kind == "M" || line.kind == "X") && !f.empty())
        device_of_address[f[0]] = line.sector_dev;
      if (is_request(line.kind) && !f.empty())
        r.max_request = std::max(r.max_request, number(f[0]));
      if (line.kind == "RS" || line.kind == "US" || line.kind == "SS") ++r.reads;
      r.first_ts = std::min(r.first_ts, line.ts);
      r.last_ts = std::max(r.last_ts, line.ts);
      r.cpus = std::max(r.cpus, line.cpu + 1);
      ++r.events;
    } else {
      if (text.empty() || text.starts_with("iotap-events")) continue;
      line.text = std::string(text);
    }
    r.lines.push_back(std::move(line));
  }
  return r;
}

StreamMaker::StreamMaker(const Recording& recording, const std::vector<StackDevice>& stack,
                         Shape shape)
    : recording_(recording), shape_(shape) {
  group_span_ns_ =
      recording.last_ts - recording.first_ts + 1'000'000 + shape.copies_at_once * kStaggerNs;
  merge_copies();
  const auto top = std::find_if(stack.begin(), stack.end(),
                                [](const StackDevice& d) { return d.parent.empty(); });
  if (top == stack.end()) return;
  top_dev_ = top->dev;
  // The sectors one copy reaches on the top device, rounded up to whole stripes of raid0 so
  // that a shifted copy maps to the same members at shifted member sectors (the engine's remap
  // check holds for every copy).
  uint64_t extent = 0;
  for (const RecordedLine& line : recording.lines)
    for (size_t i = 0; line.event && i < line.fields.size(); ++i)
      if (sector_field_dev(line, i) == top_dev_)
        extent = std::max(extent, number(line.fields[i]) + 2048);
  const uint64_t members = std::max<size_t>(1, top->md_members.size());
  const bool raid0 = top->md_level == "raid0" && top->chunk_bytes >= kSector;
  const uint64_t stripe = raid0 ? top->chunk_bytes / kSector * members : 2048;
  top_span_ = (extent + stripe - 1) / stripe * stripe;
  member_span_ = raid0 ? top_span_ / members : top_span_;
}

void StreamMaker::merge_copies() {
  const auto& lines = recording_.lines;
  const auto count = static_cast<uint32_t>(lines.size());
  if (shape_.copies_at_once == 1) {
    for (uint32_t i = 0; i < count; ++i) order_.push_back({0, i});
    return;
  }
  // Units that go out whole: a line, then the completions right after it on its CPU (by its
  // own numbering) and the program's lines that follow.
  std::vector<std::pair<uint32_t, uint32_t>> units;  // first line, end
  for (uint32_t i = 0; i < count;) {
    uint32_t end = i + 1;
    uint32_t last = i;
    while (end < count) {
      const RecordedLine& next = lines[end];
      const bool chained = next.event && lines[last].event && next.kind == "C" &&
                           next.cpu == lines[last].cpu && next.seq == lines[last].seq + 1;
      if (next.event && !chained) break;
      if (next.event) last = end;
      ++end;
    }
    units.emplace_back(i, end);
    i = end;
  }
  struct Keyed {
    uint64_t ts;
    uint32_t slot;
    uint32_t unit;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(units.size() * shape_.copies_at_once);
  for (uint32_t slot = 0; slot < shape_.copies_at_once; ++slot)
    for (uint32_t u = 0; u < units.size(); ++u)
      keyed.push_back({lines[units[u].first].ts + slot * kStaggerNs, slot, u});
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const Keyed& a, const Keyed& b) { return a.ts < b.ts; });
  order_.reserve(static_cast<size_t>(count) * shape_.copies_at_once);
  for (const Keyed& k : keyed)
    for (uint32_t i = units[k.unit].first; i < units[k.unit].second; ++i)
      order_.push_back({k.slot, i});
}

uint64_t StreamMaker::sector_shift(uint32_t dev, uint64_t slot) const {
  return slot * (dev == top_dev_ ? top_span_ : member_span_);
}

void StreamMaker::render_group(uint64_t group, size_t chunk,
                               const std::function<void(std::string_view)>& sink) {
  std::string out;
  out.reserve(chunk + 4096);
  if (group == 0) out += "iotap-events 1\n";
  for (const Placed& placed : order_) {
    const RecordedLine& line = recording_.lines[placed.line];
    if (!line.event) {
      out += line.text;
      out += '\n';
    } else {
      render_line(line, group * shape_.copies_at_once + placed.slot, placed.slot,
                  line.ts + group * group_span_ns_ + placed.slot * kStaggerNs, out);
    }
    if (out.size() >= chunk) {
      sink(out);
      out.clear();
    }
  }
  if (!out.empty()) sink(out);
}

void StreamMaker::render_line(const RecordedLine& line, uint64_t copy, uint64_t slot, uint64_t ts,
                              std::string& out) {
  const uint32_t cpu =
      line.cpu + (shape_.own_cpus ? static_cast<uint32_t>(slot) * recording_.cpus : 0);
  uint64_t& clock = last_ts_[cpu];
  clock = std::max(clock, ts);
  out += line.kind;
  out += ' ';
  put(out, clock);
  out += ' ';
  put(out, cpu);
  out += ' ';
  put(out, ++next_seq_[cpu]);
  out += ' ';
  put(out, static_cast<uint64_t>(line.tid) + slot * kTidsPerSlot);
  for (size_t i = 0; i < line.fields.size(); ++i) {
    out += ' ';
    const std::string& field = line.fields[i];
    if (is_request(line.kind) && i == 0) {
      put(out, number(field) + copy * recording_.max_request);
    } else if (is_address(line.kind, i)) {
      put(out, number(field, 16) ^ (copy << 32U), 16);
    } else if (const uint32_t dev = sector_field_dev(line, i); dev != 0 && slot != 0) {
      put(out, number(field) + sector_shift(dev, slot));
    } else {
      out += field;
    }
  }
  out += '\n';
}

}  // namespace iotap::bench
