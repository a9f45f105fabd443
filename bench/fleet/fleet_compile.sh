#!/bin/bash
# A fleet's compile with every cache cold: three hosts on one kernel (tests/vm's ssh_test_host,
# each a guest with raid0(ram*3, delay(ram, 20ms)) and an ssh server on 127.0.0.1), traced at once
# with `iotap diagnose --target ssh://A --target ssh://B --target ssh://C`, stap's cache
# (SYSTEMTAP_DIR) and iotap's module cache (IOTAP_MODULE_CACHE) both new and empty.
#
#   bench/fleet/fleet_compile.sh [BUILD_DIR [ROUNDS]]    (BUILD_DIR: build; ROUNDS: 3)
#
# Each round prints one line: "round N SECONDS COMPILES": the fleet's wall time, from the start to
# every host's report, and how many of its hosts ran stap (the others took the module the first
# compiled). IOTAP (the environment) names another iotap binary to measure, e.g. an older build's.
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
iotap=${IOTAP:-$build/launcher/iotap}
host_program=$build/tests/vm/ssh_test_host
# By its path in BUILD_DIR, where the hosts have it (ssh_test_host), whichever iotap measures.
hasher=$(realpath "$build")/workloads/block_hasher/block_hasher
for needed in "$iotap" "$host_program"; do
  [ -x "$needed" ] || { echo "fleet_compile: $needed is missing: build it first (cmake --build $build)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/iotap-fleet-bench.XXXXXX)
hosts=()
cleanup() {
  for pid in "${hosts[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ssh-keygen -q -t ed25519 -N '' -f "$work/key"
printf 'Host *\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' \
  "$work/key" >"$work/ssh_config"

targets=()
for i in 1 2 3; do
  mkfifo "$work/ready$i"
  "$host_program" --stack 'raid0(ram*3, delay(ram, 20ms))' --key "$work/key.pub" \
    >"$work/ready$i" 2>"$work/host$i.log" &
  hosts+=($!)
  exec {fd}<"$work/ready$i"
  read -r -t 300 word port <&"$fd" || { echo "fleet_compile: host $i did not come up:" >&2; tail "$work/host$i.log" >&2; exit 1; }
  [ "$word" = ready ] || { echo "fleet_compile: host $i said '$word $port'" >&2; exit 1; }
  targets+=(--target "ssh://root@127.0.0.1:$port")
done

for round in $(seq 1 "$rounds"); do
  dir=$work/round$round
  mkdir -p "$dir/stap" "$dir/modules"
  start=$(date +%s.%N)
  SYSTEMTAP_DIR=$dir/stap IOTAP_MODULE_CACHE=$dir/modules IOTAP_SSH_CONFIG=$work/ssh_config \
    "$iotap" diagnose "${targets[@]}" -c "$hasher -d /dev/md0 -b 1048576 -t 4 -n 32 --direct" \
    --json -o "$dir/fleet.json" 2>"$dir/stderr" || { echo "fleet_compile: the fleet failed:" >&2; tail "$dir/stderr" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "round $round $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') $(grep -c '] compiling ' "$dir/stderr")"
done
