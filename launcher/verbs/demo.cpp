// iotap demo: the incident of README.md, end to end, in a guest: an md raid0 of eight ram
// disks, one of them behind dm-delay, read by block_hasher under examples/iotime.stp; the
// per-device table, and the member it shows to be slow.
#include <array>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "iotap/config.h"
#include "iotap/interval/device_table.h"
#include "iotap/interval/table_blocks.h"
#include "iotap/session/number_option.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/program_output.h"
#include "iotap/session/traced_run.h"
#include "iotap/slow_member_rule.h"
#include "iotap/stack/stack_json.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using interval::DeviceRow;
using interval::find_slow_members;
using interval::parse_device_table;
using interval::SlowMember;
using interval::TableBlock;
using interval::TableBlockReader;
using session::kTimeoutOption;
using session::parse_options;
using session::positive_number;
using session::program_line_printer;
using session::stderr_status_printer;
using session::Target;
using session::TargetOptions;
using session::traced_run;
using session::TracedRunResult;
using session::TracedRunSinks;

namespace po = boost::program_options;

namespace {

constexpr const char* kIncidentStack = "raid0(ram*7, delay(ram, 50ms))";
constexpr const char* kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct";

constexpr const char* kDemoHelp =
    R"(usage: iotap demo [--stack SPEC] [--guest-kernel RELEASE] [--json]

The incident iotap is built around, in a throwaway qemu guest: a striped md raid0 of eight ram
disks in which one member sits behind a dm-delay target. block_hasher reads the array with 8
threads while examples/iotime.stp times every bio on every device. The table shows each
device's total, count and average; iotap then compares each member with its siblings and
names the slow one. Equivalent to:

  iotap run examples/iotime.stp --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'

The first run compiles the script for the guest kernel (about 2 minutes); later runs take
seconds to compile and about 10 to 30 seconds to boot, build and read.

options)";

std::string slow_member_sentence(const SlowMember& slow) {
  std::array<char, 32> ratio{};
  std::snprintf(ratio.data(), ratio.size(), "%.0f",
                slow.siblings_avg_us == 0
                    ? 0.0
                    : static_cast<double>(slow.avg_us) / static_cast<double>(slow.siblings_avg_us));
  return slow.device.name + " = " + slow.device.spec + ", member of " + slow.parent + ": " +
         std::to_string(slow.avg_us) + " us per read against " +
         std::to_string(slow.siblings_avg_us) + " us for its " + std::to_string(slow.siblings) +
         " siblings (" + ratio.data() + "x)";
}

// --json: the stack's devices with their rows of the table, and the slow members.
Json demo_json(const TargetOptions& options, const TracedRunResult& result,
               const std::vector<DeviceRow>& rows, const std::vector<SlowMember>& slow) {
  Json devices = Json::array();
  for (const auto& device : result.devices) {
    for (const auto& row : rows) {
      if (row.device != device.name) continue;
      devices.push_back({{"name", device.name},
                         {"spec", device.spec},
                         {"parent", parent_json(device)},
                         {"rw", row.rw},
                         {"ios", row.count},
                         {"total_us", row.total_us},
                         {"avg_us", row.avg_us}});
    }
  }
  Json slow_members = Json::array();
  for (const auto& member : slow) {
    slow_members.push_back({{"name", member.device.name},
                            {"spec", member.device.spec},
                            {"parent", member.parent},
                            {"avg_us", member.avg_us},
                            {"siblings_avg_us", member.siblings_avg_us},
                            {"siblings", member.siblings}});
  }
  return Json{{"schema", "iotap.demo/1"},
              {"stack", options.stack_text},
              {"devices", devices},
              {"verdict", {{"slow_members", slow_members}}},
              {"exit_status", result.exit_status}};
}

}  // namespace

int demo(Args args) {
  TargetOptions options;
  options.target = Target::kVm;
  options.stack_text = kIncidentStack;
  options.command_line = kWorkload;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "stack", po::value(&options.stack_text)->value_name("SPEC")->default_value(kIncidentStack),
      "the stack to build in the guest")(
      "guest-kernel", po::value(&options.guest_kernel)->value_name("RELEASE"),
      "the installed kernel the guest boots, as a release or the start of one (6.12); default: "
      "$IOTAP_GUEST_KERNEL, else the one iotap was built for")(
      "json", po::bool_switch(&options.json), "print one JSON object on stdout instead of text")(
      "timeout",
      positive_number(
          kTimeoutOption,
          [&](uint64_t seconds) { options.timeout_seconds = static_cast<unsigned>(seconds); })
          ->value_name("SECONDS"),
      "stop the run after SECONDS");
  if (!parse_options(args, visible, kDemoHelp)) return 0;
  // Refused before the banner: a bad --guest-kernel or --stack prints nothing else.
  session::check_target_options(options);

  const std::string script = data_paths().examples + "/iotime.stp";
  std::string output;
  // iotime.stp's tables to stdout; the program's lines to stderr, prefixed
  // (session/program_output.h).
  TableBlockReader reader(
      [&](const TableBlock& block) {
        output += block.text;
        if (!options.json) {
          std::fwrite(block.text.data(), 1, block.text.size(), stdout);
          std::fflush(stdout);
        }
      },
      program_line_printer(options));
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.output = [&](std::string_view bytes) { reader.feed(bytes); };
  if (!options.json) {
    std::printf("iotap demo: %s read by '%s' under examples/iotime.stp\n\n",
                options.stack_text.c_str(), kWorkload);
    std::fflush(stdout);
  }
  const TracedRunResult result = traced_run(script, options, sinks);
  reader.finish();
  const auto rows = parse_device_table(output);
  if (rows.empty())
    throw UserError("the run printed no device table (exit status " +
                    std::to_string(result.exit_status) + ")");
  const auto slow = find_slow_members(rows, result.devices);

  if (options.json) {
    std::cout << to_text(demo_json(options, result, rows, slow));
    return result.exit_status;
  }
  std::printf("\n");
  if (slow.empty()) {
    std::printf("verdict: no slow member: no member's average read is over %.0fx its siblings'\n",
                engine::kTimesSiblings);
  }
  for (const auto& member : slow)
    std::printf("verdict: slow member %s\n", slow_member_sentence(member).c_str());
  return result.exit_status;
}

}  // namespace iotap::verbs
