#!/usr/bin/env bash
# Runs every iotap test: sets up and builds first (./setup.sh --no-demo), then all CTest labels:
# unit, golden, stap (compile-only for the guest kernel) and vm (real runs in a qemu guest).
# Warnings are errors here (IOTAP_WERROR, kept in build/ afterwards). Extra arguments go to
# ctest, e.g. ./test.sh -L unit
# Tests run side by side, one per CPU; the vm tier's take one of the shared guests each
# (tests/vm/CMakeLists.txt), which the resource spec file lists.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --no-demo --werror
status=0
junit_files=("$PWD/build/Testing/junit.xml")
rm -f build/Testing/junit.xml build/Testing/lint-junit.xml
lint=""
if [ "$#" -eq 0 ]; then
  # Every test: the lint tier (clang-tidy over launcher/, about 28 CPU-minutes on its own) runs
  # beside the others, in a ctest of its own in the idle scheduling class, where it gets only the
  # CPU time they leave (the vm tier's guests wait on delays, timers and each other); what it has
  # not done when they end it does then, alone (docs/performance.md, "The whole suite").
  mkdir -p build/Testing
  junit_files+=("$PWD/build/Testing/lint-junit.xml")
  setsid chrt --idle 0 ctest --test-dir build --output-on-failure -j "$(nproc)" -L lint \
    --output-junit "$PWD/build/Testing/lint-junit.xml" >build/Testing/lint.log 2>&1 &
  lint=$!
  # Whatever ends this script ends the lint too (its own process group: ctest, clang-tidy).
  trap 'kill -- -"$lint" 2>/dev/null || true' EXIT
  set -- -LE lint
fi
ctest --test-dir build --output-on-failure -j "$(nproc)" \
  --resource-spec-file "$PWD/build/test-guests.json" --output-junit "${junit_files[0]}" \
  "$@" || status=$?
if [ -n "$lint" ]; then
  lint_status=0
  wait "$lint" || lint_status=$?
  echo "test.sh: the lint tier, run beside the others (build/Testing/lint.log):"
  cat build/Testing/lint.log
  [ "$lint_status" -eq 0 ] || status=$lint_status
fi
existing=()
for file in "${junit_files[@]}"; do
  [ -f "$file" ] && existing+=("$file")
done
if [ "$status" -ne 0 ] && ((${#existing[@]})); then
  # Why each failed test failed, last: a log kept only in its head and tail still says it.
  echo "test.sh: why the failed tests failed (each one's whole output: ${existing[*]}):"
  python3 tests/why_failed/why_failed.py "${existing[@]}"
fi
exit "$status"
