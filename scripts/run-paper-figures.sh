#!/usr/bin/env bash
# Runs the trace-driven experiments of Crux §6.3 and draws their figures (issue 4):
#   Fig. 23  mean GPU utilization per scheduler on each topology (clos, double-sided, lingjun),
#   Fig. 24  link traffic by GPU intensity over time (clos, ECMP and Crux),
#   Fig. 25  utilization with job schedulers (placements random / locality / buddy, ECMP and Crux).
# Every number comes from crux-trace-run (engine "epoch", generated Lingjun trace, seed --seed);
# the plot scripts only read its files and print the plotted values next to the source file.
# The runs (one per topology or placement and scheduler) are independent: they run as one sweep
# (scripts/sweep.py, a local Dask cluster of --jobs workers); each run's files do not depend on
# --jobs, the order the runs finish in, or the other schedulers.
#
# Usage: scripts/run-paper-figures.sh [--out=DIR] [--days=D] [--seed=N] [--workModel=M]
#            [--torAggRate=R] [--evaluator=E] [--timeline=T] [--weakLinkClasses=B]
#            [--figures=23,24,25]
#            [--topologies=clos,double-sided,lingjun]
#            [--schedulers=LIST] [--jobs=N] [--build-dir=DIR] [--python=PY] [--sweep-python=PY]
#   --out         output directory (default paper-figures); runs in <out>/fig23/<topology>/<sched>,
#                 <out>/fig25/<placement>/<sched>, their logs in <out>/logs, all their summary
#                 numbers in <out>/table.csv, figures and tables in <out>
#   --days        submission span of the generated trace (default 14)
#   --workModel   duration (default; a scheduler's effect shows as utilization) or iterations
#   --torAggRate  ToR-aggregation rate for every topology (default: each topology's default)
#   --evaluator   crux-trace-run's epoch evaluation, coarse or exact (default: its default,
#                 coarse)
#   --timeline    crux-trace-run's communication timeline, collective or step (default: its
#                 default, collective; doc/results-trace-runs.rst says which each result used)
#   --weakLinkClasses  crux-trace-run's cut across priority classes, true or false (default:
#                 its default, true; false reproduces the numbers measured before 2026-12-07)
#   --schedulers  Fig. 23 schedulers (default: ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,
#                 sincronia,varys)
#   --jobs        runs at a time (default: all cores); 1 = one after another
#   --build-dir   directory holding crux-trace-run (default <clone>/build, built if missing)
#   --python      python with matplotlib and pandas for the plot scripts (default
#                 <build-dir>/venv/bin/python, which scripts/setup.sh creates)
#   --sweep-python  python with Dask for scripts/sweep.py (default <build-dir>/venv/bin/python,
#                 which scripts/setup.sh creates; without Dask the runs go one after another)
# Exit status: non-zero if a run or a plot fails (the run's error line is printed; its log is
# in <out>/logs).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT=paper-figures
DAYS=14
SEED=1
WORK=duration
TORAGG=""
EVALUATOR=""
TIMELINE=""
WEAK_CLASSES=""
FIGURES=23,24,25
TOPOLOGIES=clos,double-sided,lingjun
SCHEDULERS=ecmp,crux,crux-ps-pa,crux-pa,cassini,taccl,sincronia,varys
BUILD_DIR="$REPO/build"
PY=""
SWEEP_PY=""
JOBS=""
for arg in "$@"; do
    case "$arg" in
        --out=*) OUT="${arg#*=}" ;;
        --days=*) DAYS="${arg#*=}" ;;
        --seed=*) SEED="${arg#*=}" ;;
        --workModel=*) WORK="${arg#*=}" ;;
        --torAggRate=*) TORAGG="${arg#*=}" ;;
        --evaluator=*) EVALUATOR="${arg#*=}" ;;
        --timeline=*) TIMELINE="${arg#*=}" ;;
        --weakLinkClasses=*) WEAK_CLASSES="${arg#*=}" ;;
        --figures=*) FIGURES="${arg#*=}" ;;
        --topologies=*) TOPOLOGIES="${arg#*=}" ;;
        --schedulers=*) SCHEDULERS="${arg#*=}" ;;
        --build-dir=*) BUILD_DIR="${arg#*=}" ;;
        --python=*) PY="${arg#*=}" ;;
        --sweep-python=*) SWEEP_PY="${arg#*=}" ;;
        --jobs=*) JOBS="${arg#*=}" ;;
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
[[ -z "$EVALUATOR" || "$EVALUATOR" == coarse || "$EVALUATOR" == exact ]] ||
    die "--evaluator: '$EVALUATOR' is not coarse or exact"
[[ -z "$TIMELINE" || "$TIMELINE" == collective || "$TIMELINE" == step ]] ||
    die "--timeline: '$TIMELINE' is not collective or step"
[[ -z "$WEAK_CLASSES" || "$WEAK_CLASSES" == true || "$WEAK_CLASSES" == false ]] ||
    die "--weakLinkClasses: '$WEAK_CLASSES' is not true or false"
[[ -z "$WEAK_CLASSES" || "$EVALUATOR" != exact ]] ||
    die "--weakLinkClasses: applies to --evaluator=coarse only"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed: '$SEED' is not a non-negative integer"
[[ "$WORK" == duration || "$WORK" == iterations ]] ||
    die "--workModel: '$WORK' (expected duration or iterations)"
[[ -n "$SCHEDULERS" && "$SCHEDULERS" != ,* && "$SCHEDULERS" != *, && "$SCHEDULERS" != *,,* ]] ||
    die "--schedulers: '$SCHEDULERS' has an empty item"
IFS=, read -ra SCHEDS <<<"$SCHEDULERS"
for s in "${SCHEDS[@]}"; do
    [[ "$s" =~ ^[A-Za-z0-9_-]+$ ]] || die "--schedulers: '$s' is not a scheduler name"
done
[[ -z "$JOBS" || "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "--jobs: '$JOBS' is not a positive integer"
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
has() { [[ ",$FIGURES," == *",$1,"* ]]; }

# Every run as one sweep: a block per topology (Fig. 23/24) and per placement (Fig. 25), one
# run per scheduler, each writing <dir>/<scheduler> as a call with all schedulers would.
[[ -n "$PY" ]] || PY="$BUILD_DIR/venv/bin/python"
[[ -n "$SWEEP_PY" ]] || SWEEP_PY="$BUILD_DIR/venv/bin/python"
[[ -x "$SWEEP_PY" ]] || SWEEP_PY=/usr/bin/python3
if [[ -z "$JOBS" ]]; then
    JOBS=$(nproc)
    if ((JOBS > 1)) && ! "$SWEEP_PY" -c 'import distributed' 2>/dev/null; then
        echo "run-paper-figures.sh: $SWEEP_PY has no Dask (bash scripts/setup.sh installs it):" \
            "the runs go one after another"
        JOBS=1
    fi
fi
quote_list() { # "a,b" -> "a", "b"
    local out="" x
    IFS=, read -ra xs <<<"$1"
    for x in "${xs[@]}"; do out="${out:+$out, }\"$x\""; done
    echo "$out"
}
block() { # block <name> <output dir> <schedulers> <option JSON pairs>
    local opts="\"days\": \"$DAYS\", \"seed\": \"$SEED\", \"workModel\": \"$WORK\", \"quiet\": true"
    [[ -n "$TORAGG" ]] && opts+=", \"torAggRate\": \"$TORAGG\""
    [[ -n "$EVALUATOR" ]] && opts+=", \"evaluator\": \"$EVALUATOR\""
    [[ -n "$TIMELINE" ]] && opts+=", \"timeline\": \"$TIMELINE\""
    [[ -n "$WEAK_CLASSES" ]] && opts+=", \"weakLinkClasses\": \"$WEAK_CLASSES\""
    echo "    {\"name\": \"$1\", \"program\": \"crux-trace-run\", \"output\": \"$2\","
    echo "     \"options\": {$4, $opts},"
    echo "     \"grid\": {\"schedulers\": [$(quote_list "$3")]}}"
}
blocks=()
if has 23 || has 24; then
    for t in "${TOPOS[@]}"; do
        extra="\"topology\": \"$t\", \"placement\": \"random\""
        [[ "$t" == lingjun ]] && extra+=", \"topoCsv\": \"$REPO/data/lingjun-2023/topo.csv\""
        blocks+=("$(block "fig23-$t" "fig23/$t" "$SCHEDULERS" "$extra")")
    done
fi
if has 25; then
    for p in random locality buddy; do
        blocks+=("$(block "fig25-$p" "fig25/$p" ecmp,crux \
            "\"topology\": \"clos\", \"placement\": \"$p\"")")
    done
fi
SWEEP_FILE="$OUT/paper-figures-sweep.json"
{
    echo '{"name": "paper-figures", "runs": ['
    for ((i = 0; i < ${#blocks[@]}; i++)); do
        ((i > 0)) && echo "    ,"
        echo "${blocks[$i]}"
    done
    echo ']}'
} >"$SWEEP_FILE"
echo "== ${#blocks[@]} run directories (${SWEEP_FILE}), $JOBS run(s) at a time"
t0=$SECONDS
if ! "$SWEEP_PY" "$REPO/scripts/sweep.py" "$SWEEP_FILE" --out="$OUT" --bin="$BUILD_DIR" \
    --workers="$JOBS"; then
    echo "run-paper-figures.sh: crux-trace-run failed (see above; logs in $OUT/logs)" >&2
    exit 1
fi
echo "   all runs done in $((SECONDS - t0)) s"

if has 23 || has 24; then
    dirs=()
    for t in "${TOPOS[@]}"; do dirs+=("$OUT/fig23/$t"); done
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
    for p in random locality buddy; do dirs+=("$OUT/fig25/$p"); done
    "$PY" "$PLOT/fig25_job_schedulers.py" "${dirs[@]}" --baseline ecmp \
        --baseline-placement random --output "$OUT/fig25.png" | tee "$OUT/fig25.txt"
fi
echo "== figures and tables in $OUT"
