#!/usr/bin/env bash
# Sanitizer run: builds the module, its tests and the two programs with AddressSanitizer and
# UndefinedBehaviorSanitizer (cmake -DCRUX_SANITIZE=ON) in build-sanitize/, then runs under them
# the GoogleTest suites, the QUICK ns-3 test suites of the fabric, transport and workload layers,
# the bad-input checks and the fuzz test (--quick: a third of its values). Any sanitizer report
# fails the run (halt_on_error; UBSan without recovery). Usage: bash scripts/sanitize.sh
# (after bash scripts/setup.sh). Wall time measured in doc/crux.rst, "Bad input".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CRUX_SANITIZE_BUILD_DIR:-$here/build-sanitize}
jobs=${CRUX_JOBS:-$(nproc)}
start=$(date +%s)
launcher=()
if command -v ccache >/dev/null; then
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$here;CCACHE_NOHASHDIR=true;ccache")
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCRUX_SANITIZE=ON \
    "${launcher[@]}" ${CRUX_CMAKE_ARGS:-}
fi
cmake --build "$build" -j"$jobs" --target crux-gtest crux-test-runner crux-experiment crux-trace-run
built=$(date +%s)
# ns-3's singletons are freed at exit by design or not at all: leak reports would be noise.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0:detect_odr_violation=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fail=0
step() {
  local name=$1
  shift
  local t0
  t0=$(date +%s)
  if "$@" >"$build/sanitize-$name.log" 2>&1; then
    echo "sanitize: ok   $name ($(($(date +%s) - t0)) s)"
  else
    echo "sanitize: FAIL $name ($(($(date +%s) - t0)) s), log: $build/sanitize-$name.log"
    tail -n 30 "$build/sanitize-$name.log"
    fail=1
  fi
}
step gtest "$build/crux-gtest"
for suite in crux-qbb crux-switch crux-rdma crux-cc crux-flow crux-workload crux-collectives; do
  step "$suite" "$build/crux-test-runner" --test-name="$suite" --fullness=QUICK
done
step cli-errors bash "$here/test/check-cli-errors.sh" "$build/crux-experiment" "$here"
step fuzz python3 "$here/test/fuzz-bad-input.py" "$build" "$here" --quick
echo "sanitize: build $((built - start)) s, runs $(($(date +%s) - built)) s, total" \
  "$(($(date +%s) - start)) s"
exit $fail
