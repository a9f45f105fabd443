// block_hasher: reads a block device with interleaved threads and hashes every block; the
// workload iotap traces. See README.md for options, output and USDT probes.
#include <cstdio>
#include <exception>

#include "device.h"
#include "error.h"
#include "options.h"
#include "report.h"
#include "run.h"

int main(int argc, char** argv) {
  using namespace block_hasher;
  try {
    const Options options = parse_options(argc, argv);
    if (options.help) {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    const Device device = Device::open(options.device, options.direct);
    const std::uint64_t blocks =
        plan_blocks(options.blocks, options.block_size, device.size_bytes(), options.device);
    const RunResult result = run(options, device, blocks);

    const std::string report =
        options.json ? format_json(options, result) : format_text(options, result);
    std::fputs(report.c_str(), stdout);
    // A report that did not reach its reader (full disk, closed pipe) is not a success.
    if (std::fflush(stdout) != 0) {
      std::perror("block_hasher: cannot write the report");
      return 2;
    }
    return result.errors == 0 ? 0 : 1;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "%s\n", error.line().c_str());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "block_hasher: %s (this is a bug or a broken library; please report it)\n",
                 error.what());
    return 2;
  }
}
