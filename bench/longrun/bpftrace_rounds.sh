# The long run's bpftrace side, in the guest (bench/longrun/bpftrace_long.cpp, VmRun::plain_command):
#   sh bpftrace_rounds.sh SECONDS DEVICE THREADS HASHER BPFTRACE_SCRIPT
# block_hasher reads DEVICE in 4 KiB O_DIRECT blocks with THREADS threads while bpftrace, attached
# to it (-p: its USDT probes, and the block tracepoints of every process), prints events.bt's
# events for SECONDS; then both are stopped. The events go through a pipe and are counted, not
# kept (ten minutes of them would not fit in the guest's memory). One line:
#   bpftrace SECONDS EVENTS RS RD LOST
# LOST: what bpftrace itself said it lost ("Lost N events", on its output or its stderr).
set -u
seconds=$1 dev=$2 threads=$3 hasher=$4 bt=$5
$hasher -d "$dev" -b 4096 -t "$threads" --direct >/dev/null 2>&1 &
hasher_pid=$!
start=$(date +%s)
timeout -s INT "$seconds" /tools/bin/bpftrace -p "$hasher_pid" "$bt" 2>/tmp/bt.err | awk '
  /^[A-Z][A-Z]* [0-9]/ { events++; if ($1 == "RS") rs++; if ($1 == "RD") rd++ }
  /Lost [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "Lost") lost += $(i + 1) }
  END { printf "%d %d %d %d\n", events, rs, rd, lost }' >/tmp/bt.counts
end=$(date +%s)
kill "$hasher_pid" 2>/dev/null
wait "$hasher_pid" 2>/dev/null
read -r events rs rd lost </tmp/bt.counts
more=$(grep -o 'Lost [0-9]* events' /tmp/bt.err | awk '{ n += $2 } END { print n + 0 }')
echo "bpftrace $((end - start)) $events $rs $rd $((lost + more))"
