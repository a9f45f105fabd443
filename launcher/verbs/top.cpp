// iotap top: submits per device and USDT probe hits per probe, every interval, live.
#include <boost/program_options.hpp>

#include "iotap/config.h"
#include "iotap/interval/top_format.h"
#include "iotap/session/interval_option.h"
#include "iotap/session/interval_run.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/traced_program.h"
#include "iotap/util/data_paths.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using interval::top_json;
using session::add_target_options;
using session::describe_interval;
using session::IntervalVerb;
using session::parse_interval;
using session::parse_options;
using session::run_interval_verb;
using session::TargetOptions;
using session::traced_program;

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp =
    R"(usage: iotap top [-c CMD | -x PID] [--interval DURATION] [--target local|vm|ssh://HOST...] [--stack SPEC] [--json]

Counts, every interval, each bio submitted to each block device and each hit of each of the
program's USDT probes (any provider), and shows the counts and their rates: SPDK's
count_submits idea, for any program and every layer of an md/dm stack. On a terminal the view
is redrawn in place each interval; otherwise the tables follow one another. The run ends with
the program (-c), or at Ctrl-C or --timeout.

What it prints: one table per interval ("interval N", labelled with its time span in seconds
since tracing started; the last one ends with the run), then the whole run's, then "loss: none"
or how many probe hits SystemTap skipped.

  interval 2: 1.000 s to 2.000 s
  device   submits  submits/s      KiB/s
     md0        24         24      24576
    ram0        30         30       3840
  probe                        hits     hits/s
  read_start                     24         24

How to read it: a submit is a bio a device accepted; a read through md0 is one submit on md0
and one on each member bio md sends on, so members' rows add up to more than the array's (md
cuts a read at chunk boundaries). A probe's hits are its firings in the traced process: for
block_hasher, read_start counts the reads it began. A stalled device shows as a row whose rate
drops while the program's probe rates drop with it.

--json: one JSON object per line (NDJSON), one per table, as the intervals end:
  schema     "iotap.top/1"
  kind       "interval" or "whole_run" (the last line)
  interval   1, 2, ... (null for the whole run)
  from_s, to_s   the table's time span, seconds since tracing started
  devices[]  name (kernel name), spec (its node in --stack, or null), parent (or null),
             submits, submits_per_s, kib_per_s
  probes[]   name (the USDT probe's name), hits, hits_per_s
  exit_status, loss.skipped_probes, overhead   on the whole-run line only (overhead:
             probe_hits, skipped_probes, ns_per_hit, seconds, share; docs/engine.md)
The program's own output goes to stderr, each line prefixed with its name.

It runs examples/top.stp with the interval in ms and the program's path as arguments.

examples:
  iotap top --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap top --interval 250ms --json --target vm --stack 'raid0(ram*4)' -c 'block_hasher -d __DEV__ -b 65536 -t 4'
  iotap top -x 1234                     # this kernel, attached to a running program

options)";

}  // namespace

int top(Args args) {
  TargetOptions options;
  std::string interval_text;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "interval", po::value(&interval_text)->value_name("DURATION")->default_value("1s"),
      "print a table every DURATION (250ms, 1s, 5)");
  add_target_options(visible, options, "local");
  if (!parse_options(args, visible, kHelp)) return 0;

  const auto interval = parse_interval(interval_text);
  const std::string program = traced_program(options);
  IntervalVerb verb;
  verb.schema = "iotap.top/1";
  // "-": no program, no USDT probes to count (top.stp's convention).
  verb.script = {data_paths().examples + "/top.stp",
                 {std::to_string(interval.count()), program.empty() ? "-" : program}};
  verb.to_json = top_json;
  verb.live_view = true;
  verb.live_title = "iotap top: every " + describe_interval(interval) +
                    (program.empty() ? "" : ", probes of " + program) + " (Ctrl-C stops)";
  return run_interval_verb(verb, options);
}

}  // namespace iotap::verbs
