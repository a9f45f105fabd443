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
rm -f build/Testing/junit.xml
ctest --test-dir build --output-on-failure -j "$(nproc)" \
  --resource-spec-file "$PWD/build/test-guests.json" --output-junit "$PWD/build/Testing/junit.xml" \
  "$@" || status=$?
if [ "$status" -ne 0 ] && [ -f build/Testing/junit.xml ]; then
  # Why each failed test failed, last: a log kept only in its head and tail still says it.
  echo "test.sh: why the failed tests failed (each one's whole output: build/Testing/junit.xml):"
  python3 tests/why_failed/why_failed.py build/Testing/junit.xml
fi
exit "$status"
