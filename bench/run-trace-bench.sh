#!/usr/bin/env bash
# Trace-run speed benchmark (issues 4, 11 and 14): the whole two weeks of a generated Lingjun
# trace (seed 1) on the ~2,000-GPU two-layer Clos (173 ToRs, 16 aggregation switches, 250 hosts x
# 8 GPUs), engine "epoch", once with Crux and once with ECMP (the baseline), in this one
# invocation. Prints per scheduler: wall seconds, CPU (user) seconds, peak RSS (/usr/bin/time -v),
# events (arrivals + completions), decisions, jobs, mean GPU utilization, and the wall-time ratio
# crux/ecmp, against the goal (<= 300 s wall for one scheduler). Then the load curve of issue 14
# item 6: --curve-days days (2) of the trace, random placement, --jobsPerDay at 1x, 2x and 3x the
# real rate (5180 / 14 per day), ECMP and the timed scheduler, wall and CPU seconds per run and the
# ratio of the 3x to the 1x time per scheduler (goal <= 4: the cost grows with the work, not
# faster). With --baseline=BIN the same runs are also made with that second crux-trace-run (for
# example main's build) in the same invocation, and its outputs are compared with this build's
# (they must be identical for a pure speed-up). Then times one scheduler decision for 100
# concurrent jobs on the 173-ToR Clos (cluster-decision-bench; goal <= 50 ms).
# With --scale=N (issue 30 item 3), also two weeks of the timed scheduler on a Clos N times the
# default (173 N ToRs, 250 N hosts of 8 GPUs, the 16 aggregation switches kept, so two ToRs keep
# 16 paths) with the generator's arrival rate N times the real one (the load per GPU kept),
# locality placement; goal <= 600 s wall for N = 5 (about 10,000 GPUs).
# On a machine shared with other work the CPU seconds are the steadier measure; ratios come from
# one invocation.
#
# Usage: bench/run-trace-bench.sh [--days=D] [--seed=N] [--placement=P] [--topology=T]
#                                 [--scheduler=S] [--curve-days=D] [--baseline=BIN]
#                                 [--scale=N] [--no-two-week] [--no-curve] [--no-decision]
#                                 [--no-build] [--timeline=T]
#   --scheduler    the scheduler timed against ecmp (default crux)
#   --curve-days   days of the load curve (default 2; 0 = no curve)
#   --baseline     a second crux-trace-run binary measured the same way (before/after)
#   --scale        also the two weeks on the Clos N times as large (default 0 = not run)
#   --no-two-week, --no-curve, --no-decision  leave that part out
#   --no-build     use $CRUX_BUILD_DIR/{crux-trace-run,cluster-decision-bench} as they are
#   --timeline     this build's runs with crux-trace-run --timeline=T (step or collective; default:
#                  its default); not passed to --baseline
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
CURVE_DAYS=2
BASELINE=""
TWO_WEEK=1
DECISION=1
SCALE=0
TIMELINE=""
for arg in "$@"; do
    case "$arg" in
        --scale=*) SCALE="${arg#*=}" ;;
        --curve-days=*) CURVE_DAYS="${arg#*=}" ;;
        --baseline=*) BASELINE="${arg#*=}" ;;
        --no-two-week) TWO_WEEK=0 ;;
        --no-curve) CURVE_DAYS=0 ;;
        --no-decision) DECISION=0 ;;
        --days=*) DAYS="${arg#*=}" ;;
        --seed=*) SEED="${arg#*=}" ;;
        --placement=*) PLACEMENT="${arg#*=}" ;;
        --topology=*) TOPOLOGY="${arg#*=}" ;;
        --scheduler=*) SCHED="${arg#*=}" ;;
        --no-build) BUILD=0 ;;
        --timeline=*) TIMELINE="${arg#*=}" ;;
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

if ! [[ "$SCALE" =~ ^[0-9]+$ ]] || ((SCALE > 40)); then
    echo "run-trace-bench.sh: --scale: '$SCALE' is not a whole number 0..40" >&2
    exit 2
fi

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
if [[ -n "$BASELINE" && ! -x "$BASELINE" ]]; then
    echo "run-trace-bench.sh: --baseline: $BASELINE is not an executable" >&2
    exit 1
fi
for b in "$RUN" "$DEC"; do
    if [[ ! -x "$b" ]]; then
        echo "run-trace-bench.sh: $b was not built" >&2
        exit 1
    fi
done

# json KEY FILE: a top-level number of summary.json
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[2])); print(d[sys.argv[1]])" "$1" "$2"; }

declare -A WALL CPU RSS
# timed BIN TAG ARGS...: runs BIN with ARGS (output under $TMP/out-TAG), sets WALL/CPU/RSS[TAG]
timed() {
    local bin=$1 tag=$2
    shift 2
    local out="$TMP/out-$tag"
    if [[ -n "$TIMELINE" && "$bin" == "$RUN" ]]; then
        set -- "$@" --timeline="$TIMELINE"
    fi
    if [[ -x /usr/bin/time ]]; then
        # progress lines on stderr (the table only on stdout)
        /usr/bin/time -v -o "$TMP/time-$tag" nice -n 10 "$bin" "$@" --outputDir="$out" --quiet \
            --progress=30
        RSS[$tag]="$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time-$tag")"
        CPU[$tag]="$(sed -n 's/.*User time (seconds): *//p' "$TMP/time-$tag")"
        local w
        w="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): *//p' "$TMP/time-$tag")"
        WALL[$tag]="$(awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<< "$w")"
    else
        local t0
        t0=$(date +%s.%N)
        nice -n 10 "$bin" "$@" --outputDir="$out" --quiet --progress=30
        WALL[$tag]="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')"
        CPU[$tag]=0
        RSS[$tag]=0
    fi
}
# same TAG1 TAG2 S: "identical" if the result files of scheduler S of both runs are identical
same() {
    local f
    for f in jobs.csv utilization.csv link-intensity.csv decisions.csv; do
        cmp -s "$TMP/out-$1/$3/$f" "$TMP/out-$2/$3/$f" || {
            echo "DIFFERENT ($f)"
            return
        }
    done
    echo identical
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }'; }

if ((TWO_WEEK)); then
    echo "== ${DAYS} days, seed ${SEED}, ${TOPOLOGY}, ${PLACEMENT} placement, engine epoch"
    printf '%-10s %-9s %9s %9s %12s %8s %10s %6s %10s %10s\n' scheduler build wall_s cpu_s \
        peak_RSS_MB events decisions jobs finished mean_util
    for s in "$SCHED" ecmp; do
        for b in this ${BASELINE:+baseline}; do
            bin="$RUN"
            [[ "$b" == baseline ]] && bin="$BASELINE"
            tag="tw-$b-$s"
            timed "$bin" "$tag" --schedulers="$s" --days="$DAYS" --seed="$SEED" \
                --placement="$PLACEMENT" --topology="$TOPOLOGY"
            sum="$TMP/out-$tag/$s/summary.json"
            printf '%-10s %-9s %9.1f %9.1f %12.1f %8s %10s %6s %10s %10.4f\n' "$s" "$b" \
                "${WALL[$tag]}" "${CPU[$tag]}" "$(awk -v k="${RSS[$tag]}" 'BEGIN{print k / 1024}')" \
                "$(json events "$sum")" "$(json decisions "$sum")" "$(json jobs "$sum")" \
                "$(json jobs_finished "$sum")" "$(json mean_gpu_utilization "$sum")"
        done
        if [[ -n "$BASELINE" ]]; then
            echo "  ${s}: this/baseline wall $(ratio "${WALL[tw-this-$s]}" "${WALL[tw-baseline-$s]}")," \
                "cpu $(ratio "${CPU[tw-this-$s]}" "${CPU[tw-baseline-$s]}"); outputs" \
                "$(same "tw-this-$s" "tw-baseline-$s" "$s")"
        fi
    done
    echo "wall-time ratio ${SCHED}/ecmp: $(ratio "${WALL[tw-this-$SCHED]}" "${WALL[tw-this-ecmp]}")"
    if awk -v w="${WALL[tw-this-$SCHED]}" 'BEGIN{exit !(w <= 300)}'; then
        echo "goal (${SCHED}, ${DAYS} days <= 300 s wall): MET"
    else
        echo "goal (${SCHED}, ${DAYS} days <= 300 s wall): NOT MET"
    fi
    echo
fi

if ((CURVE_DAYS > 0)); then
    # The real trace's rate (ClusterRunConfig default: 5180 jobs in 14 days) x 1, 2, 3.
    echo "== load curve: ${CURVE_DAYS} days, seed ${SEED}, ${TOPOLOGY}, random placement," \
        "jobsPerDay = 1x, 2x, 3x of 5180/14"
    printf '%-10s %-9s %5s %10s %8s %9s %9s\n' scheduler build load jobsPerDay events wall_s cpu_s
    for s in ecmp "$SCHED"; do
        for b in this ${BASELINE:+baseline}; do
            bin="$RUN"
            [[ "$b" == baseline ]] && bin="$BASELINE"
            for x in 1 2 3; do
                jpd="$(awk -v x="$x" 'BEGIN{printf "%.6f", x * 5180 / 14}')"
                tag="lc-$b-$s-$x"
                timed "$bin" "$tag" --schedulers="$s" --days="$CURVE_DAYS" --seed="$SEED" \
                    --placement=random --topology="$TOPOLOGY" --jobsPerDay="$jpd"
                printf '%-10s %-9s %4sx %10.1f %8s %9.1f %9.1f\n' "$s" "$b" "$x" "$jpd" \
                    "$(json events "$TMP/out-$tag/$s/summary.json")" "${WALL[$tag]}" "${CPU[$tag]}"
            done
            echo "  ${s} (${b}): 3x/1x wall $(ratio "${WALL[lc-$b-$s-3]}" "${WALL[lc-$b-$s-1]}")," \
                "cpu $(ratio "${CPU[lc-$b-$s-3]}" "${CPU[lc-$b-$s-1]}") (goal <= 4)"
        done
        if [[ -n "$BASELINE" ]]; then
            for x in 1 2 3; do
                echo "  ${s} ${x}x: this/baseline cpu" \
                    "$(ratio "${CPU[lc-this-$s-$x]}" "${CPU[lc-baseline-$s-$x]}"); outputs" \
                    "$(same "lc-this-$s-$x" "lc-baseline-$s-$x" "$s")"
            done
        fi
    done
    echo
fi

if ((SCALE > 0)); then
    tors=$((173 * SCALE))
    hosts=$((250 * SCALE))
    jpd="$(awk -v x="$SCALE" 'BEGIN{printf "%.6f", x * 5180 / 14}')"
    echo "== ${DAYS} days, seed ${SEED}, Clos x${SCALE} (${tors} ToRs, 16 aggregation switches," \
        "${hosts} hosts, $((hosts * 8)) GPUs), jobsPerDay ${jpd}, locality placement"
    printf '%-10s %9s %9s %12s %8s %10s %6s %10s\n' scheduler wall_s cpu_s peak_RSS_MB events \
        decisions jobs mean_util
    tag="scale-$SCHED"
    timed "$RUN" "$tag" --schedulers="$SCHED" --days="$DAYS" --seed="$SEED" --placement=locality \
        --topology=clos --closTors="$tors" --closHosts="$hosts" --jobsPerDay="$jpd"
    sum="$TMP/out-$tag/$SCHED/summary.json"
    printf '%-10s %9.1f %9.1f %12.1f %8s %10s %6s %10.4f\n' "$SCHED" "${WALL[$tag]}" \
        "${CPU[$tag]}" "$(awk -v k="${RSS[$tag]}" 'BEGIN{print k / 1024}')" "$(json events "$sum")" \
        "$(json decisions "$sum")" "$(json jobs "$sum")" "$(json mean_gpu_utilization "$sum")"
    if awk -v w="${WALL[$tag]}" 'BEGIN{exit !(w <= 600)}'; then
        echo "goal (${SCHED}, ${DAYS} days, x${SCALE} <= 600 s wall): MET"
    else
        echo "goal (${SCHED}, ${DAYS} days, x${SCALE} <= 600 s wall): NOT MET"
    fi
    echo
fi

if ((DECISION)); then
    echo "== one decision, 100 concurrent jobs, 173-ToR Clos"
    for p in random locality; do
        "$DEC" --jobs=100 --scheduler="$SCHED" --placement="$p" --repeat=5 --seed="$SEED"
    done
fi
