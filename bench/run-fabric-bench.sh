#!/usr/bin/env bash
# Fabric speed benchmark (issue 2): packet-hops per wall second of the crux fabric next to plain
# ns-3 (PointToPoint + Ipv4GlobalRouting + UDP) on the Crux testbed topology, every NIC at line
# rate, both runs with the same parameters in this one invocation. Prints both rates, their
# ratio crux/p2p and whether the goal (>= 10x) is met; a missed goal is reported, not an error.
#
# Usage: bench/run-fabric-bench.sh [--simTime=S] [--pattern=cross|bisection|rail] [--seed=N]
#                                  [--shift=K] [--p2pQdisc=default|none] [--repeat=R] [--no-build]
#   --simTime   simulated seconds per run (default 0.002)
#   --repeat    run each fabric R times, interleaved, and keep each fabric's best hops/s
#               (default 1; the machine may be shared, best-of-R damps interference)
#   --no-build  use $CRUX_BUILD_DIR/fabric-bench as it is (no configure, no build)
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
PASS=()
for arg in "$@"; do
    case "$arg" in
        --simTime=*) SIM_TIME="${arg#*=}" ;;
        --repeat=*) REPEAT="${arg#*=}" ;;
        --no-build) BUILD=0 ;;
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

# ---------------------------------------------------------------- runs
HAVE_TIME=0
if [[ -x /usr/bin/time ]]; then HAVE_TIME=1; fi

# field KEY LINE: value of KEY=... in a RESULT line
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<< "$2"; }

# run_one FABRIC: run once, print the RESULT line (with peak RSS from /usr/bin/time if present)
run_one() {
    local fabric="$1" out rss
    if ((HAVE_TIME)); then
        /usr/bin/time -v -o "$TMP/time" "$BIN" --fabric="$fabric" --simTime="$SIM_TIME" \
            "${PASS[@]+"${PASS[@]}"}" > "$TMP/out"
        rss="$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time")"
    else
        "$BIN" --fabric="$fabric" --simTime="$SIM_TIME" "${PASS[@]+"${PASS[@]}"}" > "$TMP/out"
        rss=""
    fi
    out="$(grep '^RESULT ' "$TMP/out")"
    if [[ -z "$rss" ]]; then rss="$(field peak_rss_kb "$out")"; fi
    echo "$out peak_rss_process_kb=$rss"
}

declare -A BEST
echo "== simTime=$SIM_TIME s, ${PASS[*]:-defaults}, repeat=$REPEAT"
for ((i = 1; i <= REPEAT; i++)); do
    for fabric in crux p2p; do
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
printf '%-5s %8s %12s %9s %12s %9s %14s %16s %10s\n' fabric sim_s packet-hops wall_s hops/s \
    cpu_s hops/cpu_s delivered_bytes peak_RSS_MB
for fabric in crux p2p; do
    l="${BEST[$fabric]}"
    printf '%-5s %8s %12s %9s %12s %9s %14s %16s %10.1f\n' "$fabric" "$(field sim_s "$l")" \
        "$(field hops "$l")" "$(field wall_s "$l")" "$(field hops_per_s "$l")" \
        "$(field cpu_s "$l")" "$(field hops_per_cpu_s "$l")" "$(field delivered_bytes "$l")" \
        "$(awk -v k="$(field peak_rss_process_kb "$l")" 'BEGIN{print k / 1024}')"
done
ratio="$(awk -v a="$(field hops_per_s "${BEST[crux]}")" -v b="$(field hops_per_s "${BEST[p2p]}")" \
    'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }')"
cpu_ratio="$(awk -v a="$(field hops_per_cpu_s "${BEST[crux]}")" \
    -v b="$(field hops_per_cpu_s "${BEST[p2p]}")" \
    'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }')"
data_ratio="$(awk -v a="$(field data_hops_per_s "${BEST[crux]}")" \
    -v b="$(field data_hops_per_s "${BEST[p2p]}")" \
    'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "inf" }')"
echo
echo "crux: $(sed -n 's/.*transport="\([^"]*\)".*/\1/p' <<< "${BEST[crux]}")"
echo "p2p:  $(sed -n 's/.*transport="\([^"]*\)".*/\1/p' <<< "${BEST[p2p]}")"
echo "ratio crux/p2p, packet-hops per wall second: ${ratio}x" \
    "(per CPU second: ${cpu_ratio}x; data frames only, crux ACKs excluded: ${data_ratio}x)"
if awk -v r="$ratio" 'BEGIN{exit !(r >= 10)}'; then
    echo "goal (>= 10x plain ns-3): MET"
else
    echo "goal (>= 10x plain ns-3): NOT MET"
fi
