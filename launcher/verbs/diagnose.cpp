// iotap diagnose: which member of the stack is slow, with the evidence.
#include "iotap/session/attribution_run.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::attribution_verb;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap diagnose -c CMD | -x PID | --requests usdt:NAME [--target local|vm|ssh://HOST...] [--stack SPEC] [--json]

Names the slow member (or members) of an md/dm stack while the program reads or writes through
it. Each member's io latency is compared with its siblings' (the other members of the same array
or dm device): a member is slow when its mean is more than 3 times, and more than 1 ms above, the
median of its siblings'. Below a slow member, iotap follows single-member chains (a linear over
a delay, say) down to the device that carries the time. The evidence: its latency against its
siblings', and its share of the critical-path time of the slowest 10% of the program's requests,
with how many requests that is. The requests are the program's USDT reads when it has probes
iotap knows (block_hasher's), else its I/O system calls (any program: dd, fio, a database);
--requests usdt|syscall chooses. A healthy stack gets "no slow member".

Without -c or -x, --requests usdt:NAME attaches to every process running the provider's
program (--target local or ssh://), those started later included: a PostgreSQL server already
running and the backends it forks for new connections, until --timeout or Ctrl-C
(docs/postgresql-guest.md, "A server you already have").

examples:
  iotap diagnose --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap diagnose --target vm --stack 'raid1(ram, delay(ram, 20ms))' -c 'block_hasher -d __DEV__ -b 65536 -t 4' --json
  iotap diagnose --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'dd if=__DEV__ of=/dev/null bs=1M count=64 iflag=direct'
  iotap diagnose --target ssh://root@db1 --target ssh://root@db2 \
      -c '/usr/local/bin/block_hasher -d /dev/md0 -b 1048576 -t 8 -n 64 --direct'
      (your servers: compiled here for each one's kernel, run there with staprun; docs/ssh.md)
  iotap diagnose --target ssh://root@db1 --requests usdt:postgresql --timeout 60
      (the server running there: every query of the next minute, its reads down to the members)

options)";

}  // namespace

int diagnose(Args args) {
  return attribution_verb(args, kHelp, /*waterfalls=*/false);
}

}  // namespace iotap::verbs
