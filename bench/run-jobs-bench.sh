#!/usr/bin/env bash
# Parallel-runs benchmark (issue 14 item 1): the same work with --jobs=1 (one simulation after
# another in the process) and --jobs=N (forked child processes, N at a time), in this one
# invocation, with the wall-time ratio and a byte-for-byte comparison of the result files.
#  1. The README's main experiment: crux-experiment --scenario=scenarios/sec22-gpt-bert.json,
#     packet level, four simulations (GPT alone, BERT alone, ECMP, Crux; profileIterations = 1,
#     so the two alone runs go first and the two scheduler runs after them).
#  2. crux-trace-run's schedulers on a short window of the generated trace (Clos, random
#     placement): --schedulers=LIST, --days=2 --windowEnd=WINDOW.
#
# Usage: bench/run-jobs-bench.sh [--jobs=N] [--window=6h] [--schedulers=LIST] [--skip-packet]
#                                [--no-build]
#   --jobs        the parallel setting compared with --jobs=1 (default: all cores)
#   --window      trace window end (default 1d, of a 2-day trace)
#   --schedulers  trace-run schedulers (default ecmp,crux,sincronia,varys)
#   --skip-packet only the trace-run part
#   --no-build    use $CRUX_BUILD_DIR/{crux-experiment,crux-trace-run} as they are
# Environment: CRUX_BUILD_DIR = build directory (default <clone>/build).
# On a machine shared with other work the ratio is lower than the cores allow: the script
# prints the load average before each part.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CRUX_BUILD_DIR:-$REPO/build}"
JOBS="$(nproc)"
WINDOW=1d
SCHEDS=ecmp,crux,sincronia,varys
PACKET=1
BUILD=1
for arg in "$@"; do
    case "$arg" in
        --jobs=*) JOBS="${arg#*=}" ;;
        --window=*) WINDOW="${arg#*=}" ;;
        --schedulers=*) SCHEDS="${arg#*=}" ;;
        --skip-packet) PACKET=0 ;;
        --no-build) BUILD=0 ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-jobs-bench.sh: unknown option '$arg' (see --help)" >&2
            exit 2
            ;;
    esac
done
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "run-jobs-bench.sh: --jobs: '$JOBS' is not a positive integer" >&2; exit 2; }

# shellcheck source=bench/bench-lib.sh
source "$REPO/bench/bench-lib.sh"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

if ((BUILD)); then
    crux_bench_configure "$BUILD_DIR" "$REPO" "$TMP"
    echo "== building crux-experiment and crux-trace-run in $BUILD_DIR"
    cmake --build "$BUILD_DIR" --target crux-experiment crux-trace-run -- -j2 \
        > "$TMP/build.log" 2>&1 || {
        tail -40 "$TMP/build.log" >&2
        exit 1
    }
fi

# timed LABEL CMD...: run, store the wall seconds in WALL[LABEL] and the CPU seconds (user +
# system, the child processes included) in CPU[LABEL]
declare -A WALL CPU
timed() {
    local label=$1
    shift
    /usr/bin/time -f "%e %U %S" -o "$TMP/time.txt" "$@"
    WALL[$label]="$(awk '{printf "%.1f", $1}' "$TMP/time.txt")"
    CPU[$label]="$(awk '{printf "%.1f", $2 + $3}' "$TMP/time.txt")"
}

# same DIR1 DIR2: every result file byte for byte (wall-clock files and lines left out)
same() {
    local a=$1 b=$2 f
    [[ "$(cd "$a" && find . -type f | sort)" == "$(cd "$b" && find . -type f | sort)" ]] || { echo "different file lists"; return; }
    while IFS= read -r f; do
        [[ "$f" == */timing.csv ]] && continue
        cmp -s <(grep -v '_seconds"' "$a/$f") <(grep -v '_seconds"' "$b/$f") || { echo "$f differs"; return; }
    done < <(cd "$a" && find . -type f | sort)
    echo "identical"
}

report() {
    local what=$1 d1=$2 dn=$3
    printf '%-50s %9s %9s %7s %9s %9s  %s\n' "$what" "${WALL[$what:1]}" "${WALL[$what:$JOBS]}" \
        "$(awk -v a="${WALL[$what:1]}" -v b="${WALL[$what:$JOBS]}" 'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }')" \
        "${CPU[$what:1]}" "${CPU[$what:$JOBS]}" "$(same "$d1" "$dn")"
}

echo "== $(nproc) cores; --jobs=1 vs --jobs=$JOBS; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if ((PACKET)); then
    what="README main experiment (packet, 4 runs)"
    for j in 1 "$JOBS"; do
        mkdir -p "$TMP/exp$j"
        echo "-- crux-experiment --scenario=scenarios/sec22-gpt-bert.json --jobs=$j (load $(cut -d' ' -f1 /proc/loadavg))"
        # the same relative outputDir, so that summary.json (which names it) can be compared
        timed "$what:$j" env -C "$TMP/exp$j" "$BUILD_DIR/crux-experiment" \
            --scenario="$REPO/scenarios/sec22-gpt-bert.json" --outputDir=out --jobs="$j" \
            --quiet
    done
fi
twhat="trace run ($SCHEDS; window $WINDOW)"
for j in 1 "$JOBS"; do
    echo "-- crux-trace-run --schedulers=$SCHEDS --days=2 --windowEnd=$WINDOW --jobs=$j (load $(cut -d' ' -f1 /proc/loadavg))"
    timed "$twhat:$j" "$BUILD_DIR/crux-trace-run" --topology=clos --placement=random \
        --schedulers="$SCHEDS" --days=2 --windowEnd="$WINDOW" --outputDir="$TMP/trace$j" \
        --jobs="$j" --quiet 2>> "$TMP/trace-warnings.log"
done
echo
printf '%-50s %9s %9s %7s %9s %9s  %s\n' "work" "wall j=1" "wall j=$JOBS" "ratio" "CPU j=1" \
    "CPU j=$JOBS" "result files"
if ((PACKET)); then
    report "$what" "$TMP/exp1/out" "$TMP/exp$JOBS/out"
fi
report "$twhat" "$TMP/trace1" "$TMP/trace$JOBS"
if ((PACKET)); then
    # The runs' own wall times (timing.csv of the --jobs=1 run) and the best ratio the
    # dependency allows: the scheduler runs need the t_j the alone runs measure, so at best the
    # alone runs overlap each other and the scheduler runs overlap each other.
    echo
    echo "runs of the --jobs=1 run (timing.csv, wall s of Simulator::Run):"
    sed 1d "$TMP/exp1/out/timing.csv" | awk -F, '{printf "  %-14s %8.1f\n", $1, $2}'
    awk -F, -v j="$JOBS" 'NR > 1 { t += $2; if ($1 ~ /^alone:/) a[++na] = $2; else s[++ns] = $2 }
        function span(x, n,   i, k, m, w) { # n runs on j cores, longest first, greedy
            for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (x[k] > x[i]) { w = x[i]; x[i] = x[k]; x[k] = w }
            for (k = 1; k <= j; k++) c[k] = 0
            for (i = 1; i <= n; i++) { m = 1; for (k = 2; k <= j; k++) if (c[k] < c[m]) m = k; c[m] += x[i] }
            w = 0; for (k = 1; k <= j; k++) if (c[k] > w) w = c[k]; return w }
        END { b = span(a, na) + span(s, ns);
              printf "best wall ratio the dependency allows on %d idle cores: %.2f (%.1f s of runs, critical path %.1f s)\n", j, t / b, t, b }' \
        "$TMP/exp1/out/timing.csv"
fi
