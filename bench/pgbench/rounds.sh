# The pgbench benchmark's rounds, run in the guest by bench/pgbench (VmRun::plain_command, after
# --postgres's setup: the cluster and pgbench's tables on the stack, the server stopped):
#   sh rounds.sh ROUNDS SECONDS CLIENTS BPFTRACE_SCRIPT STREAM_TEXT
# Each round runs `pgbench -S` (select-only, the simple protocol: query__start/done fire) for
# SECONDS with CLIENTS clients three ways, the server started afresh each time: untraced (no
# staprun anywhere), under iotap's module for the postgresql provider (/iotap/iotap.ko, run as
# iotap runs it: staprun -c starting the server, so its backends are the target set), and under
# bpftrace running BPFTRACE_SCRIPT (the same probes, attached to the server's executable
# system-wide before pgbench starts). Each prints one line:
#   round N untraced TPS TRANSACTIONS
#   round N iotap|bpftrace TPS TRANSACTIONS EVENTS QUERIES DROPPED
# TPS is pgbench's own "tps = ... (without initial connection time)"; EVENTS the tracer's event
# lines, QUERIES its query begin lines (PB ... 0 ...), DROPPED what the tracer counted as lost
# (stap's skipped probes, bpftrace's lost events).
set -u
rounds=$1 seconds=$2 clients=$3 bt=$4 stream_text=$5
pgbench_args="pgbench -S -n -T $seconds -c $clients -j $clients"

. /iotap/run.conf

tps() { grep -o 'tps = [0-9.]*' "$1" | head -n 1 | cut -d' ' -f3; }
transactions() { grep -o 'transactions actually processed: [0-9]*' "$1" | grep -o '[0-9]*$'; }
count() { grep -c "$1" "$2"; }
events() { count '^[A-Z][A-Z]* [0-9]' "$1"; }
# "kinds TRACER PB=N PE=N ...": how many lines of each kind the tracer wrote, to stderr.
kinds() {
  echo "kinds $1 $(grep -o '^[A-Z][A-Z]* [0-9]' "$2" | cut -d' ' -f1 | sort | uniq -c |
    awk '{ printf "%s=%s ", $2, $1 }')" >&2
}
sum_after() {
  grep -o "$1 *[0-9]*" "$2" | grep -o '[0-9]*$' | awk '{ n += $1 } END { print n + 0 }'
}
server_stop() {
  /iotap/as-postgres pg_ctl -D /pg/data -w -t 120 -m fast stop >/dev/null ||
    echo "error the server did not stop: $(tail -n 3 /pg/server.log)"
}

i=1
while [ "$i" -le "$rounds" ]; do
  # Untraced: the server started by the same wrapper iotap's runs use, with no module loaded.
  /iotap/pg-traced $pgbench_args >/tmp/untraced.out 2>&1 ||
    echo "error untraced pgbench: $(tail -n 3 /tmp/untraced.out)"
  echo "round $i untraced $(tps /tmp/untraced.out) $(transactions /tmp/untraced.out)"
  server_stop

  # As iotap runs it (init.sh): its stream on stdout with stapio_drain.so, the command's stdout
  # sent to stderr, staprun and the command at iotap's priorities.
  IOTAP_STAPIO_DRAIN_REPORT=1 LD_PRELOAD=/lib/iotap/stapio_drain.so \
    nice -n "$IOTAP_STAPRUN_NICE" staprun \
    -c "nice -n $IOTAP_COMMAND_NICE /iotap/stdout-to-stderr /iotap/pg-traced $pgbench_args" \
    /iotap/iotap.ko >/tmp/stap.bin 2>/tmp/stap.err ||
    echo "error staprun: $(tail -n 3 /tmp/stap.err)"
  # The block layer's events are binary records (docs/event-format.md): as lines, to be counted.
  "$stream_text" </tmp/stap.bin >/tmp/stap.out
  echo "round $i iotap $(tps /tmp/stap.err) $(transactions /tmp/stap.err)" \
    "$(events /tmp/stap.out) $(count '^PB [0-9 ]* 0 0 -' /tmp/stap.out)" \
    "$(sum_after 'skipped probes:' /tmp/stap.err)"
  kinds iotap /tmp/stap.out
  server_stop

  # bpftrace as a DBA runs it (dbslower's way): on the server's executable, every process,
  # attached before the load starts ("Attaching N probes..." is its first line), stopped with
  # SIGINT after it. BPFTRACE_STRLEN=200: a query's text as long as iotap's.
  /iotap/as-postgres pg_ctl -D /pg/data -l /pg/server.log -w -t 120 start >/dev/null ||
    echo "error the server did not start: $(tail -n 3 /pg/server.log)"
  BPFTRACE_STRLEN=200 /tools/bin/bpftrace -o /tmp/bt.out "$bt" 2>/tmp/bt.err &
  bpftrace_pid=$!
  waited=0
  until grep -q '^Attaching' /tmp/bt.out 2>/dev/null; do
    kill -0 "$bpftrace_pid" 2>/dev/null || break
    [ "$waited" -ge 600 ] && break  # 60 s: bpftrace's LLVM compile under TCG takes about 10
    sleep 0.1
    waited=$((waited + 1))
  done
  grep -q '^Attaching' /tmp/bt.out 2>/dev/null ||
    echo "error bpftrace did not attach: $(tail -n 3 /tmp/bt.err)"
  /iotap/as-postgres $pgbench_args >/tmp/bt.pgbench 2>&1 ||
    echo "error pgbench under bpftrace: $(tail -n 3 /tmp/bt.pgbench)"
  kill -INT "$bpftrace_pid" 2>/dev/null
  wait "$bpftrace_pid"
  echo "round $i bpftrace $(tps /tmp/bt.pgbench) $(transactions /tmp/bt.pgbench)" \
    "$(events /tmp/bt.out) $(count '^PB [0-9 ]* 0 0 -' /tmp/bt.out)" \
    "$(($(sum_after Lost /tmp/bt.out) + $(sum_after Lost /tmp/bt.err)))"
  kinds bpftrace /tmp/bt.out
  server_stop
  rm -f /tmp/stap.bin /tmp/stap.out /tmp/bt.out
  i=$((i + 1))
done
