#!/bin/bash
# A long run at the guest's top event rate: block_hasher's 4 KiB O_DIRECT reads, one thread per
# vCPU, through dm (linear) over md (raid0) over two null_blk disks that complete at once, for
# SECONDS under `iotap attribute` and then under `iotap record`, each stopped by --timeout.
#
#   bench/longrun/long_run.sh [BUILD_DIR [SECONDS [THREADS]]]   (build, 600, 2: the guest's vCPUs)
#
# For each verb, one line: the events it read and their rate over the traced time, what was lost
# (the engine's sequence gaps and stap's skipped probes), iotap's resident memory (VmRSS, from
# /proc, every second) once the run is under way and at its end, its peak (VmHWM), and for record
# the recording's size. The samples are kept in the work directory, which is printed.
set -euo pipefail
build=${1:-build}
seconds=${2:-600}
threads=${3:-2}
iotap=$build/launcher/iotap
[ -x "$iotap" ] || { echo "long_run: $iotap is missing: build it first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d /tmp/iotap-long-run.XXXXXX)
echo "long_run: files in $work" >&2
# 2 x 64 GiB: more blocks than a run of an hour reads at this rate. null_blk keeps only what is
# written, so reading them takes no guest memory.
stack='linear(raid0(null:64G*2))'
command="block_hasher -d __DEV__ -b 4096 -t $threads --direct"

# rss_of PID FIELD: the field (VmRSS, VmHWM) of /proc/PID/status in kB, or nothing once it ended.
rss_of() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

# measure VERB OUTPUT: the verb's run, sampled each second; prints its line.
measure() {
  local verb=$1 output=$2 pid started="" first="" last="" peak="" now
  "$iotap" "$verb" -o "$output" --target vm --stack "$stack" --timeout "$seconds" \
    -c "$command" $([ "$verb" = attribute ] && echo --json) >/dev/null 2>"$work/$verb.err" &
  pid=$!
  : >"$work/$verb.rss"
  while kill -0 "$pid" 2>/dev/null; do
    now=$(rss_of "$pid" VmRSS)
    [ -n "$now" ] || break
    peak=$(rss_of "$pid" VmHWM)
    # Under way: the guest said "running" and the first minute of reading has passed (the
    # engine's buffers and the report's histograms have their size by then).
    if [ -z "$started" ] && grep -q '] running' "$work/$verb.err"; then started=$(date +%s); fi
    if [ -n "$started" ]; then
      echo "$(($(date +%s) - started)) $now" >>"$work/$verb.rss"
      [ -z "$first" ] && [ "$(($(date +%s) - started))" -ge 60 ] && first=$now
      last=$now
    fi
    sleep 1
  done
  wait "$pid" || true
  echo "$verb: $(summary "$verb" "$output"), iotap's RSS ${first:-?} kB after a minute, ${last:-?} kB at the end, peak ${peak:-?} kB"
}

# The events, their rate and the loss: from attribute's JSON, or from the recording's end line.
summary() {
  python3 - "$1" "$2" <<'EOF'
import json, os, sys
verb, path = sys.argv[1], sys.argv[2]
if verb == "attribute":
    j = json.load(open(path))
    reads, events, loss, overhead = j["requests"]["count"], j["stream"]["events"], j["loss"], j["overhead"]
else:
    end = json.loads(open(path).read().rstrip("\n").rsplit("\n", 1)[1].split(" ", 1)[1])
    reads, loss, overhead = end["reads"], end["loss"], end["overhead"]
    events = overhead["probe_hits"] - overhead["skipped_probes"]
seconds = overhead["seconds"] / max(overhead["share"], 1e-9)
extra = f", recording {os.path.getsize(path)} bytes" if verb == "record" else ""
print(f"{reads} reads, {events} events in {seconds:.0f} s ({events / seconds:.0f} events/s), lost: "
      f"{loss['sequence_gaps']} sequence gaps, {loss['skipped_probes']} skipped probes{extra}")
EOF
}

measure attribute "$work/attribute.json"
measure record "$work/run.rec"
