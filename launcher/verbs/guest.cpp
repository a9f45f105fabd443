// iotap guest start|stop|status: a guest kept for many --target vm runs (guest/shared_guest.h).
#include <boost/program_options.hpp>
#include <cstdio>
#include <string>

#include "iotap/guest/guest_kernels.h"
#include "iotap/guest/shared_guest.h"
#include "iotap/session/number_option.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/target_options.h"
#include "iotap/util/error.h"
#include "iotap/util/quoting.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::kMemoryOption;
using session::NumberOption;
using session::parse_options;
using session::positive_number;
namespace {

namespace po = boost::program_options;

// The guest waits for a run with busybox's `read -t SECONDS`, which refuses a number past 2^32-1
// ("read: invalid timeout": -1 or 2147483647 minutes powered the guest off at once, and start
// said it ran). A week is the most a guest is kept waiting; `guest stop` ends it sooner.
constexpr NumberOption kIdleMinutesOption{"--idle-minutes", "a positive number of minutes",
                                          "minutes (a week)", uint64_t{7} * 24 * 60};

constexpr const char* kHelp = R"help(usage: iotap guest start|stop|status [--dir DIR] [OPTIONS]

Keeps one guest running for many --target vm runs, so that each run skips the boot (about
2-3 s under software emulation) and the guest image's preparation. A run uses it when the
environment's IOTAP_GUEST names its directory; between runs the guest tears the run's stack
down, unloads the modules the run loaded and removes its files, so every run finds the guest as
it booted. A run the guest cannot take boots its own guest, as without IOTAP_GUEST, and says
why: another --memory or CPU count, a stack with virtio disks, bpftrace's tools disk, or a guest
started by an older iotap. One run at a time: a run that finds it busy boots its own.

  start    boots the guest and returns once it waits for runs; prints the IOTAP_GUEST line
  stop     powers it off and removes its directory
  status   says whether a guest runs at DIR (exit 0) or not (exit 1)

examples:
  eval "$(iotap guest start)"       # sets IOTAP_GUEST for this shell
  iotap diagnose --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' -c '...'
  iotap guest stop

A run stopped before it started (Ctrl-C, --timeout) kills the shared guest, as it would kill
its own: the next run boots one. A guest unused for --idle-minutes powers itself off.

)help";

}  // namespace

int guest(Args args) {
  std::string action;
  guest::SharedGuestOptions options;
  options.dir = guest::default_shared_guest_dir();
  uint64_t idle_minutes = 30;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "dir", po::value(&options.dir)->value_name("DIR"),
      "the guest's directory: its sockets, console log and pid file (default: "
      "$XDG_RUNTIME_DIR/iotap-guest, else /tmp/iotap-guest-UID)")(
      "memory",
      positive_number(kMemoryOption,
                      [&](uint64_t mib) { options.memory_mib = static_cast<unsigned>(mib); })
          ->value_name("MIB")
          ->default_value(std::to_string(options.memory_mib)),
      "start: the guest's memory; runs take it when their --memory is the same")(
      "guest-kernel", po::value(&options.kernel_release)->value_name("RELEASE"),
      "start: the installed kernel it boots, a release or the start of one (6.12); runs take it "
      "when their --guest-kernel names the same (default: the one iotap was built for)")(
      "idle-minutes",
      positive_number(kIdleMinutesOption, [&](uint64_t minutes) { idle_minutes = minutes; })
          ->value_name("N")
          ->default_value(std::to_string(idle_minutes)),
      "start: power off after N minutes without a run, 1 to 10080 (a week)");
  po::options_description hidden;
  hidden.add_options()("action", po::value(&action));
  po::positional_options_description positional;
  positional.add("action", 1);
  if (!parse_options(args, visible, kHelp, &hidden, &positional, exit_status::Verb::kPlain))
    return 0;
  if (options.dir.empty()) throw UserError("--dir needs a directory");
  if (action == "start") {
    options.idle = std::chrono::minutes(idle_minutes);
    options.kernel_release = guest::resolve_guest_kernel(options.kernel_release);
    const guest::SharedGuestInfo info =
        guest::start_shared_guest(options, [](std::string_view phrase) {
          std::fprintf(stderr, "iotap: %.*s\n", static_cast<int>(phrase.size()), phrase.data());
        });
    std::fprintf(stderr,
                 "iotap: the guest runs (qemu pid %d, %u MiB, kernel %s); runs use it with:\n",
                 info.pid, info.memory_mib, info.kernel_release.c_str());
    // For eval: the directory quoted as sh reads it back.
    std::printf("export IOTAP_GUEST=%s\n", single_quoted(info.dir).c_str());
    return 0;
  }
  if (action == "stop") {
    guest::stop_shared_guest(options.dir);
    return 0;
  }
  if (action == "status") {
    const auto info = guest::find_shared_guest(options.dir);
    if (!info) {
      std::printf("no guest runs at %s\n", options.dir.c_str());
      return 1;
    }
    std::printf("a guest runs at %s: qemu pid %d, %u MiB, %u CPUs, kernel %s\n", info->dir.c_str(),
                info->pid, info->memory_mib, info->cpus,
                info->kernel_release.empty() ? "unknown" : info->kernel_release.c_str());
    return 0;
  }
  throw UserError(action.empty() ? "iotap guest needs an action: start, stop or status"
                                 : "iotap guest: unknown action '" + action +
                                       "' (start, stop or status; see 'iotap guest --help')");
}

}  // namespace iotap::verbs
