#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spec_parts.h"

// What each kind of device takes: its options, how many members, and what its values must be.
namespace iotap::stack_spec {
namespace {

std::string same_option_hint(const std::string& key) {
  if (key == "size") return "; ram:SIZE is the same as size=SIZE";
  if (key == "delay") return "; delay(ram, 50ms) is the same as delay=50ms";
  return "";
}

std::string options_hint(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kRaid0:
    case DeviceKind::kRaid10:
    case DeviceKind::kRaid5:
    case DeviceKind::kStriped:
      return " (" + std::string(kind_name(kind)) + " takes chunk=SIZE)";
    case DeviceKind::kNull:
      return " (null takes lat=DURATION, cache=SIZE, size=SIZE, or null:SIZE)";
    case DeviceKind::kDelay:
      return " (delay takes a duration: delay(ram, 50ms))";
    case DeviceKind::kFlakey:
      return " (flakey takes up=SECONDS, down=SECONDS)";
    case DeviceKind::kVirtio:
      return " (virtio takes iops=N, bps=SIZE, size=SIZE)";
    case DeviceKind::kRam:
      return " (ram takes size=SIZE, or ram:SIZE)";
    default:
      return " (it takes no options)";
  }
}

bool takes_chunk(DeviceKind kind) {
  return kind == DeviceKind::kRaid0 || kind == DeviceKind::kRaid10 || kind == DeviceKind::kRaid5 ||
         kind == DeviceKind::kStriped;
}

void apply_option(const SpecText& spec, StackNode& node, const Argument& arg) {
  const auto reject = [&] {
    spec.fail(arg.at, "option '" + arg.key + "' does not apply to " +
                          std::string(kind_name(node.kind)) + options_hint(node.kind));
  };
  if (arg.key == "chunk") {
    if (!takes_chunk(node.kind)) reject();
    node.chunk_bytes = size_value(spec, arg.value);
    if (node.chunk_bytes < 4096 || (node.chunk_bytes & (node.chunk_bytes - 1)) != 0) {
      spec.fail(arg.value.at, "chunk must be a power of two of at least 4k");
    }
  } else if (arg.key == "up" || arg.key == "down") {
    if (node.kind != DeviceKind::kFlakey) reject();
    const auto ms = duration_ms(spec, arg.value);
    if (ms.count() % 1000 != 0)
      spec.fail(arg.value.at, "dm-flakey counts whole seconds: write '1s', '2s', ...");
    (arg.key == "up" ? node.up : node.down) = std::chrono::duration_cast<std::chrono::seconds>(ms);
  } else if (arg.key == "delay") {
    if (node.kind != DeviceKind::kDelay) reject();
    node.delay = duration_ms(spec, arg.value);
  } else if (arg.key == "lat") {
    if (node.kind != DeviceKind::kNull) reject();
    node.latency = duration_ns(spec, arg.value);
  } else if (arg.key == "cache") {
    if (node.kind != DeviceKind::kNull) reject();
    node.cache_bytes = size_value(spec, arg.value);
    if (node.cache_bytes == 0 || node.cache_bytes % (1U << 20) != 0)
      spec.fail(arg.value.at, "null_blk sizes its cache in whole MiB: write '1M', '16M', ...");
  } else if (arg.key == "size") {
    if (!is_disk(node.kind)) {
      spec.fail(arg.at, "a size belongs to a disk (ram:128M, virtio:1G); " +
                            std::string(kind_name(node.kind)) + "'s size comes from its members");
    }
    node.size_bytes = size_value(spec, arg.value);
    if (node.kind == DeviceKind::kNull && node.size_bytes % (1U << 20) != 0)
      spec.fail(arg.value.at,
                "null_blk sizes its disks in whole MiB: write '1M', '64M', '1G', ...");
  } else if (arg.key == "iops" || arg.key == "bps") {
    if (node.kind != DeviceKind::kVirtio) reject();
    (arg.key == "iops" ? node.iops : node.bps) =
        arg.key == "iops" ? count_value(spec, arg.value, 1'000'000) : size_value(spec, arg.value);
  } else {
    reject();
  }
}

// raid5 keeps its data with one member gone, not two: mdadm would not start the array.
void check_one_missing(const SpecText& spec, const StackNode& node) {
  size_t missing = 0;
  for (const auto& member : node.members) {
    if (member.kind != DeviceKind::kMissing || ++missing < 2) continue;
    spec.fail(member.column - 1,
              "raid5 runs with at most one member missing (example: raid5(ram*3, missing))");
  }
}

void check_shape(const SpecText& spec, StackNode& node, const std::vector<Value>& positional,
                 bool has_delay) {
  const size_t members = node.members.size();
  const auto need_members = [&](size_t least, size_t most, const char* example) {
    if (members >= least && members <= most) return;
    std::string wanted;
    if (least == most) {
      wanted = "needs " + std::to_string(least) + (least == 1 ? " member" : " members");
    } else if (most == SIZE_MAX) {
      wanted = "needs at least " + std::to_string(least) + " members";
    } else if (least == 0) {
      wanted = "takes at most " + std::to_string(most) + (most == 1 ? " member" : " members");
    } else {
      wanted = "needs " + std::to_string(least) + " to " + std::to_string(most) + " members";
    }
    spec.fail(node.column - 1, std::string(kind_name(node.kind)) + " " + wanted + ", got " +
                                   std::to_string(members) + " (example: " + example + ")");
  };
  if (!positional.empty()) {
    spec.fail(positional[0].at, "unexpected value '" + positional[0].text + "' for " +
                                    std::string(kind_name(node.kind)) + options_hint(node.kind));
  }
  switch (node.kind) {
    case DeviceKind::kRaid0:
      need_members(2, SIZE_MAX, "raid0(ram*4)");
      break;
    case DeviceKind::kRaid1:
      need_members(2, SIZE_MAX, "raid1(ram, ram)");
      break;
    case DeviceKind::kRaid10:
      need_members(2, SIZE_MAX, "raid10(ram*4)");
      break;
    case DeviceKind::kRaid5:
      need_members(3, SIZE_MAX, "raid5(ram*4), or raid5(ram*3, missing)");
      check_one_missing(spec, node);
      break;
    case DeviceKind::kStriped:
      need_members(2, SIZE_MAX, "striped(ram*4)");
      break;
    case DeviceKind::kCrypt:
      need_members(1, 1, "crypt(ram)");
      break;
    case DeviceKind::kLinear:
      need_members(1, SIZE_MAX, "linear(ram, ram)");
      break;
    case DeviceKind::kDelay:
      need_members(1, 1, "delay(ram, 50ms)");
      if (!has_delay)
        spec.fail(node.column - 1, "delay needs a duration (example: delay(ram, 50ms))");
      break;
    case DeviceKind::kFlakey:
      need_members(1, 1, "flakey(ram, up=1s, down=1s)");
      if (node.up.count() == 0) node.up = std::chrono::seconds(1);
      if (node.down.count() == 0) node.down = std::chrono::seconds(1);
      break;
    case DeviceKind::kError:
      // Alone it is a 64M device that fails every I/O; with a member, it takes that size.
      need_members(0, 1, "error(ram), or error alone");
      break;
    case DeviceKind::kRam:
    case DeviceKind::kVirtio:
    case DeviceKind::kNull:
      break;
    case DeviceKind::kMissing:
      if (members != 0) spec.fail(node.column - 1, "'missing' is an absent member and has none");
      break;
  }
}

}  // namespace

void apply_arguments(const SpecText& spec, StackNode& node, std::vector<Argument>& args) {
  std::vector<Value> positional;
  std::vector<const Argument*> given;  // options so far, to catch one given twice
  for (auto& arg : args) {
    if (arg.node) {
      if (is_disk(node.kind))
        spec.fail(arg.at, std::string(kind_name(node.kind)) + " is a disk and has no members");
      if (arg.node->kind == DeviceKind::kMissing && node.kind != DeviceKind::kRaid5) {
        spec.fail(arg.at, "'missing' is an absent raid5 member; " +
                              std::string(kind_name(node.kind)) +
                              " takes none (example: raid5(ram*3, missing))");
      }
      node.members.push_back(std::move(*arg.node));
      continue;
    }
    if (arg.key.empty() && node.kind == DeviceKind::kDelay) arg.key = "delay";  // delay(ram, 50ms)
    if (arg.key.empty()) {
      positional.push_back(arg.value);
      continue;
    }
    for (const Argument* earlier : given) {
      if (earlier->key == arg.key) {
        spec.fail(arg.at, "option '" + arg.key + "' is given twice (first at column " +
                              std::to_string(earlier->at + 1) + ")" + same_option_hint(arg.key));
      }
    }
    given.push_back(&arg);
    apply_option(spec, node, arg);
  }
  const bool has_delay = std::any_of(given.begin(), given.end(),
                                     [](const Argument* arg) { return arg->key == "delay"; });
  check_shape(spec, node, positional, has_delay);
}

}  // namespace iotap::stack_spec
