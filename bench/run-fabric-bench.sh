#!/usr/bin/env bash
# Fabric speed benchmark (issue 2, issue 12): packet-hops per wall second of the crux fabric with
# DCQCN (its default congestion control), of the crux fabric without congestion control, and of
# plain ns-3 (PointToPoint + Ipv4GlobalRouting + UDP) on the Crux testbed topology, every NIC at
# line rate, all runs with the same parameters in this one invocation. Prints the three rates,
# the ratios crux/p2p with the goal >= 10x, and the cost of DCQCN (1 - its rate / the rate
# without congestion control) with the goal <= 15 %; a missed goal is reported, not an error.
#
# Usage: bench/run-fabric-bench.sh [--simTime=S] [--pattern=cross|bisection|rail] [--seed=N]
#                                  [--shift=K] [--p2pQdisc=default|none] [--repeat=R] [--no-build]
#                                  [--baseline=DIR]
#   --simTime   simulated seconds per run (default 0.002)
#   --repeat    run each fabric R times, interleaved, and keep each fabric's best hops/s
#               (default 1; the machine may be shared, best-of-R damps interference)
#   --no-build  use $CRUX_BUILD_DIR/fabric-bench as it is (no configure, no build)
#   --baseline  also run DIR/fabric-bench (an already built other version, e.g. main) with
#               DCQCN, interleaved with the others, and print this build's speed-up over it
#   other options are passed to fabric-bench (see bench/fabric-bench.cc)
# Environment: CRUX_BUILD_DIR = build directory (default <clone>/build); it is configured
# (if it has no CMakeCache.txt) and the fabric-bench target is built (incremental) first.
# Peak RSS is taken from /usr/bin/time -v when it exists, else from the program's getrusage().
# The ratio depends on the load pattern and on p2p's queue discipline (see fabric-bench.cc);
# on a shared machine compare the per-CPU-second ratio too, and use --repeat.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CRUX_BUILD_DIR:-$REPO/build}"
SIM_TIME=0.002
REPEAT=1
BUILD=1
BASELINE=""
PASS=()
for arg in "$@"; do
    case "$arg" in
        --simTime=*) SIM_TIME="${arg#*=}" ;;
        --repeat=*) REPEAT="${arg#*=}" ;;
        --no-build) BUILD=0 ;;
        --baseline=*) BASELINE="${arg#*=}" ;;
        --pattern=* | --seed=* | --shift=* | --p2pQdisc=*) PASS+=("$arg") ;;
        -h | --help)
            sed -n '2,/^set /{/^#/p}' "$0"
            exit 0
            ;;
        *)
            echo "run-fabric-bench.sh: unknown option '$arg' (see --help)" >&2
            exit 2
            ;;
    esac
done
if ! [[ "$REPEAT" =~ ^[1-9][0-9]*$ ]]; then
    echo "run-fabric-bench.sh: --repeat must be a positive integer, got '$REPEAT'" >&2
    exit 2
fi

# shellcheck source=bench/bench-lib.sh
source "$REPO/bench/bench-lib.sh"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------- build
if ((BUILD)); then
    crux_bench_configure "$BUILD_DIR" "$REPO" "$TMP"
    echo "== building fabric-bench in $BUILD_DIR"
    cmake --build "$BUILD_DIR" --target fabric-bench -- -j2 > "$TMP/build.log" 2>&1 || {
        tail -40 "$TMP/build.log" >&2
        exit 1
    }
fi
BIN="$BUILD_DIR/fabric-bench"
if [[ ! -x "$BIN" ]]; then
    echo "run-fabric-bench.sh: $BIN was not built" >&2
    exit 1
fi

if [[ -n "$BASELINE" && ! -x "$BASELINE/fabric-bench" ]]; then
    echo "run-fabric-bench.sh: --baseline: $BASELINE/fabric-bench does not exist" >&2
    exit 1
fi
FABRICS=(crux-dcqcn crux-none p2p)
if [[ -n "$BASELINE" ]]; then FABRICS+=(base-dcqcn); fi

# ---------------------------------------------------------------- runs
HAVE_TIME=0
if [[ -x /usr/bin/time ]]; then HAVE_TIME=1; fi

# field KEY LINE: value of KEY=... in a RESULT line
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<< "$2"; }

# run_one LABEL: run once (crux-dcqcn, crux-none, p2p or base-dcqcn), print the RESULT line
# (with peak RSS from /usr/bin/time if present)
run_one() {
    local label="$1" out rss args bin="$BIN"
    case "$label" in
        crux-dcqcn) args=(--fabric=crux --cc=dcqcn) ;;
        crux-none) args=(--fabric=crux --cc=none) ;;
        p2p) args=(--fabric=p2p) ;;
        base-dcqcn)
            args=(--fabric=crux --cc=dcqcn)
            bin="$BASELINE/fabric-bench"
            ;;
    esac
    if ((HAVE_TIME)); then
        /usr/bin/time -v -o "$TMP/time" "$bin" "${args[@]}" --simTime="$SIM_TIME" \
            "${PASS[@]+"${PASS[@]}"}" > "$TMP/out"
        rss="$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time")"
    else
        "$bin" "${args[@]}" --simTime="$SIM_TIME" "${PASS[@]+"${PASS[@]}"}" > "$TMP/out"
        rss=""
    fi
    out="$(grep '^RESULT ' "$TMP/out")"
    if [[ -z "$rss" ]]; then rss="$(field peak_rss_kb "$out")"; fi
    echo "$out peak_rss_process_kb=$rss"
}

declare -A BEST
echo "== simTime=$SIM_TIME s, ${PASS[*]:-defaults}, repeat=$REPEAT"
for ((i = 1; i <= REPEAT; i++)); do
    for fabric in "${FABRICS[@]}"; do
        line="$(run_one "$fabric")"
        echo "$line"
        rate="$(field hops_per_s "$line")"
        if [[ -z "${BEST[$fabric]:-}" ]] ||
            awk -v a="$rate" -v b="$(field hops_per_s "${BEST[$fabric]}")" 'BEGIN{exit !(a > b)}'; then
            BEST[$fabric]="$line"
        fi
    done
done

# ---------------------------------------------------------------- summary
echo
printf '%-10s %8s %12s %9s %12s %9s %14s %11s %16s %9s %10s\n' fabric sim_s packet-hops wall_s \
    hops/s cpu_s hops/cpu_s events/hop delivered_bytes pause peak_RSS_MB
for fabric in "${FABRICS[@]}"; do
    l="${BEST[$fabric]}"
    # events per packet-hop (older builds print events only)
    eph="$(field events_per_hop "$l")"
    if [[ -z "$eph" ]]; then
        eph="$(awk -v e="$(field events "$l")" -v h="$(field hops "$l")" \
            'BEGIN{ if (h > 0) printf "%.3f", e / h; else print "-" }')"
    fi
    printf '%-10s %8s %12s %9s %12s %9s %14s %11.3f %16s %9s %10.1f\n' "$fabric" \
        "$(field sim_s "$l")" "$(field hops "$l")" "$(field wall_s "$l")" \
        "$(field hops_per_s "$l")" "$(field cpu_s "$l")" "$(field hops_per_cpu_s "$l")" "$eph" \
        "$(field delivered_bytes "$l")" "$(field pause_frames "$l")" \
        "$(awk -v k="$(field peak_rss_process_kb "$l")" 'BEGIN{print k / 1024}')"
done
# ratio KEY A B: A / B of field KEY in the best lines of A and B
ratio() {
    awk -v a="$(field "$1" "${BEST[$2]}")" -v b="$(field "$1" "${BEST[$3]}")" \
        'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }'
}
echo
for fabric in "${FABRICS[@]}"; do
    echo "$fabric: $(sed -n 's/.*transport="\([^"]*\)".*/\1/p' <<< "${BEST[$fabric]}")"
done
echo "ratio crux (DCQCN)/p2p, packet-hops per wall second: $(ratio hops_per_s crux-dcqcn p2p)x" \
    "(per CPU second: $(ratio hops_per_cpu_s crux-dcqcn p2p)x; data frames only, crux ACKs" \
    "excluded: $(ratio data_hops_per_s crux-dcqcn p2p)x)"
echo "ratio crux (no congestion control)/p2p: $(ratio hops_per_s crux-none p2p)x" \
    "(per CPU second: $(ratio hops_per_cpu_s crux-none p2p)x)"
if awk -v r="$(ratio hops_per_s crux-dcqcn p2p)" 'BEGIN{exit !(r >= 10)}'; then
    echo "goal (crux with DCQCN >= 10x plain ns-3): MET"
else
    echo "goal (crux with DCQCN >= 10x plain ns-3): NOT MET"
fi
cost="$(awk -v a="$(field hops_per_s "${BEST[crux-dcqcn]}")" \
    -v b="$(field hops_per_s "${BEST[crux-none]}")" 'BEGIN{ printf "%.1f", 100 * (1 - a / b) }')"
cpu_cost="$(awk -v a="$(field hops_per_cpu_s "${BEST[crux-dcqcn]}")" \
    -v b="$(field hops_per_cpu_s "${BEST[crux-none]}")" 'BEGIN{ printf "%.1f", 100 * (1 - a / b) }')"
echo "cost of DCQCN, packet-hops per wall second: ${cost} % (per CPU second: ${cpu_cost} %)"
if awk -v c="$cost" 'BEGIN{exit !(c <= 15)}'; then
    echo "goal (congestion control costs <= 15 % of the packet-hop rate): MET"
else
    echo "goal (congestion control costs <= 15 % of the packet-hop rate): NOT MET"
fi
if [[ -n "$BASELINE" ]]; then
    echo "speed-up of this build over $BASELINE (crux with DCQCN), packet-hops per wall second:" \
        "$(ratio hops_per_s crux-dcqcn base-dcqcn)x (per CPU second:" \
        "$(ratio hops_per_cpu_s crux-dcqcn base-dcqcn)x); baseline/p2p per CPU second:" \
        "$(ratio hops_per_cpu_s base-dcqcn p2p)x"
fi
