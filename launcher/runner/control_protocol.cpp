// Parses the guest's control lines and keeps the report they add up to.
#include "iotap/runner/control_protocol.h"

#include <charconv>
#include <sstream>

namespace iotap::runner {
namespace {

using Kind = ControlLine::Kind;

ControlLine line_of_kind(Kind kind) {
  ControlLine line;
  line.kind = kind;
  return line;
}

std::string rest_of_line(std::istringstream& words) {
  std::string rest;
  std::getline(words >> std::ws, rest);
  return rest;
}

// "MAJ:MIN" into the device's numbers; a part that is not a number leaves 0.
uint32_t parse_device_numbers(const std::string& numbers) {
  const auto colon = numbers.find(':');
  if (colon == std::string::npos) return 0;
  uint32_t major = 0;
  uint32_t minor = 0;
  std::from_chars(numbers.data(), numbers.data() + colon, major);
  std::from_chars(numbers.data() + colon + 1, numbers.data() + numbers.size(), minor);
  return make_dev(major, minor);
}

ControlLine parse_node(std::istringstream& words) {
  ControlLine line = line_of_kind(Kind::kNode);
  std::string numbers;
  GuestNode& node = line.node;
  if (!(words >> node.id >> node.parent >> node.device.name >> numbers >> node.device.spec))
    return line_of_kind(Kind::kMalformed);
  node.device.dev = parse_device_numbers(numbers);
  return line;
}

ControlLine parse_md(std::istringstream& words) {
  ControlLine line = line_of_kind(Kind::kMd);
  StackDevice& device = line.node.device;
  std::string layout;
  if (!(words >> line.name >> device.md_level >> device.chunk_bytes >> layout))
    return line_of_kind(Kind::kMalformed);
  const auto [end, ec] =
      std::from_chars(layout.data(), layout.data() + layout.size(), device.md_layout);
  if (ec != std::errc() || end != layout.data() + layout.size())
    return line_of_kind(Kind::kMalformed);
  std::string member;
  while (words >> member) {
    const auto colon = member.rfind(':');
    uint64_t offset = 0;
    if (colon != std::string::npos)
      std::from_chars(member.data() + colon + 1, member.data() + member.size(), offset);
    device.md_members.emplace_back(member.substr(0, colon), offset);
  }
  return line;
}

ControlLine parse_diskstat(std::istringstream& words) {
  ControlLine line = line_of_kind(Kind::kDiskStat);
  if (!(words >> line.name >> line.text) || (line.text != "before" && line.text != "after"))
    return line_of_kind(Kind::kMalformed);
  const std::optional<DiskStats> stats = parse_disk_stats(rest_of_line(words));
  if (!stats) return line_of_kind(Kind::kMalformed);
  line.disk_stats = *stats;
  return line;
}

ControlLine parse_pgstat(std::istringstream& words) {
  ControlLine line = line_of_kind(Kind::kPgStat);
  if (!(words >> line.text) || (line.text != "before" && line.text != "after"))
    return line_of_kind(Kind::kMalformed);
  const std::optional<PostgresStats> stats = parse_postgres_stats(rest_of_line(words));
  if (!stats) return line_of_kind(Kind::kMalformed);
  line.postgres_stats = *stats;
  return line;
}

}  // namespace

ControlLine parse_control_line(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::string kind;
  words >> kind;
  if (kind == "status" || kind == "error") {
    ControlLine line = line_of_kind(kind == "status" ? Kind::kStatus : Kind::kError);
    line.text = rest_of_line(words);
    return line;
  }
  if (kind == "node") return parse_node(words);
  if (kind == "md") return parse_md(words);
  if (kind == "dm" || kind == "dmclear") {
    ControlLine line = line_of_kind(kind == "dm" ? Kind::kDm : Kind::kDmClear);
    if (!(words >> line.name)) return line_of_kind(Kind::kMalformed);
    if (line.kind == Kind::kDm) line.text = rest_of_line(words);
    return line;
  }
  if (kind == "diskstat") return parse_diskstat(words);
  if (kind == "pgstat") return parse_pgstat(words);
  if (kind == "exit") {
    ControlLine line = line_of_kind(Kind::kExit);
    if (!(words >> line.exit_status)) return line_of_kind(Kind::kMalformed);
    return line;
  }
  return line_of_kind(Kind::kUnknown);
}

ControlLine GuestReport::feed(std::string_view text) {
  ControlLine line = parse_control_line(text);
  apply(line);
  return line;
}

void GuestReport::apply(const ControlLine& line) {
  switch (line.kind) {
    case Kind::kStatus:
      phase_ = line.text;
      break;
    case Kind::kNode:
      nodes_.push_back(line.node);
      break;
    // Details follow their node line; they complete every device reported under that name.
    case Kind::kMd:
      for (auto& node : nodes_) {
        StackDevice& device = node.device;
        const StackDevice& details = line.node.device;
        if (device.name != line.name) continue;
        device.md_level = details.md_level;
        device.chunk_bytes = details.chunk_bytes;
        device.md_layout = details.md_layout;
        device.md_members.insert(device.md_members.end(), details.md_members.begin(),
                                 details.md_members.end());
      }
      break;
    case Kind::kDm:
      for (auto& node : nodes_) {
        if (node.device.name == line.name) node.device.dm_table.push_back(line.text);
      }
      break;
    // A dm device's table was replaced after it was reported (error targets, see init.sh).
    case Kind::kDmClear:
      for (auto& node : nodes_) {
        if (node.device.name == line.name) node.device.dm_table.clear();
      }
      break;
    case Kind::kDiskStat:
      (line.text == "before" ? stats_before_ : stats_after_)[line.name] = line.disk_stats;
      break;
    case Kind::kPgStat:
      (line.text == "before" ? postgres_before_ : postgres_after_) = line.postgres_stats;
      break;
    case Kind::kExit:
      exit_status_ = line.exit_status;
      break;
    case Kind::kError:
      error_ = line.text;
      break;
    case Kind::kUnknown:
    case Kind::kMalformed:
      break;
  }
}

KernelDiskStats GuestReport::kernel_stats() const {
  KernelDiskStats difference;
  for (const auto& [name, after] : stats_after_) {
    const auto before = stats_before_.find(name);
    // A device whose counters are all zero at the end was never counted (brd keeps none):
    // its zeros would read as "the kernel saw no ios", which it cannot say.
    if (before != stats_before_.end() && counted_anything(after))
      difference[name] = disk_stats_difference(before->second, after);
  }
  return difference;
}

std::optional<PostgresStats> GuestReport::postgres_stats() const {
  if (!postgres_before_ || !postgres_after_) return std::nullopt;
  return postgres_stats_difference(*postgres_before_, *postgres_after_);
}

bool RunPhases::note(std::string_view phrase) {
  if (phrase == "ran") {
    ran_at_ = Clock::now();
    return false;
  }
  if (phrase == "running") running_since_ = Clock::now();
  return true;
}

std::optional<double> RunPhases::traced_seconds() const {
  if (!running_since_ || !ran_at_) return std::nullopt;
  return std::chrono::duration<double>(*ran_at_ - *running_since_).count();
}

}  // namespace iotap::runner
