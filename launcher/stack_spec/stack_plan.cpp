#include "iotap/stack_spec/stack_plan.h"

#include <algorithm>
#include <string_view>

#include "iotap/util/error.h"
#include "iotap/util/quoting.h"

namespace iotap::stack_spec {
namespace {

// dm-crypt's key for aes-xts-plain64: 64 bytes (two AES-256 keys), fixed, since the stack
// exists to be traced, not to keep anything secret.
constexpr std::string_view kCryptTestKey =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";

// LVM's default stripe size.
constexpr uint64_t kDefaultStripeChunkBytes = 64ULL << 10;

// mdadm's --level for each md kind.
std::string md_level(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kRaid1:
      return "1";
    case DeviceKind::kRaid10:
      return "10";
    case DeviceKind::kRaid5:
      return "5";
    default:
      return "0";
  }
}

// The kernel module behind each md level.
std::string md_module(DeviceKind kind) {
  return kind == DeviceKind::kRaid5 ? "raid456" : "raid" + md_level(kind);
}

class Planner {
 public:
  StackPlan run(const StackNode& top) {
    plan_.devices.resize(count(top));
    add(top, -1);
    finish_modules();
    return std::move(plan_);
  }

 private:
  static size_t count(const StackNode& node) {
    if (node.kind == DeviceKind::kMissing) return 0;
    size_t n = 1;
    for (const auto& member : node.members) n += count(member);
    return n;
  }

  // Ids are handed out top-down (the top is 0) but steps are emitted bottom-up, so a parent's
  // step runs after its members exist.
  int add(const StackNode& node, int parent) {
    const int id = next_id_++;
    std::vector<std::string> member_paths;
    member_paths.reserve(node.members.size());
    for (const auto& member : node.members) {
      // mdadm's word for an absent slot stands where the member's path would.
      if (member.kind == DeviceKind::kMissing) {
        member_paths.emplace_back("missing");
        continue;
      }
      const int member_id = add(member, id);
      member_paths.push_back(plan_.devices[static_cast<size_t>(member_id)].path);
    }
    PlannedDevice& device = plan_.devices[static_cast<size_t>(id)];
    device.id = id;
    device.parent = parent;
    device.kind = node.kind;
    device.spec = node.spec;
    emit(node, device, member_paths);
    return id;
  }

  void emit(const StackNode& node, PlannedDevice& device, const std::vector<std::string>& members) {
    const std::string head = std::to_string(device.id) + " " + std::to_string(device.parent) + " " +
                             single_quoted(device.spec);
    switch (node.kind) {
      case DeviceKind::kRam: {
        const uint64_t size = node.size_bytes != 0 ? node.size_bytes : kDefaultRamBytes;
        if (ram_bytes_ != 0 && size != ram_bytes_) {
          throw UserError("--stack: ram disks in one stack share one size (brd's rd_size): found " +
                          describe_size(ram_bytes_) + " and " + describe_size(size) +
                          " at column " + std::to_string(node.column));
        }
        ram_bytes_ = size;
        device.path = "/dev/ram" + std::to_string(ram_count_++);
        line("iotap_disk " + head + " " + device.path);
        need("brd");
        break;
      }
      case DeviceKind::kVirtio: {
        if (plan_.virtio_disks.size() >= kMaxVirtioDisks)  // parse_stack_spec says so first
          throw UserError("--stack: more than " + std::to_string(kMaxVirtioDisks) +
                          " virtio disks, the most a guest names (vda to vdz)");
        const std::string letter(1, static_cast<char>('a' + plan_.virtio_disks.size()));
        plan_.virtio_disks.push_back({"vd" + letter,
                                      node.size_bytes != 0 ? node.size_bytes : kDefaultVirtioBytes,
                                      node.iops, node.bps});
        device.path = "/dev/vd" + letter;
        line("iotap_disk " + head + " " + device.path);
        need("virtio_pci");
        need("virtio_blk");
        break;
      }
      case DeviceKind::kNull:
        emit_null(node, device, head);
        break;
      case DeviceKind::kMissing:  // add() never reaches one: it is a slot of its parent
        break;
      case DeviceKind::kRaid0:
      case DeviceKind::kRaid1:
      case DeviceKind::kRaid10:
      case DeviceKind::kRaid5:
        emit_md(node, device, head, members);
        break;
      case DeviceKind::kStriped:
      case DeviceKind::kCrypt:
        emit_dm_mapping(node, device, members);
        break;
      case DeviceKind::kLinear:
      case DeviceKind::kDelay:
      case DeviceKind::kFlakey:
      case DeviceKind::kError:
        emit_dm_table(node, device, head, members);
        break;
    }
  }

  // linear, delay, flakey and error: one dm table each, over the members' paths.
  void emit_dm_table(const StackNode& node, PlannedDevice& device, const std::string& head,
                     const std::vector<std::string>& members) {
    const std::string name = "iotap" + std::to_string(device.id);
    device.path = "/dev/mapper/" + name;
    std::string table;
    if (node.kind == DeviceKind::kLinear) {
      std::string args;
      for (const auto& member : members) args += " " + member;
      table = "\"$(iotap_linear_table" + args + ")\"";
    } else if (node.kind == DeviceKind::kDelay) {
      table = "\"0 $(iotap_sectors " + members[0] + ") delay " + members[0] + " 0 " +
              std::to_string(node.delay.count()) + "\"";
      need("dm-delay");
    } else if (node.kind == DeviceKind::kFlakey) {
      table = "\"0 $(iotap_sectors " + members[0] + ") flakey " + members[0] + " 0 " +
              std::to_string(node.up.count()) + " " + std::to_string(node.down.count()) + "\"";
      need("dm-flakey");
    } else {
      // dm-error takes its member's size, so the stack's geometry is what the spec says.
      // mdadm cannot build an array on a device that fails every I/O, so an error target
      // with a member starts as a linear map of it and turns into an error target once the
      // whole stack stands.
      if (members.empty()) {
        table = "\"0 " + std::to_string(kDefaultRamBytes / 512) + " error\"";
      } else {
        table = "\"0 $(iotap_sectors " + members[0] + ") linear " + members[0] + " 0\"";
        finally_.push_back("iotap_dm_switch " + name + " \"0 $(iotap_sectors " + members[0] +
                           ") error\"");
      }
    }
    line("iotap_dm " + head + " " + name + " " + table);
    need("dm-mod");
  }

  void emit_null(const StackNode& node, PlannedDevice& device, const std::string& head) {
    const uint64_t size = node.size_bytes != 0 ? node.size_bytes : kDefaultNullBytes;
    // The disk takes its configfs entry's name; nr_devices=0 leaves no other nullb.
    device.path = "/dev/nullb" + std::to_string(null_count_++);
    line("iotap_null " + head + " " + device.path + " " + std::to_string(size >> 20) + " " +
         std::to_string(node.latency.count()) + " " + std::to_string(node.cache_bytes >> 20));
    need("configfs");
    need("null_blk");
    plan_.null_blk_options = {"nr_devices=0"};
  }

  void emit_md(const StackNode& node, PlannedDevice& device, const std::string& head,
               const std::vector<std::string>& members) {
    device.path = "/dev/md" + std::to_string(md_count_++);
    std::string command = "iotap_md " + head + " " + device.path + " " + md_level(node.kind) + " " +
                          std::to_string(node.chunk_bytes / 1024);
    for (const auto& member : members) command += " " + member;
    line(command);
    need("md-mod");
    need(md_module(node.kind));
  }

  // The dm targets that map onto their members with arithmetic of their own: striped, crypt.
  void emit_dm_mapping(const StackNode& node, PlannedDevice& device,
                       const std::vector<std::string>& members) {
    const std::string head = std::to_string(device.id) + " " + std::to_string(device.parent) + " " +
                             single_quoted(device.spec);
    const std::string name = "iotap" + std::to_string(device.id);
    device.path = "/dev/mapper/" + name;
    std::string table;
    if (node.kind == DeviceKind::kStriped) {
      const uint64_t chunk = node.chunk_bytes != 0 ? node.chunk_bytes : kDefaultStripeChunkBytes;
      std::string args;
      for (const auto& member : members) args += " " + member;
      table = "\"$(iotap_striped_table " + std::to_string(chunk / 512) + args + ")\"";
    } else {
      table = "\"0 $(iotap_sectors " + members[0] + ") crypt aes-xts-plain64 " +
              std::string(kCryptTestKey) + " 0 " + members[0] + " 0\"";
      // The cipher's pieces are modules the kernel would ask modprobe for; the guest has none.
      need("dm-crypt");
      need("ecb");
      need("xts");
    }
    line("iotap_dm " + head + " " + name + " " + table);
    need("dm-mod");
  }

  void line(const std::string& text) { plan_.guest_script += text + "\n"; }

  void need(const std::string& module) {
    if (std::find(plan_.modules.begin(), plan_.modules.end(), module) == plan_.modules.end()) {
      plan_.modules.push_back(module);
    }
  }

  void finish_modules() {
    for (const auto& step : finally_) line(step);
    plan_.ram_disks = static_cast<size_t>(ram_count_);
    plan_.ram_disk_bytes = ram_bytes_;
    if (ram_count_ > 0) {
      plan_.brd_options = {"rd_nr=" + std::to_string(ram_count_),
                           "rd_size=" + std::to_string(ram_bytes_ / 1024)};
    }
  }

  StackPlan plan_;
  int next_id_ = 0;
  int ram_count_ = 0;
  int md_count_ = 0;
  int null_count_ = 0;
  uint64_t ram_bytes_ = 0;
  std::vector<std::string> finally_;  // steps that run once the whole stack is built
};

}  // namespace

StackPlan plan_stack(const StackNode& top) {
  return Planner().run(top);
}

void check_fits_in_memory(const StackPlan& plan, uint64_t memory_mib) {
  constexpr uint64_t kMib = 1ULL << 20;
  const uint64_t ram_mib = (plan.ram_disks * plan.ram_disk_bytes + kMib - 1) / kMib;
  if (plan.ram_disks == 0 || ram_mib + kGuestReserveMib <= memory_mib) return;
  const uint64_t room = memory_mib > kGuestReserveMib ? memory_mib - kGuestReserveMib : 0;
  throw UserError("--stack: the ram disks take " + std::to_string(ram_mib) + " MiB (" +
                  std::to_string(plan.ram_disks) + " x " + describe_size(plan.ram_disk_bytes) +
                  ") but --memory " + std::to_string(memory_mib) + " leaves them " +
                  std::to_string(room) + " MiB (" + std::to_string(kGuestReserveMib) +
                  " MiB go to the guest's kernel, initrd and stap): raise --memory to at least " +
                  std::to_string(ram_mib + kGuestReserveMib) + ", or make the disks smaller");
}

}  // namespace iotap::stack_spec
