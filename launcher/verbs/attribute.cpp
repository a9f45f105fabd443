// iotap attribute: where a program's read latency goes, layer by layer and device by device.
#include "iotap/session/attribution_run.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::attribution_verb;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap attribute -c CMD | -x PID | --requests usdt:NAME [--target local|vm|ssh://HOST...] [--stack SPEC] [--slowest N] [--json]

Follows each request of the program down through the block layer, md and device-mapper to the
member disk that served it, and back up, and charges its time. The requests are the program's
reads named by its USDT probes when it has those iotap knows (block_hasher's), else its I/O
system calls, whatever the program (dd, fio, a database): read, pread64, readv, preadv, write,
pwrite64, writev, pwritev (and the *v2 forms), fsync and fdatasync on the stack's top device or a
file on it. --requests usdt|syscall chooses; the first status line says which was taken.
  requests   the user-visible latency: count, mean, p50, p95, p99, max; per kind (read, write,
             flush) for system calls, with the calls that reached no device (page-cache hits,
             buffered writes) counted apart
  layers     before submit, md, dm, member device, completion back up: mean and share, over
             the requests that reached a device (an fsync's writes, then its flush, each carry
             their own stretch of its time)
  devices    every device of the stack: ios, bytes, errors, latency percentiles
  --slowest  the N slowest requests as waterfalls, each stage with its device and dwell time
Block I/O that no request caused (writeback by kernel threads, readahead, metadata) is counted
on a line of its own and charged to no request. It also checks md raid0's remapping against the
array's chunk geometry, and reports every event lost on the way (loss: none, when nothing was).

Without -c or -x, --requests usdt:NAME attaches to every process running the provider's
program (--target local or ssh://), those started later included: a PostgreSQL server already
running and the backends it forks for new connections, until --timeout or Ctrl-C
(docs/postgresql-guest.md, "A server you already have").

examples:
  iotap attribute --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct' --slowest 3
  iotap attribute --target vm --stack 'linear(raid0(ram*4))' -c 'block_hasher -d __DEV__ -b 65536 -t 4' --json
  iotap attribute --target vm --stack 'raid1(ram, delay(ram, 20ms))' --slowest 1 \
      -c 'dd if=/dev/zero of=__DEV__ bs=4k count=64 conv=fsync'
  iotap attribute --target ssh://root@db1 --requests usdt:postgresql --timeout 60
      (the server running there: every query of the next minute, its reads down to the members)

options)";

}  // namespace

int attribute(Args args) {
  return attribution_verb(args, kHelp, /*waterfalls=*/true);
}

}  // namespace iotap::verbs
