#!/usr/bin/env bash
# Runs every crux test: GoogleTest (pure scheduling layer) and the ns-3 TestSuites, via ctest.
# Builds first if needed. Usage: bash scripts/test.sh   (after bash scripts/setup.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CRUX_BUILD_DIR:-$here/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
# CRUX_SANITIZE=1: also the ASan + UBSan build and its runs (scripts/sanitize.sh, build-sanitize/).
if [ "${CRUX_SANITIZE:-0}" = 1 ]; then
  bash "$here/scripts/sanitize.sh"
fi
