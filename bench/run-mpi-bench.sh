#!/usr/bin/env bash
# Distributed packet simulation benchmark (issue 30 item 4): one packet-level simulation run
# without MPI (ns-3's default simulator, one process: the fastest one-core run), under
# `mpirun -np 1` and under `mpirun -np 2` (ns-3's DistributedSimulatorImpl, granted time
# window), in this one invocation, with the crux-experiment of the in-tree ns-3.37 build that
# scripts/intree.sh makes (MPI on). Prints per run the simulation's wall seconds (timing.csv:
# the run itself, without start-up and output) and the process's wall seconds, the speed-ups of
# 2 ranks over the run without MPI (the goal: >= 1.6) and over 1 rank, and checks that every
# result file but timing.csv is byte-identical between the three runs (link-level throughput
# samples are not written here). A missed goal is reported, not an error; differing files are
# an error (exit 1).
#
# With --sizes it first runs the same comparison on generated two-layer Closes of growing size
# (8, 16 and 32 ToRs x 4 hosts, and 16 ToRs x 8 hosts; 100 Gbit/s, 1 us links; data-parallel
# rings of 8 or 16 hosts on two ToRs each, 2 iterations) and prints events per simulated
# microsecond (= per synchronization window of the 1 us lookahead) against the speed-up: the
# conditions under which two ranks pay.
#
# Usage: bench/run-mpi-bench.sh [--scenario=FILE] [--modes=M] [--stopTime=S] [--sizes]
#   --scenario  default scenarios/mpi-clos-1024.json (16 ToRs x 8 hosts x 8 GPUs, 4 aggregation
#               switches, eight 128-GPU data-parallel jobs, 12 iterations)
#   --modes     the runs of crux-experiment (default ecmp: one simulation)
#   --stopTime  override the scenario's stopTime (seconds), e.g. a short check
#   --sizes     also the size table above
# Environment: CRUX_NS3_CACHE as for scripts/intree.sh (the tree is $CRUX_NS3_CACHE/ns-3.37,
# default $HOME/.cache/crux-ns3); CRUX_MPIRUN the launcher (default mpirun). Run
# `bash scripts/intree.sh` first. Needs two otherwise idle cores: a rank that waits for a core
# makes the other wait at every window (doc/performance.rst).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCENARIO="$REPO/scenarios/mpi-clos-1024.json"
MODES=ecmp
STOP=()
SIZES=0
for arg in "$@"; do
    case "$arg" in
        --scenario=*) SCENARIO="$(cd "$(dirname "${arg#*=}")" && pwd)/$(basename "${arg#*=}")" ;;
        --modes=*) MODES="${arg#*=}" ;;
        --stopTime=*) STOP=("--stopTime=${arg#*=}") ;;
        --sizes) SIZES=1 ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-mpi-bench.sh: unknown option '$arg' (see --help)" >&2
            exit 1
            ;;
    esac
done
[[ -f "$SCENARIO" ]] || {
    echo "run-mpi-bench.sh: --scenario: no file '$SCENARIO'" >&2
    exit 1
}
cache=${CRUX_NS3_CACHE:-$HOME/.cache/crux-ns3}
experiment=""
for f in "$cache"/ns-3.37/build/contrib/crux/examples/ns3.37-crux-experiment*; do
    [[ -x "$f" ]] && experiment=$f && break
done
[[ -n "$experiment" ]] || {
    echo "run-mpi-bench.sh: no in-tree crux-experiment under $cache/ns-3.37 (run bash scripts/intree.sh first)" >&2
    exit 1
}
command -v mpirun > /dev/null || {
    echo "run-mpi-bench.sh: mpirun not found (scripts/setup.sh installs OpenMPI)" >&2
    exit 1
}
# shellcheck disable=SC2206 # CRUX_MPIRUN may carry options (word-split on purpose)
mpirun_cmd=(${CRUX_MPIRUN:-mpirun} --oversubscribe)
if [[ "$(id -u)" -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/crux-mpi-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
echo "== in-tree build: $experiment"
echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# sim_seconds <dir>: wall seconds of the simulations (sum over timing.csv's rows)
sim_seconds() { awk -F, 'NR > 1 { s += $2 } END { printf "%.2f", s }' "$1/timing.csv"; }
# events_per_us <dir>: events per simulated microsecond (sums over timing.csv's rows)
events_per_us() { awk -F, 'NR > 1 { t += $3; e += $4 } END { printf "%.0f", e / (t * 1e6) }' "$1/timing.csv"; }

# compare <scenario> <tag> [options...]: the three runs; prints one result line; sets RATIO
compare() {
    local scenario=$1 tag=$2
    shift 2
    local out=$TMP/$tag t0 plain_wall np1_wall np2_wall
    mkdir -p "$out"
    t0=$EPOCHREALTIME
    "$experiment" --scenario="$scenario" --outputDir="$out/run" --quiet --progress=0 --jobs=1 \
        "$@" > "$out/plain.log" 2>&1 || {
        cat "$out/plain.log" >&2
        echo "run-mpi-bench.sh: $tag: the run without MPI failed" >&2
        exit 1
    }
    plain_wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    mv "$out/run" "$out/plain"
    for np in 1 2; do
        t0=$EPOCHREALTIME
        "${mpirun_cmd[@]}" -np $np "$experiment" --mpi --scenario="$scenario" \
            --outputDir="$out/run" --quiet --progress=0 "$@" > "$out/np$np.log" 2>&1 || {
            cat "$out/np$np.log" >&2
            echo "run-mpi-bench.sh: $tag: mpirun -np $np failed" >&2
            exit 1
        }
        printf -v "np${np}_wall" '%s' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
        mv "$out/run" "$out/np$np"
    done
    local differ=() f
    for f in $(cd "$out/plain" && ls); do
        [[ "$f" == timing.csv || "$f" == summary.json ]] && continue
        cmp -s "$out/plain/$f" "$out/np1/$f" || differ+=("$f (1 rank)")
        cmp -s "$out/plain/$f" "$out/np2/$f" || differ+=("$f (2 ranks)")
    done
    # summary.json records the output directory: compare it without that line
    for np in 1 2; do
        cmp -s <(grep -v '"outputDir"' "$out/plain/summary.json") \
            <(grep -v '"outputDir"' "$out/np$np/summary.json") || differ+=("summary.json ($np rank(s))")
    done
    if [[ ${#differ[@]} -gt 0 ]]; then
        echo "run-mpi-bench.sh: $tag: result files differ from the run without MPI: ${differ[*]}" >&2
        exit 1
    fi
    local sp sn s1 s2
    sp=$(sim_seconds "$out/plain")
    s1=$(sim_seconds "$out/np1")
    s2=$(sim_seconds "$out/np2")
    RATIO=$(awk -v a="$sp" -v b="$s2" 'BEGIN { printf "%.2f", a / b }')
    sn=$(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.2f", a / b }')
    printf '%-26s %9s %9s %9s %8s %8s %8s  %s\n' "$tag" "$sp" "$s1" "$s2" "$RATIO" "$sn" \
        "$(events_per_us "$out/plain")" "identical; process wall $plain_wall / $np1_wall / $np2_wall s"
}
header() {
    printf '%-26s %9s %9s %9s %8s %8s %8s\n' "run" "plain s" "1 rank s" "2 ranks s" \
        "2r/plain" "2r/1r" "ev/us"
}

if [[ $SIZES -eq 1 ]]; then
    echo "== size table (generated Closes, --modes=ecmp, simulation wall seconds; speed-up of 2 ranks)"
    header
    # tors hostsPerTor aggs hostsPerJob
    for size in "8 4 2 8" "16 4 4 8" "32 4 8 8" "16 8 4 16"; do
        read -r tors hpt aggs per <<< "$size"
        python3 - "$tors" "$hpt" "$aggs" "$per" "$TMP/clos-$tors-$hpt.json" << 'EOF'
import json, sys
tors, hpt, aggs, per = (int(x) for x in sys.argv[1:5])
jobs = [{"name": "dp%d" % j, "model": "gpt", "hosts": list(range(j * per, (j + 1) * per)),
         "gpusPerHost": 8, "gradientBytes": 32000000, "computeTime": 0.002, "iterations": 2}
        for j in range(tors * hpt // per)]
json.dump({"name": "clos-%d-%d" % (tors, hpt),
           "topology": {"type": "clos", "tors": tors, "aggs": aggs, "hostsPerTor": hpt,
                        "gpusPerHost": 8, "nicsPerHost": 1, "hostLinkRate": "100Gbps",
                        "fabricLinkRate": "100Gbps", "linkDelay": "1us", "pfc": True},
           "jobs": jobs, "scheduler": "crux", "priorityLevels": 8, "seed": 1,
           "outputDir": "out"}, open(sys.argv[5], "w"))
EOF
        compare "$TMP/clos-$tors-$hpt.json" "clos ${tors} ToRs x ${hpt} hosts" --modes=ecmp
    done
fi

echo "== $(basename "$SCENARIO") (--modes=$MODES ${STOP[*]}; simulation wall seconds)"
header
compare "$SCENARIO" "$(basename "$SCENARIO" .json)" --modes="$MODES" "${STOP[@]}"
if awk -v r="$RATIO" 'BEGIN { exit !(r >= 1.6) }'; then
    echo "goal (2 ranks >= 1.6x faster than the run without MPI): met ($RATIO)"
else
    echo "goal (2 ranks >= 1.6x faster than the run without MPI): NOT met ($RATIO)"
fi
