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
ctest --test-dir build --output-on-failure -j "$(nproc)" \
  --resource-spec-file "$PWD/build/test-guests.json" "$@"
