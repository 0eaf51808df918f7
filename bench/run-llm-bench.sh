#!/usr/bin/env bash
# LLM-scale benchmark of the flow fabric (issue 11, "Speed"): one iteration of a GPT-3 175B job
# on 1,024 GPUs (bench/gpt3-175b-1024.json: 128 hosts x 8 A100, TP 8 x PP 8 x DP 16, the zoo's
# micro-batches, 12-layer blocks for the TP all-reduces, two-layer Clos of 16 ToRs and 8
# aggregation switches with 4 x 200 Gbit/s NICs per host), run alone on the flow fabric, and
# in the same invocation the same job shape on 128 GPUs (TP 8 x PP 8 x DP 2, 16 hosts) as the
# baseline: wall and CPU seconds, ns-3 events (timing.csv), peak RSS and the simulated iteration
# (jobs.csv jct_s) of each, and the 1,024 / 128 ratios.
#
# With --xl (issue 28, "Speed"), after the 1,024-GPU run the same invocation runs one iteration
# of GPT-3 175B on 10,752 H100 as MLPerf's run on NVIDIA Eos (bench/gpt3-175b-10752.json: 1,344
# hosts x 8 GPUs, 8 x 400 Gbit/s NICs, TP 4 x PP 8 x DP 336, global batch 2,688, micro-batch 1,
# FP8, distributed optimizer), with $CRUX_XL_ARGS added to its command line (e.g.
# "--ns3::FlowTransport::UpdateQuantum=1us"), and prints the 10,752 / 1,024 ratios.
#
# With --ring-flow (issue 28, "Scale"), the 1,024-GPU job also runs with every all-reduce,
# reduce-scatter and all-gather on NCCL's channel rings in step form (collectives.allReduce
# "ring") and in flow form ("ring-flow"), and the script prints the flow form's iteration error
# against the step form and its cpu, events and memory ratios.
#
# Usage: bench/run-llm-bench.sh [--no-build] [--skip-large] [--ring-flow] [--xl]
#   --no-build    use $CRUX_BUILD_DIR/crux-experiment as it is
#   --skip-large  only the 128-GPU baseline (a quick check of the script)
#   --ring-flow   also the 1,024-GPU job with "ring" and with "ring-flow"
#   --xl          also the 10,752-GPU iteration (peak memory capped at 8 GB by ulimit -v)
# Environment: CRUX_BUILD_DIR = build directory (default <clone>/build).
# The 1,024-GPU run takes about 45 CPU-seconds and 0.8 GB; progress lines every 30 s.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CRUX_BUILD_DIR:-$REPO/build}"
BUILD=1
LARGE=1
XL=0
RINGFLOW=0
for arg in "$@"; do
    case "$arg" in
        --no-build) BUILD=0 ;;
        --skip-large) LARGE=0 ;;
        --xl) XL=1 ;;
        --ring-flow) RINGFLOW=1 ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-llm-bench.sh: unknown option '$arg' (see --help)" >&2
            exit 1
            ;;
    esac
done
# shellcheck source=bench/bench-lib.sh
source "$REPO/bench/bench-lib.sh"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
if [[ $BUILD == 1 ]]; then
    crux_bench_configure "$BUILD_DIR" "$REPO" "$TMP"
    cmake --build "$BUILD_DIR" --target crux-experiment > "$TMP/build.log" 2>&1 || {
        cat "$TMP/build.log" >&2
        exit 1
    }
fi
BIN="$BUILD_DIR/crux-experiment"
[[ -x "$BIN" ]] || { echo "run-llm-bench.sh: no $BIN (build it or drop --no-build)" >&2; exit 1; }

# The 128-GPU baseline: the same scenario cut to 16 hosts (4 ToRs of 16 ports) and DP 2.
python3 - "$REPO/bench/gpt3-175b-1024.json" "$TMP/gpt3-175b-128.json" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = "gpt3-175b-128"
s["topology"]["tors"] = 4
s["topology"]["hostsPerTor"] = 16
s["topology"]["aggs"] = 8
s["jobs"][0]["hosts"] = list(range(16))
s["jobs"][0]["parallelism"]["dp"] = 2
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY

# run <label> <scenario> [args...]: one alone iteration on the flow fabric; prints one result line
run() {
    local label=$1 scenario=$2 out="$TMP/$1"
    shift 2
    /usr/bin/time -f "%U %S %M %e" -o "$TMP/$label.time" \
        "$BIN" --scenario="$scenario" --fabric=flow --modes=alone --outputDir="$out" \
        --progress=30 "$@" > "$TMP/$label.log" 2> "$TMP/$label.err" || {
        cat "$TMP/$label.err" >&2
        echo "run-llm-bench.sh: the $label run failed" >&2
        exit 1
    }
    grep -v '^crux-experiment: ' "$TMP/$label.err" >&2 || true
    python3 - "$label" "$out" "$TMP/$label.time" << 'PY'
import csv, sys
label, out, tfile = sys.argv[1:]
t = list(csv.DictReader(open(out + "/timing.csv")))[0]
j = list(csv.DictReader(open(out + "/jobs.csv")))[0]
user, sys_s, rss, elapsed = open(tfile).read().split()
print(f"{label:14s} gpus {j['gpus']:>5s}  iteration {float(j['jct_s']):8.3f} s  "
      f"sim wall {float(t['wall_s']):7.1f} s  invocation wall {float(elapsed):7.1f} s  "
      f"cpu {float(user) + float(sys_s):7.1f} s  "
      f"events {int(t['events']):>11,d}  peak RSS {int(rss) / 1024:7.0f} MB")
with open(out + "/../" + label + ".row", "w") as f:
    f.write(f"{float(user) + float(sys_s)} {t['events']} {elapsed}\n")
PY
}

echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
run gpt3-175b-128 "$TMP/gpt3-175b-128.json"
if [[ $LARGE == 1 ]]; then
    run gpt3-175b-1024 "$REPO/bench/gpt3-175b-1024.json"
    read -r c1 e1 w1 < "$TMP/gpt3-175b-128.row"
    read -r c8 e8 w8 < "$TMP/gpt3-175b-1024.row"
    awk -v c1="$c1" -v c8="$c8" -v e1="$e1" -v e8="$e8" 'BEGIN {
        printf "1,024 / 128 GPUs: cpu %.2fx, events %.2fx (GPUs 8x)\n", c8 / c1, e8 / e1 }'
    if [[ $RINGFLOW == 1 ]]; then
        for alg in ring ring-flow; do
            python3 - "$REPO/bench/gpt3-175b-1024.json" "$TMP/gpt3-175b-1024-$alg.json" "$alg" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = "gpt3-175b-1024-" + sys.argv[3]
s["jobs"][0]["collectives"] = {"allReduce": sys.argv[3]}
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
            run "1024-$alg" "$TMP/gpt3-175b-1024-$alg.json"
        done
        python3 - "$TMP" << 'PY'
import csv, sys
tmp = sys.argv[1]
def row(label):
    j = list(csv.DictReader(open(f"{tmp}/{label}/jobs.csv")))[0]
    cpu, events, wall = open(f"{tmp}/{label}.row").read().split()
    rss = int(open(f"{tmp}/{label}.time").read().split()[2])  # user sys rss elapsed
    return float(j["jct_s"]), float(cpu), int(events), rss
ts, cs, es, ms = row("1024-ring")
tf, cf, ef, mf = row("1024-ring-flow")
print(f"ring-flow / ring at 1,024 GPUs: iteration {tf:.4f} s vs {ts:.4f} s "
      f"({(tf / ts - 1) * 100:+.2f} %), cpu {cf / cs:.2f}x, events {ef / es:.3f}x, "
      f"peak RSS {mf / ms:.2f}x")
PY
    fi
    if [[ $XL == 1 ]]; then
        # shellcheck disable=SC2086 # CRUX_XL_ARGS is a list of options
        (ulimit -v 8388608 && run gpt3-175b-10752 "$REPO/bench/gpt3-175b-10752.json" \
            ${CRUX_XL_ARGS:-})
        read -r cx ex wx < "$TMP/gpt3-175b-10752.row"
        awk -v c8="$c8" -v cx="$cx" -v e8="$e8" -v ex="$ex" -v wx="$wx" 'BEGIN {
            printf "10,752 / 1,024 GPUs: cpu %.2fx, events %.2fx (GPUs 10.5x); 10,752-GPU invocation wall %.0f s (limit 300 s)\n", cx / c8, ex / e8, wx }'
    fi
fi
