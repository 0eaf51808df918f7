#!/usr/bin/env bash
# Accuracy and cost of the trace runs' coarse evaluator against the exact one (issue 30), on the
# same runs, in one invocation: every run is made twice with crux-trace-run, --evaluator=exact
# and --evaluator=coarse, and scripts/compare-evaluators.py compares the pair (mean GPU
# utilization, per-job JCT at the median and 99th percentile, the schedulers' order, fluid
# events). Runs:
#   fig23      Clos, random placement, --workModel=duration, every scheduler of Fig. 23, with the
#              topology's default ToR uplinks and with 25 Gbit/s uplinks (the settings of
#              scripts/run-paper-figures.sh, over --days days of the generated trace);
#   load       --load-days days, Clos, random placement, ECMP and Crux, at each --loads
#              arrival rate (jobs per day; 370 = the trace's real rate).
# Prints one table row per scheduler and run (Markdown with --markdown) and each pair's CPU
# seconds; exits 1 with --check when a run misses the tolerances (compare-evaluators.py).
#
# Usage: scripts/compare-evaluators.sh [--out=DIR] [--days=D] [--load-days=D] [--loads=L,...]
#            [--seeds=S,...] [--schedulers=LIST] [--no-fig23] [--no-load] [--jobs=N]
#            [--build-dir=DIR]
#            [--keep-exact] [--markdown] [--check]
#   --out         output directory (default compare-evaluators); runs in <out>/<run>/<evaluator>
#   --days        days of the Fig. 23 runs (default 2)
#   --load-days   days of the load runs (default 2)
#   --loads       arrival rates of the load runs, jobs per day (default 370,740,1110)
#   --seeds       trace seeds of every run (default 1); a seed other than 1 adds -s<seed> to
#                 the run's name (fig23-clos-<days>d-s<seed>, load<rate>-<days>d-s<seed>)
#   --schedulers  Fig. 23 schedulers (default ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,
#                 sincronia,varys)
#   --jobs        scheduler runs at a time inside one crux-trace-run (its --jobs; default 2)
#   --build-dir   directory holding crux-trace-run (default <clone>/build)
#   --keep-exact  reuse <out>/<run>/exact from an earlier invocation with the same options when
#                 it holds a summary.json for every scheduler (the exact runs are the costly half;
#                 compare-evaluators.py refuses a pair whose summary.json settings differ)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT=compare-evaluators
DAYS=2
LOAD_DAYS=2
LOADS=370,740,1110
SEEDS_ARG=1
SCHEDULERS=ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,sincronia,varys
FIG23=1
LOAD=1
KEEP_EXACT=0
JOBS=2
BUILD_DIR="$REPO/build"
PYOPTS=()
die() {
    echo "compare-evaluators.sh: $*" >&2
    exit 1
}
for arg in "$@"; do
    case "$arg" in
        --out=*) OUT="${arg#*=}" ;;
        --days=*) DAYS="${arg#*=}" ;;
        --load-days=*) LOAD_DAYS="${arg#*=}" ;;
        --loads=*) LOADS="${arg#*=}" ;;
        --seeds=*) SEEDS_ARG="${arg#*=}" ;;
        --schedulers=*) SCHEDULERS="${arg#*=}" ;;
        --no-fig23) FIG23=0 ;;
        --no-load) LOAD=0 ;;
        --keep-exact) KEEP_EXACT=1 ;;
        --jobs=*) JOBS="${arg#*=}" ;;
        --build-dir=*) BUILD_DIR="${arg#*=}" ;;
        --markdown | --check) PYOPTS+=("$arg") ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *) die "unknown option '$arg' (see --help)" ;;
    esac
done
RUN="$BUILD_DIR/crux-trace-run"
[[ -x "$RUN" ]] || die "--build-dir: $RUN is not an executable (build crux-trace-run first)"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "--jobs: '$JOBS' is not a positive integer"
IFS=, read -ra SEEDS <<<"$SEEDS_ARG"
((${#SEEDS[@]} > 0)) || die "--seeds: no seed given"
for seed in "${SEEDS[@]}"; do
    [[ "$seed" =~ ^[0-9]+$ ]] || die "--seeds: '$seed' is not a whole number"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package time)"
mkdir -p "$OUT"

STATUS=0
# run_complete <dir> <schedulers>: every scheduler of the comma list has its summary.json and
# jobs.csv in <dir>/<s>
run_complete() {
    local s ss
    IFS=, read -ra ss <<<"$2"
    for s in "${ss[@]}"; do
        [[ -f "$1/$s/summary.json" && -f "$1/$s/jobs.csv" ]] || return 1
    done
}
# pair <name> <schedulers> <crux-trace-run options...>: the run with both evaluators, then the
# comparison
pair() {
    local name="$1" scheds="$2" ev t0 cpu
    shift 2
    for ev in exact coarse; do
        if [[ "$ev" == exact ]] && ((KEEP_EXACT)) && run_complete "$OUT/$name/exact" "$scheds"; then
            echo "== $name, evaluator exact: kept from $OUT/$name/exact" >&2
            continue
        fi
        # into <ev>.partial, which replaces <ev> only once the run has succeeded: a refused or
        # failed run leaves an earlier run's results as they were
        rm -rf "$OUT/$name/$ev.partial"
        echo "== $name, evaluator $ev" >&2
        t0=$(date +%s.%N)
        /usr/bin/time -f "%U %S" -o "$OUT/$name-$ev.time" \
            "$RUN" "$@" --schedulers="$scheds" --evaluator="$ev" --jobs="$JOBS" \
            --outputDir="$OUT/$name/$ev.partial" --progress=30 2> "$OUT/$name-$ev.log" ||
            { tail -5 "$OUT/$name-$ev.log" >&2; rm -rf "$OUT/$name/$ev.partial";
              die "$name ($ev) failed (log $OUT/$name-$ev.log)"; }
        rm -rf "$OUT/$name/$ev"
        mv "$OUT/$name/$ev.partial" "$OUT/$name/$ev"
        cpu=$(awk '{print $1 + $2}' "$OUT/$name-$ev.time")
        echo "   $name $ev: CPU $cpu s (user + system, scheduler runs included)," \
            "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" >&2
    done
    python3 "$REPO/scripts/compare-evaluators.py" "$OUT/$name/exact" "$OUT/$name/coarse" \
        --label="$name" ${PYOPTS[@]+"${PYOPTS[@]}"} || STATUS=1
    # one Markdown header for the whole table
    [[ " ${PYOPTS[*]-} " == *" --markdown "* ]] && PYOPTS+=(--no-header)
    return 0
}

for seed in "${SEEDS[@]}"; do
    suffix=""
    [[ "$seed" == 1 ]] || suffix="-s$seed"
    if ((FIG23)); then
        pair "fig23-clos-${DAYS}d${suffix}" "$SCHEDULERS" --topology=clos --placement=random \
            --days="$DAYS" --seed="$seed" --workModel=duration --quiet
        pair "fig23-clos25-${DAYS}d${suffix}" "$SCHEDULERS" --topology=clos --placement=random \
            --days="$DAYS" --seed="$seed" --workModel=duration --torAggRate=25Gbps --quiet
    fi
    if ((LOAD)); then
        IFS=, read -ra LS <<<"$LOADS"
        for l in "${LS[@]}"; do
            pair "load${l}-${LOAD_DAYS}d${suffix}" ecmp,crux --topology=clos --placement=random \
                --days="$LOAD_DAYS" --seed="$seed" --jobsPerDay="$l" --quiet
        done
    fi
done
exit "$STATUS"
