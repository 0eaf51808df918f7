#!/usr/bin/env bash
# Runs the trace-driven experiments of Crux §6.3 and draws their figures (issue 4):
#   Fig. 23  mean GPU utilization per scheduler on each topology (clos, double-sided, lingjun),
#   Fig. 24  link traffic by GPU intensity over time (clos, ECMP and Crux),
#   Fig. 25  utilization with job schedulers (placements random / locality / buddy, ECMP and Crux).
# Every number comes from crux-trace-run (engine "epoch", generated Lingjun trace, seed --seed);
# the plot scripts only read its files and print the plotted values next to the source file.
#
# Usage: scripts/run-paper-figures.sh [--out=DIR] [--days=D] [--seed=N] [--workModel=M]
#            [--torAggRate=R] [--figures=23,24,25] [--topologies=clos,double-sided,lingjun]
#            [--schedulers=LIST] [--build-dir=DIR] [--python=PY]
#   --out         output directory (default paper-figures); runs in <out>/fig23/<topology>,
#                 <out>/fig25/<placement>, figures and tables in <out>
#   --days        submission span of the generated trace (default 14)
#   --workModel   duration (default; a scheduler's effect shows as utilization) or iterations
#   --torAggRate  ToR-aggregation rate for every topology (default: each topology's default)
#   --schedulers  Fig. 23 schedulers (default: ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,
#                 sincronia,varys)
#   --build-dir   directory holding crux-trace-run (default <clone>/build, built if missing)
#   --python      python with matplotlib for the plot scripts (default /usr/bin/python3,
#                 Debian's python3-matplotlib, which scripts/setup.sh installs)
# Exit status: non-zero if a run or a plot fails (its log is printed).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT=paper-figures
DAYS=14
SEED=1
WORK=duration
TORAGG=""
FIGURES=23,24,25
TOPOLOGIES=clos,double-sided,lingjun
SCHEDULERS=ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,sincronia,varys
BUILD_DIR="$REPO/build"
PY=/usr/bin/python3
for arg in "$@"; do
    case "$arg" in
        --out=*) OUT="${arg#*=}" ;;
        --days=*) DAYS="${arg#*=}" ;;
        --seed=*) SEED="${arg#*=}" ;;
        --workModel=*) WORK="${arg#*=}" ;;
        --torAggRate=*) TORAGG="${arg#*=}" ;;
        --figures=*) FIGURES="${arg#*=}" ;;
        --topologies=*) TOPOLOGIES="${arg#*=}" ;;
        --schedulers=*) SCHEDULERS="${arg#*=}" ;;
        --build-dir=*) BUILD_DIR="${arg#*=}" ;;
        --python=*) PY="${arg#*=}" ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-paper-figures.sh: unknown option '$arg' (see --help)" >&2
            exit 2
            ;;
    esac
done

die() {
    echo "run-paper-figures.sh: $*" >&2
    exit 2
}
# Check the options before anything runs or is written.
IFS=, read -ra FIGS <<<"$FIGURES"
((${#FIGS[@]} > 0)) || die "--figures: empty (expected a list of 23, 24, 25)"
for f in "${FIGS[@]}"; do
    [[ "$f" == 23 || "$f" == 24 || "$f" == 25 ]] ||
        die "--figures: '$f' is not a figure of this script (expected 23, 24 or 25)"
done
IFS=, read -ra TOPOS <<<"$TOPOLOGIES"
((${#TOPOS[@]} > 0)) || die "--topologies: empty (expected clos, double-sided, lingjun)"
for t in "${TOPOS[@]}"; do
    [[ "$t" == clos || "$t" == double-sided || "$t" == lingjun ]] ||
        die "--topologies: unknown topology '$t' (expected clos, double-sided or lingjun)"
done
[[ "$DAYS" =~ ^[0-9]*\.?[0-9]+$ ]] || die "--days: '$DAYS' is not a positive number of days"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed: '$SEED' is not a non-negative integer"
[[ "$WORK" == duration || "$WORK" == iterations ]] ||
    die "--workModel: '$WORK' (expected duration or iterations)"
[[ -n "$SCHEDULERS" ]] || die "--schedulers: empty"
[[ ! -e "$OUT" || -d "$OUT" ]] || die "--out: '$OUT' exists and is not a directory"

RUN="$BUILD_DIR/crux-trace-run"
if [[ ! -x "$RUN" ]]; then
    echo "== building crux-trace-run in $BUILD_DIR"
    if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
        cmake -S "$REPO" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    fi
    cmake --build "$BUILD_DIR" --target crux-trace-run -- -j2 >/dev/null
fi
PLOT="$REPO/scripts/plot"
mkdir -p "$OUT"

COMMON=(--days="$DAYS" --seed="$SEED" --workModel="$WORK" --quiet)
[[ -n "$TORAGG" ]] && COMMON+=(--torAggRate="$TORAGG")

run() { # run <log> <args...>: crux-trace-run, its log printed if it fails
    local log="$1"
    shift
    local t0=$SECONDS
    if ! "$RUN" "$@" >"$log" 2>&1; then
        echo "run-paper-figures.sh: crux-trace-run failed ($log):" >&2
        tail -20 "$log" >&2
        exit 1
    fi
    echo "   done in $((SECONDS - t0)) s ($log)"
}

has() { [[ ",$FIGURES," == *",$1,"* ]]; }

if has 23 || has 24; then
    dirs=()
    for t in "${TOPOS[@]}"; do
        extra=()
        [[ "$t" == lingjun ]] && extra=(--topoCsv="$REPO/data/lingjun-2023/topo.csv")
        echo "== Fig. 23: $t, random placement, schedulers $SCHEDULERS"
        run "$OUT/fig23-$t.log" --topology="$t" --placement=random --schedulers="$SCHEDULERS" \
            "${extra[@]}" "${COMMON[@]}" --outputDir="$OUT/fig23/$t"
        dirs+=("$OUT/fig23/$t")
    done
    if has 23; then
        "$PY" "$PLOT/fig23_utilization.py" "${dirs[@]}" --schedulers "$SCHEDULERS" \
            --baseline "${SCHEDULERS%%,*}" \
            --output "$OUT/fig23.png" | tee "$OUT/fig23.txt"
    fi
    if has 24; then
        heat=""
        for s in ecmp crux; do [[ ",$SCHEDULERS," == *",$s,"* ]] && heat="${heat:+$heat,}$s"; done
        "$PY" "$PLOT/fig24_intensity_heatmap.py" "${dirs[0]}" --schedulers "${heat:-${SCHEDULERS%%,*}}" \
            --output "$OUT/fig24.png" --values-csv "$OUT/fig24-values.csv" >"$OUT/fig24.txt"
        echo "   Fig. 24 from ${dirs[0]}: $OUT/fig24.png (tables: $OUT/fig24.txt)"
    fi
fi

if has 25; then
    dirs=()
    for p in random locality buddy; do
        echo "== Fig. 25: clos, $p placement, ecmp and crux"
        run "$OUT/fig25-$p.log" --topology=clos --placement="$p" --schedulers=ecmp,crux \
            "${COMMON[@]}" --outputDir="$OUT/fig25/$p"
        dirs+=("$OUT/fig25/$p")
    done
    "$PY" "$PLOT/fig25_job_schedulers.py" "${dirs[@]}" --baseline ecmp \
        --baseline-placement random --output "$OUT/fig25.png" | tee "$OUT/fig25.txt"
fi
echo "== figures and tables in $OUT"
