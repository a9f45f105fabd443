// iotap run SCRIPT.stp: compile a SystemTap script with the bundled tapsets and run it.
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "util/error.h"
#include "verbs/json.h"
#include "verbs/parse_options.h"
#include "verbs/traced_run.h"
#include "verbs/verbs.h"

namespace iotap::verbs {

namespace po = boost::program_options;

namespace {

constexpr const char* kRunHelp =
    R"(usage: iotap run SCRIPT.stp [-c CMD | -x PID] [--target local|vm] [--stack SPEC] [options]

Compiles SCRIPT.stp with the bundled tapsets (tapsets/: block_hasher.*, blockio.*) and runs it,
streaming what it prints. In the script, __EXE__ stands for the traced program's path (from -c,
or /proc/PID/exe with -x) and __PID__ for -x's pid, as in SPDK's bpftrace.sh.

With --target vm, iotap boots a throwaway qemu guest with a kernel that can load SystemTap
modules, builds --stack in it with mdadm and dmsetup, and runs -c there; use this where the
local kernel cannot load modules (containers, CI, a laptop without kernel headers).

Ctrl-C stops the run: the script's end probes still run and their output still arrives.
iotap exits with the -c program's exit status (130 after Ctrl-C).

examples:
  iotap run examples/iotime.stp --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap run my.stp -x 1234                 # attach to a running process, this kernel
  iotap run my.stp --target vm --stack 'raid1(ram, delay(ram, 20ms))' -c 'block_hasher -d __DEV__ -b 65536 -t 4'

--stack SPEC grammar: raid0, raid1 (md); linear, delay, flakey, error (dm); ram, virtio (disks)
  raid0(ram*7, delay(ram, 50ms))   raid0(chunk=64k, ram:128M*4)   linear(raid0(ram*4))
  raid0(ram*3, flakey(ram, up=1s, down=1s))   raid0(ram*3, error(ram))

options)";

}  // namespace

int run(Args args) {
  TargetOptions options;
  std::string script;
  po::options_description visible;
  visible.add_options()("help,h", "show this help");
  add_target_options(visible, options, "local");
  po::options_description hidden;
  hidden.add_options()("script", po::value(&script));
  po::positional_options_description positional;
  positional.add("script", 1);
  if (!parse_options(args, visible, kRunHelp, &hidden, &positional)) return 0;
  if (script.empty())
    throw UserError(
        "iotap run needs a script: iotap run SCRIPT.stp [-c CMD] (see 'iotap run --help')");

  std::ofstream file;
  if (!options.output_path.empty()) {
    file.open(options.output_path, std::ios::binary | std::ios::trunc);
    if (!file) throw UserError("cannot write -o '" + options.output_path + "'");
  }
  std::string captured;
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  sinks.output = [&](std::string_view bytes) {
    if (options.json) {
      captured += bytes;
    } else if (file.is_open()) {
      file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    } else {
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
      std::fflush(stdout);
    }
  };
  const TracedRunResult result = traced_run(script, options, sinks);

  if (options.json) {
    const Json json{{"schema", "iotap.run/1"},
                    {"script", script},
                    {"target", options.target == Target::kVm ? "vm" : "local"},
                    {"kernel", result.kernel_release},
                    {"devices", stack_json(result.devices)},
                    {"exit_status", result.exit_status},
                    {"target_exit_status",
                     result.target_exit_status ? Json(*result.target_exit_status) : Json(nullptr)},
                    {"interrupted", result.interrupted},
                    {"timed_out", result.timed_out},
                    {"output", captured}};
    if (file.is_open()) {
      file << to_text(json);
    } else {
      std::cout << to_text(json);
    }
  }
  return result.exit_status;
}

}  // namespace iotap::verbs
