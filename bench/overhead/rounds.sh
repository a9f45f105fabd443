# The overhead benchmark's rounds, run in the guest by bench/overhead (VmRun::plain_command):
#   sh rounds.sh ROUNDS DEVICE BLOCK_SIZE THREADS HASHER BARE_HASHER BPFTRACE_SCRIPT FLOOR_MODULE \
#      STREAM_TEXT [COMPARED_MODULE]
# Each round reads DEVICE with block_hasher six ways: built without probes (BARE_HASHER), with
# probes but nothing attached, under iotap's events.stp module (/iotap/iotap.ko, run as iotap
# runs it, then once more with stapio at nice -10 above the program), under the floor
# (FLOOR_MODULE, floor.stp: the same probes, a clock read and a sequence number per hit, nothing
# written), under COMPARED_MODULE when given (another tree's events.stp: --compare-tree), and under
# bpftrace with the same events. Each prints one line:
#   round N bare|untraced SECONDS
#   reads BLOCKS                                  (once: how many reads a run makes)
#   round N iotap|iotap-nice-10|iotap-compared|floor|bpftrace SECONDS EVENTS RS RD DROPPED
#     [STAPIO_CPU BEFORE]
# (the floor's EVENTS are its hits, its RS and RD 0: it writes nothing)
# SECONDS is block_hasher's own (its --json "seconds": the reads, not the tracer's start);
# EVENTS the tracer's event lines, RS/RD its read_start/read_done events, DROPPED what the tracer
# itself counted as lost (stap's skipped probes, bpftrace's lost events), STAPIO_CPU (iotap's
# lines) the user and system seconds stapio itself used, as stapio_drain.so reports them, and
# BEFORE those of them used before its readers started (its start and the module's loading).
set -u
rounds=$1 dev=$2 bs=$3 threads=$4 hasher=$5 bare=$6 bt=$7 floor=$8 stream_text=$9
compared=${10:-}
args="-d $dev -b $bs -t $threads --direct --json"

# A JSON number: nlohmann::json writes under 1e-4 with an exponent (5e-05).
seconds() { grep -o '"seconds":[0-9.eE+-]*' "$1" | head -n 1 | cut -d: -f2; }
count() { grep -c "$1" "$2"; }
# The stream's events: lines "KIND TS ...", not the header or the tracer's own messages.
events() { count '^[A-Z][A-Z]* [0-9]' "$1"; }
# The sum of the numbers after PATTERN in FILE ("Lost 12 events" once per lost batch).
sum_after() {
  grep -o "$1 *[0-9]*" "$2" | grep -o '[0-9]*$' | awk '{ n += $1 } END { print n + 0 }'
}

. /iotap/run.conf

# run_iotap LABEL NICE [MODULE]: block_hasher under MODULE (/iotap/iotap.ko), staprun at NICE,
# the program at 0.
run_iotap() {
  IOTAP_STAPIO_DRAIN_REPORT=1 LD_PRELOAD=/lib/iotap/stapio_drain.so nice -n "$2" staprun \
    -c "nice -n $((0 - $2)) /iotap/stdout-to-stderr $hasher $args" "${3:-/iotap/iotap.ko}" \
    >/tmp/stap.bin 2>/tmp/stap.err || echo "error staprun: $(tail -n 3 /tmp/stap.err)"
  # Its events are binary records (docs/event-format.md): as lines, to be counted as bpftrace's.
  "$stream_text" </tmp/stap.bin >/tmp/stap.out
  echo "round $i $1 $(seconds /tmp/stap.err) $(events /tmp/stap.out)" \
    "$(count '^RS ' /tmp/stap.out) $(count '^RD ' /tmp/stap.out)" \
    "$(sum_after 'skipped probes:' /tmp/stap.err)" "$(stapio_cpu /tmp/stap.err)" \
    "$(stapio_cpu_before /tmp/stap.err)"
}

# "stapio's cpu time: user U s, system S s" (stapio_drain.so's report): U + S.
stapio_cpu() {
  grep -o "stapio's cpu time: user [0-9.]* s, system [0-9.]*" "$1" |
    awk '{ print $5 + $8 }' | tail -n 1
}
# "when its readers started: user U s, system S s": U + S, stapio's before its readers polled.
stapio_cpu_before() {
  grep -o "when its readers started: user [0-9.]* s, system [0-9.]*" "$1" |
    awk '{ print $6 + $9 }' | tail -n 1
}

i=1
while [ "$i" -le "$rounds" ]; do
  $bare $args >/tmp/bare.json || echo "error bare block_hasher failed: $(cat /tmp/bare.json)"
  echo "round $i bare $(seconds /tmp/bare.json)"
  $hasher $args >/tmp/untraced.json || echo "error block_hasher failed"
  echo "round $i untraced $(seconds /tmp/untraced.json)"
  [ "$i" = 1 ] && echo "reads $(grep -o '"blocks":[0-9]*' /tmp/untraced.json | head -n 1 | cut -d: -f2)"

  # As iotap runs it (init.sh): its stream on stdout, with stapio_drain.so (which reads what
  # stapio 4.8 leaves in the relay files at the end, but only for a stream on stdout), the
  # program's stdout sent to stderr, staprun at iotap's priority; then with stapio at nice -10
  # above the program, iotap's default before this benchmark.
  run_iotap iotap "$IOTAP_STAPRUN_NICE"
  run_iotap iotap-nice-10 -10
  [ -n "$compared" ] && run_iotap iotap-compared "$IOTAP_STAPRUN_NICE" "$compared"

  # The floor: the same probes, a clock read and a sequence number per hit, nothing written;
  # staprun as for iotap. Its hits are the sequence numbers it took ("floor hits N" at its end).
  nice -n "$IOTAP_STAPRUN_NICE" staprun \
    -c "nice -n $((0 - IOTAP_STAPRUN_NICE)) /iotap/stdout-to-stderr $hasher $args" "$floor" \
    >/tmp/floor.out 2>/tmp/floor.err || echo "error staprun floor: $(tail -n 3 /tmp/floor.err)"
  echo "round $i floor $(seconds /tmp/floor.err) $(sum_after 'floor hits' /tmp/floor.out) 0 0" \
    "$(sum_after 'skipped probes:' /tmp/floor.err)"

  # bpftrace as its users run it: bpftrace -o FILE -c CMD SCRIPT, at the default priority
  # (-c wants the traced binary itself: with a nice wrapper its USDT probes did not attach).
  /tools/bin/bpftrace -o /tmp/bt.out -c "$hasher $args" "$bt" \
    >/tmp/bt.json 2>/tmp/bt.err || echo "bpftrace exited with $?: $(tail -n 3 /tmp/bt.err)" >&2
  echo "round $i bpftrace $(seconds /tmp/bt.json) $(events /tmp/bt.out) $(count '^RS ' /tmp/bt.out)" \
    "$(count '^RD ' /tmp/bt.out) $(($(sum_after Lost /tmp/bt.out) + $(sum_after Lost /tmp/bt.err)))"
  rm -f /tmp/stap.bin /tmp/stap.out /tmp/bt.out
  i=$((i + 1))
done
