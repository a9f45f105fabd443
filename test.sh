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
ctest --test-dir build --output-on-failure -j "$(nproc)" \
  --resource-spec-file "$PWD/build/test-guests.json" "$@" || status=$?
if [ "$status" -ne 0 ] && [ -f build/Testing/Temporary/LastTest.log ]; then
  # Why each failed test failed, last: a log kept only in its head and tail still says it.
  echo "test.sh: why the failed tests failed (build/Testing/Temporary/LastTest.log has all):"
  awk -f tests/why_failed/why_failed.awk build/Testing/Temporary/LastTest.log
fi
exit "$status"
