// iotap iotime: time spent in each block device, per direction, like the classic ioblktime.
#include <boost/program_options.hpp>
#include <optional>

#include "iotap/config.h"
#include "iotap/interval/iotime_format.h"
#include "iotap/session/interval_option.h"
#include "iotap/session/interval_run.h"
#include "iotap/session/parse_options.h"
#include "iotap/util/data_paths.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using interval::iotime_json;
using session::add_target_options;
using session::IntervalVerb;
using session::parse_interval;
using session::parse_options;
using session::run_interval_verb;
using session::TargetOptions;

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap iotime [-c CMD | -x PID] [--interval DURATION] [--target local|vm|ssh://HOST...] [--stack SPEC] [--json]

Times every bio from the moment a device accepts it to its completion, and prints per device
and direction the total time, the count and the average, like SystemTap's ioblktime. Every layer
of an md/dm stack has its own rows: a read through md0 counts on md0 and, as the bio md sends
on, on the member that served it. Request-based disks (virtio-blk) count requests.

What it prints: a table at the end of the run ("whole run"), and with --interval one per
interval before it ("interval N"), each labelled with its time span in seconds since tracing
started; the intervals add up to the whole run. Then "loss: none", or how many probe hits
SystemTap skipped.

  whole run: 0.000 s to 1.917 s
  device  rw   total (us)    count   avg (us)
    dm-0   R      4524363       80      56554
     md0   R      1131005       65      17400
    ram0   R         7517       81         92

How to read it: compare a member's average with its siblings' (the other members of the same
array): a slow member's average stands out, and its parent's average carries the same time,
since a striped read waits for its slowest part. A device below a slow dm target (ram7 under
dm-0 = delay(ram7)) is fast itself.

--json: one JSON object per line (NDJSON), one per table, as the tables come:
  schema     "iotap.iotime/1"
  kind       "interval" or "whole_run" (the last line)
  interval   1, 2, ... (null for the whole run)
  from_s, to_s   the table's time span, seconds since tracing started
  devices[]  name (kernel name), spec (its node in --stack, or null), parent (or null), rw
             ("R", "W" or "-"), count, total_us, avg_us
  exit_status, loss.skipped_probes, overhead   on the whole-run line only (overhead:
             probe_hits, skipped_probes, ns_per_hit, seconds, share; docs/engine.md)
The program's own output goes to stderr, each line prefixed with its name.

It runs examples/iotime.stp; `iotap run examples/iotime.stp` prints the same tables.

examples:
  iotap iotime --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap iotime --interval 250ms --json --target vm --stack 'raid1(ram, delay(ram, 20ms))' \
      -c 'block_hasher -d __DEV__ -b 65536 -t 4'
  iotap iotime -x 1234 --interval 5s        # this kernel, attached to a running program

options)";

}  // namespace

int iotime(Args args) {
  TargetOptions options;
  std::optional<std::string> interval_text;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "interval", po::value<std::string>()->value_name("DURATION")->notifier([&](const auto& v) {
        interval_text = v;
      }),
      "also print a table every DURATION (250ms, 1s, 5): default only at the end");
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, kHelp)) return 0;

  IntervalVerb verb;
  verb.schema = "iotap.iotime/1";
  verb.script.path = data_paths().examples + "/iotime.stp";
  if (interval_text) verb.script.args = {std::to_string(parse_interval(*interval_text).count())};
  verb.to_json = iotime_json;
  return run_interval_verb(verb, options);
}

}  // namespace iotap::verbs
