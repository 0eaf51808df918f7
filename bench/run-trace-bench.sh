#!/usr/bin/env bash
# Trace-run speed benchmark (issue 4): the whole two weeks of a generated Lingjun trace (seed 1)
# on the ~2,000-GPU two-layer Clos (173 ToRs, 16 aggregation switches, 250 hosts x 8 GPUs),
# engine "epoch", once with Crux and once with ECMP (the baseline), in this one invocation.
# Prints per scheduler: wall seconds, peak RSS (/usr/bin/time -v), events (arrivals +
# completions), decisions, jobs, mean GPU utilization, and the wall-time ratio crux/ecmp, against
# the goal (<= 300 s wall for one scheduler). Then times one scheduler decision for 100
# concurrent jobs on the 173-ToR Clos (cluster-decision-bench; goal <= 50 ms).
#
# Usage: bench/run-trace-bench.sh [--days=D] [--seed=N] [--placement=P] [--topology=T]
#                                 [--scheduler=S] [--no-build]
#   --scheduler  the scheduler timed against ecmp (default crux)
#   --no-build   use $CRUX_BUILD_DIR/{crux-trace-run,cluster-decision-bench} as they are
# Environment: CRUX_BUILD_DIR = build directory (default <clone>/build); it is configured
# (if it has no CMakeCache.txt) and the two targets are built (incremental) first.
# A missed goal is reported, not an error.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CRUX_BUILD_DIR:-$REPO/build}"
DAYS=14
SEED=1
PLACEMENT=locality
TOPOLOGY=clos
SCHED=crux
BUILD=1
for arg in "$@"; do
    case "$arg" in
        --days=*) DAYS="${arg#*=}" ;;
        --seed=*) SEED="${arg#*=}" ;;
        --placement=*) PLACEMENT="${arg#*=}" ;;
        --topology=*) TOPOLOGY="${arg#*=}" ;;
        --scheduler=*) SCHED="${arg#*=}" ;;
        --no-build) BUILD=0 ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-trace-bench.sh: unknown option '$arg' (see --help)" >&2
            exit 2
            ;;
    esac
done

# shellcheck source=bench/bench-lib.sh
source "$REPO/bench/bench-lib.sh"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

if ((BUILD)); then
    crux_bench_configure "$BUILD_DIR" "$REPO" "$TMP"
    echo "== building crux-trace-run and cluster-decision-bench in $BUILD_DIR"
    cmake --build "$BUILD_DIR" --target crux-trace-run cluster-decision-bench -- -j2 \
        > "$TMP/build.log" 2>&1 || {
        tail -40 "$TMP/build.log" >&2
        exit 1
    }
fi
RUN="$BUILD_DIR/crux-trace-run"
DEC="$BUILD_DIR/cluster-decision-bench"
for b in "$RUN" "$DEC"; do
    if [[ ! -x "$b" ]]; then
        echo "run-trace-bench.sh: $b was not built" >&2
        exit 1
    fi
done

# json KEY FILE: a top-level number of summary.json
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[2])); print(d[sys.argv[1]])" "$1" "$2"; }

declare -A WALL RSS
echo "== ${DAYS} days, seed ${SEED}, ${TOPOLOGY}, ${PLACEMENT} placement, engine epoch"
printf '%-10s %9s %12s %8s %10s %6s %10s %10s\n' scheduler wall_s peak_RSS_MB events decisions \
    jobs finished mean_util
for s in "$SCHED" ecmp; do
    out="$TMP/out-$s"
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -v -o "$TMP/time-$s" "$RUN" --schedulers="$s" --days="$DAYS" \
            --seed="$SEED" --placement="$PLACEMENT" --topology="$TOPOLOGY" --outputDir="$out" \
            --quiet
        RSS[$s]="$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time-$s")"
        w="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): *//p' "$TMP/time-$s")"
        WALL[$s]="$(awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<< "$w")"
    else
        t0=$(date +%s.%N)
        "$RUN" --schedulers="$s" --days="$DAYS" --seed="$SEED" --placement="$PLACEMENT" \
            --topology="$TOPOLOGY" --outputDir="$out" --quiet
        WALL[$s]="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')"
        RSS[$s]=0
    fi
    sum="$out/$s/summary.json"
    printf '%-10s %9.1f %12.1f %8s %10s %6s %10s %10.4f\n' "$s" "${WALL[$s]}" \
        "$(awk -v k="${RSS[$s]}" 'BEGIN{print k / 1024}')" "$(json events "$sum")" \
        "$(json decisions "$sum")" "$(json jobs "$sum")" "$(json jobs_finished "$sum")" \
        "$(json mean_gpu_utilization "$sum")"
done
echo "wall-time ratio ${SCHED}/ecmp: $(awk -v a="${WALL[$SCHED]}" -v b="${WALL[ecmp]}" \
    'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }')"
if awk -v w="${WALL[$SCHED]}" 'BEGIN{exit !(w <= 300)}'; then
    echo "goal (${SCHED}, ${DAYS} days <= 300 s wall): MET"
else
    echo "goal (${SCHED}, ${DAYS} days <= 300 s wall): NOT MET"
fi
echo
echo "== one decision, 100 concurrent jobs, 173-ToR Clos"
for p in random locality; do
    "$DEC" --jobs=100 --scheduler="$SCHED" --placement="$p" --repeat=5 --seed="$SEED"
done
