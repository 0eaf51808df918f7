#!/usr/bin/env bash
# The plot scripts (scripts/plot/fig23_utilization.py, fig24_intensity_heatmap.py,
# fig25_job_schedulers.py) on real crux-trace-run output: a short trace window (6 h) on the
# two-layer Clos with locality/random/buddy placement and on the double-sided topology, each with
# schedulers ecmp and crux. Asserts that every figure file exists and is non-empty, and that the
# values each script prints are the ones in the run's files, recomputed here independently
# (standard library only): mean GPU utilization per run = summary.json exactly, gains = their
# ratio, the time-weighted mean of utilization.csv over the window = summary.json (1e-6
# relative), per-link total bytes and byte-weighted intensity = link-intensity.csv, links ranked
# by bytes; and that bad input gives one error line naming the file/column and exit status 1.
# Exit 77 (ctest SKIP_RETURN_CODE) if the python cannot import matplotlib.
# Usage: check-plots.sh <python with matplotlib> <crux-trace-run binary> <module root>
set -u
py=$1
bin=$2
root=$3
plots="$root/scripts/plot"

# shellcheck source=test/plot-check-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/plot-check-lib.sh"
if [ ! -x "$bin" ]; then
    echo "FAIL: runner binary $bin not found"
    exit 1
fi

# ---------------------------------------------------------------- real runs
run() { # run <name> <args...>
    local name=$1
    shift
    if ! "$bin" --windowEnd=6h --schedulers=ecmp,crux --quiet=1 --outputDir="$work/$name" "$@" \
        >"$work/$name.log" 2>&1; then
        fail "crux-trace-run $*:"
        cat "$work/$name.log"
        exit 1
    fi
}
run clos-locality --topology=clos --placement=locality
run clos-random --topology=clos --placement=random
run clos-buddy --topology=clos --placement=buddy
run ds-locality --topology=double-sided --placement=locality
for d in clos-locality clos-random clos-buddy ds-locality; do
    for s in ecmp crux; do
        [ -s "$work/$d/$s/summary.json" ] || { fail "run $d: no $s/summary.json"; exit 1; }
    done
done
echo "ok   runs: 4 runs x (ecmp, crux) with summary.json"

# plot <name> <script> <args...>: run a plot script, keep stdout in $work/<name>.out
plot() {
    local name=$1 script=$2
    shift 2
    if ! "$py" "$plots/$script" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
        fail "$name: $script exited non-zero:"
        cat "$work/$name.err"
        return 1
    fi
    return 0
}
nonempty() { # nonempty <file>
    if [ -s "$1" ]; then
        echo "ok   $(basename "$1"): $(stat -c %s "$1") bytes"
    else
        fail "$1 missing or empty"
    fi
}

# check <name> <python check reading $work/<name>.out; argv[1] = out file, argv[2] = work dir>
check() {
    local name=$1
    if "$py" - "$work/$name.out" "$work" <<PY; then
import csv, json, math, os, sys
out = open(sys.argv[1]).read().splitlines()
work = sys.argv[2]

def table(first):
    """Rows (dicts) of the printed table whose header starts with 'first' (all such tables)."""
    rows, header = [], None
    for line in out:
        cells = line.split()
        if cells and cells[0] == first:
            header = cells
        elif header and len(cells) == len(header):
            rows.append(dict(zip(header, cells)))
        else:
            header = None
    return rows

def summary(path):
    return json.load(open(path))

def step_mean(rows, lo, hi):
    area = 0.0
    for k, r in enumerate(rows):
        a = max(lo, r[0])
        b = min(hi, rows[k + 1][0] if k + 1 < len(rows) else hi)
        if b > a:
            area += r[1] * (b - a)
    return area / (hi - lo)

errors = []
$(cat)
if errors:
    for e in errors:
        print("  " + e)
    sys.exit(1)
PY
        echo "ok   $name: printed values match the run files"
    else
        fail "$name: printed values do not match the run files (above)"
    fi
}

# ---------------------------------------------------------------- Fig. 23
if plot fig23 fig23_utilization.py "$work/clos-locality" "$work/ds-locality" \
    --output "$work/fig23.png" --baseline ecmp; then
    nonempty "$work/fig23.png"
    check fig23 <<'EOF'
rows = table("topology")
seen = set()
for r in rows:
    s = summary(r["summary"])
    seen.add((s["topology"], s["scheduler"]))
    if float(r["mean_gpu_utilization"]) != s["mean_gpu_utilization"]:
        errors.append(f"{r['summary']}: printed {r['mean_gpu_utilization']} != "
                      f"{s['mean_gpu_utilization']}")
    if (r["topology"], r["placement"], r["scheduler"]) != (s["topology"], s["placement"],
                                                          s["scheduler"]):
        errors.append(f"{r['summary']}: printed labels {r} differ from the summary")
    base = summary(os.path.join(os.path.dirname(os.path.dirname(r["summary"])), "ecmp",
                                "summary.json"))["mean_gpu_utilization"]
    want = round((s["mean_gpu_utilization"] / base - 1) * 100, 3)
    if abs(float(r["gain_vs_ecmp_pct"]) - want) > 1e-9:
        errors.append(f"{r['summary']}: gain {r['gain_vs_ecmp_pct']} != {want}")
want = {(t, s) for t in ("clos", "double-sided") for s in ("ecmp", "crux")}
if seen != want:
    errors.append(f"rows for {sorted(seen)}, expected {sorted(want)}")
print(f"  fig23: {len(rows)} rows, e.g. {rows[0]['topology']}/{rows[0]['scheduler']} = "
      f"{rows[0]['mean_gpu_utilization']}")
EOF
fi

# ---------------------------------------------------------------- Fig. 24
if plot fig24 fig24_intensity_heatmap.py "$work/clos-locality/crux" --top 25 \
    --output "$work/fig24.png" --values-csv "$work/fig24-values.csv"; then
    nonempty "$work/fig24.png"
    check fig24 <<'EOF'
path = os.path.join(work, "clos-locality", "crux", "link-intensity.csv")
tot, wsum, nbins = {}, {}, {}
for row in csv.DictReader(open(path)):
    l, n, i = row["link"], float(row["bytes"]), float(row["mean_intensity_flops_per_s"])
    tot[l] = tot.get(l, 0.0) + n
    wsum[l] = wsum.get(l, 0.0) + n * i
    nbins[l] = nbins.get(l, 0) + 1
rows = table("rank")
ranked = sorted(tot, key=lambda l: (-tot[l], l))[:25]
if [r["link"] for r in rows] != ranked:
    errors.append(f"printed links {[r['link'] for r in rows][:5]}... != top 25 by bytes "
                  f"{ranked[:5]}...")
for r in rows:
    l = r["link"]
    if abs(float(r["total_bytes"]) - tot[l]) > 1e-9 * tot[l]:
        errors.append(f"{l}: total_bytes {r['total_bytes']} != {tot[l]}")
    if abs(float(r["mean_intensity_flops_per_s"]) - wsum[l] / tot[l]) > 1e-9 * wsum[l] / tot[l]:
        errors.append(f"{l}: intensity {r['mean_intensity_flops_per_s']} != {wsum[l] / tot[l]}")
    if int(r["bins_with_traffic"]) != nbins[l]:
        errors.append(f"{l}: bins {r['bins_with_traffic']} != {nbins[l]}")
cells = list(csv.DictReader(open(os.path.join(work, "fig24-values.csv"))))
if len(cells) != sum(nbins[l] for l in ranked):
    errors.append(f"fig24-values.csv: {len(cells)} cells, expected "
                  f"{sum(nbins[l] for l in ranked)}")
if len(rows) != 25:
    errors.append(f"{len(rows)} links printed, expected 25")
print(f"  fig24: top link {rows[0]['link']} {rows[0]['total_bytes']} bytes, "
      f"{len(cells)} cells")
EOF
fi
# Two panels side by side (shared rows).
if plot fig24-two fig24_intensity_heatmap.py "$work/clos-locality" --top 10 \
    --link-regex '^t[0-9]+->a' --output "$work/fig24-two.pdf"; then
    nonempty "$work/fig24-two.pdf"
fi

# ---------------------------------------------------------------- Fig. 25
if plot fig25 fig25_job_schedulers.py "$work/clos-random" "$work/clos-locality" \
    "$work/clos-buddy" --placement-labels "random=no job scheduler,buddy=HiveD-like" \
    --output "$work/fig25.png"; then
    nonempty "$work/fig25.png"
    check fig25 <<'EOF'
rows = table("topology")
seen = set()
for r in rows:
    s = summary(r["summary"])
    seen.add((s["placement"], s["scheduler"]))
    if float(r["mean_gpu_utilization"]) != s["mean_gpu_utilization"]:
        errors.append(f"{r['summary']}: printed {r['mean_gpu_utilization']} != "
                      f"{s['mean_gpu_utilization']}")
    if r["placement"] != s["placement"] or r["scheduler"] != s["scheduler"]:
        errors.append(f"{r['summary']}: printed labels differ from the summary")
    base = summary(os.path.join(work, "clos-random", s["scheduler"], "summary.json"))
    want = round((s["mean_gpu_utilization"] / base["mean_gpu_utilization"] - 1) * 100, 3)
    if abs(float(r["gain_vs_random_pct"]) - want) > 1e-9:
        errors.append(f"{r['summary']}: gain_vs_random {r['gain_vs_random_pct']} != {want}")
    # The runner's time-weighted mean vs utilization.csv (written with 9 digits).
    util = [(float(u["time_s"]), float(u["gpu_utilization"])) for u in
            csv.DictReader(open(os.path.join(os.path.dirname(r["summary"]),
                                             "utilization.csv")))]
    m = step_mean(util, s["window"]["start_s"], s["window"]["end_s"])
    if abs(m - s["mean_gpu_utilization"]) > 1e-6 * s["mean_gpu_utilization"]:
        errors.append(f"{r['summary']}: utilization.csv mean {m} != summary "
                      f"{s['mean_gpu_utilization']}")
    if abs(float(r["utilization_csv_window_mean"]) - m) > 1e-12:
        errors.append(f"{r['summary']}: printed csv mean {r['utilization_csv_window_mean']} != {m}")
    if not 0 < s["mean_gpu_utilization"] <= 1:
        errors.append(f"{r['summary']}: utilization {s['mean_gpu_utilization']} not in (0, 1]")
want = {(p, s) for p in ("random", "locality", "buddy") for s in ("ecmp", "crux")}
if seen != want:
    errors.append(f"rows for {sorted(seen)}, expected {sorted(want)}")
print("  fig25: " + ", ".join(f"{r['placement']}/{r['scheduler']}={r['mean_gpu_utilization']}"
                              for r in rows))
EOF
fi

# ---------------------------------------------------------------- bad input
# expect <name> <expected stderr substring> <script> <args...>: exit 1, one stderr line.
expect() {
    local name=$1 want=$2 script=$3
    shift 3
    "$py" "$plots/$script" "$@" >"$work/$name.out" 2>"$work/$name.err"
    local rc=$?
    local lines
    lines=$(wc -l <"$work/$name.err")
    if [ "$rc" -ne 1 ]; then
        fail "$name: exit status $rc, expected 1"
        cat "$work/$name.err"
    elif [ "$lines" -ne 1 ]; then
        fail "$name: $lines lines on stderr, expected 1:"
        cat "$work/$name.err"
    elif ! grep -qF -- "$want" "$work/$name.err"; then
        fail "$name: stderr lacks '$want':"
        cat "$work/$name.err"
    else
        echo "ok   $name: $(cat "$work/$name.err")"
    fi
}
cp -r "$work/clos-locality/crux" "$work/bad"
rm "$work/bad/utilization.csv"
expect no-util "$work/bad/utilization.csv: no such file" fig25_job_schedulers.py "$work/bad" \
    --print-only
sed -i '1s/bytes/octets/' "$work/bad/link-intensity.csv"
expect no-column "$work/bad/link-intensity.csv: missing column 'bytes'" \
    fig24_intensity_heatmap.py "$work/bad" --print-only
sed -i 's/"mean_gpu_utilization"/"mean_util"/' "$work/bad/summary.json"
expect no-field "$work/bad/summary.json: missing field 'mean_gpu_utilization'" \
    fig23_utilization.py "$work/bad" --print-only
expect no-dir "$work/none: no such directory" fig23_utilization.py "$work/none" --print-only
expect no-sched "--schedulers: no run of scheduler 'sincronia'" fig23_utilization.py \
    "$work/clos-locality" --schedulers=ecmp,sincronia --print-only
expect bad-suffix "--output: '$work/x.jpg': suffix must be .png, .pdf or .svg" \
    fig23_utilization.py "$work/clos-locality" --output "$work/x.jpg"
expect bad-top "--top must be >= 1" fig24_intensity_heatmap.py "$work/clos-locality" --top 0 \
    --print-only
expect bad-hours "--hours: '3' is not A:B (hours)" fig24_intensity_heatmap.py \
    "$work/clos-locality" --hours 3 --print-only

if [ "$fails" -ne 0 ]; then
    echo "$fails plot check(s) failed"
    exit 1
fi
echo "all plot scripts drew their figures and printed the values of the run files"
