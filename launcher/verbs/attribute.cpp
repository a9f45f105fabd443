// iotap attribute: where a program's read latency goes, layer by layer and device by device.
#include "iotap/session/attribution_run.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {

namespace {

constexpr const char* kHelp =
    R"(usage: iotap attribute -c CMD [--target local|vm] [--stack SPEC] [--slowest N] [--json]

Follows each read of the program, named by its USDT probes, down through the block layer, md and
device-mapper to the member disk that served it, and back up, and charges its time:
  requests   the user-visible read latency: count, mean, p50, p95, p99, max
  layers     before submit, md, dm, member device, completion back up: mean and share
  devices    every device of the stack: ios, bytes, errors, latency percentiles
  --slowest  the N slowest reads as waterfalls, each stage with its device and dwell time
It also checks md raid0's remapping against the array's chunk geometry, and reports every event
lost on the way (loss: none, when nothing was).

examples:
  iotap attribute --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct' --slowest 3
  iotap attribute --target vm --stack 'linear(raid0(ram*4))' -c 'block_hasher -d __DEV__ -b 65536 -t 4' --json

options)";

}  // namespace

int attribute(Args args) {
  return attribution_verb(args, kHelp, /*waterfalls=*/true);
}

}  // namespace iotap::verbs
