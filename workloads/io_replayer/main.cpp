// io_replayer: replays an iotap recording on a device, one thread per recorded thread, under
// USDT probes shaped like block_hasher's. See README.md.
#include <cstdio>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include "device.h"
#include "error.h"
#include "iotap/recording/recording.h"
#include "options.h"
#include "plan.h"
#include "replay.h"
#include "report.h"
#include "usdt.h"

int main(int argc, char** argv) {
  using namespace io_replayer;
  try {
    const Options options = parse_options(std::vector<std::string>(argv, argv + argc));
    if (options.help) {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    const iotap::recording::Recording recording = iotap::recording::read(options.recording);
    const Needs needs = needs_of(recording);
    const uint64_t writes = needs.writes;
    if (writes > 0 && !options.allow_writes)
      throw Error("the recording writes (" + std::to_string(writes) +
                  (writes == 1 ? " write" : " writes") + ") and would overwrite " + options.device +
                  ": add --allow-writes if that is what you want (iotap replay --target vm does, "
                  "on the devices it builds)");
    const Device device(options.device, needs.direct, needs.buffered, writes > 0);
    const Plan plan = make_plan(recording, device.size_bytes(), options.device);
    if (plan.scale < 1) {
      std::fprintf(stderr,
                   "io_replayer: warning: the recording spans %llu bytes and %s holds %llu: "
                   "offsets scaled by %.4g (to %llu-byte boundaries)\n",
                   static_cast<unsigned long long>(plan.span), options.device.c_str(),
                   static_cast<unsigned long long>(device.size_bytes()), plan.scale,
                   static_cast<unsigned long long>(kScaledAlignment));
    }
    IO_REPLAYER_RUN_START(options.recording.c_str(), options.device.c_str(),
                          static_cast<int>(plan.threads.size()), plan.requests);
    const ReplayResult result = replay(plan, device, options.pace);
    IO_REPLAYER_RUN_END(plan.requests, result.errors, result.elapsed_ns);
    const std::string report = options.json ? format_json(options, recording, plan, result)
                                            : format_text(options, recording, plan, result);
    std::fputs(report.c_str(), stdout);
    if (std::fflush(stdout) != 0) {
      std::perror("io_replayer: cannot write the report");
      return 2;
    }
    return result.errors == 0 ? 0 : 1;
  } catch (const Error& error) {
    std::fprintf(stderr, "io_replayer: %s\n", error.what());
    return 2;
  } catch (const iotap::recording::FormatError& error) {
    std::fprintf(stderr, "io_replayer: %s\n", error.what());
    return 2;
  } catch (const std::system_error& error) {
    std::fprintf(stderr, "io_replayer: cannot read %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "io_replayer: %s (this is a bug; please report it)\n", error.what());
    return 2;
  }
}
