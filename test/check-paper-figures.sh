#!/usr/bin/env bash
# scripts/run-paper-figures.sh end to end on a short generated trace (half a day, Clos and
# double-sided, schedulers ecmp and crux, all three figures): it must exit 0, write non-empty
# fig23.png / fig24.png / fig25.png, and the Fig. 23 / Fig. 25 tables it prints must carry
# exactly the mean_gpu_utilization of the summary.json each row names (recomputed here with the
# standard library). Bad options (unknown, bad figure, topology, days, work model) must give
# exit status 2 naming the option before anything is written; a failing run a non-zero status
# with the run's error. The runs go in parallel (--jobs=2, a local Dask cluster); a --jobs=1 run
# of the same figures must give byte-identical files (except the wall-clock "timing" object of
# summary.json, timing.csv and the logs' status files, which hold wall times).
# Exit 77 (ctest SKIP_RETURN_CODE) if the python cannot import matplotlib, or, after every other
# check passed, if the sweep python cannot import Dask (then only the sequential path ran).
# Usage: check-paper-figures.sh <python with matplotlib> <dir holding crux-trace-run> <module root>
#            [<python with Dask for scripts/sweep.py>]
set -u
py=$1
bindir=$(cd "$2" && pwd)
root=$(cd "$3" && pwd)
sweep_py=${4:-$bindir/venv/bin/python}
# The runs below change directory: relative interpreter paths are made absolute.
[[ "$py" == */* && "$py" != /* ]] && py="$PWD/$py"
[[ "$sweep_py" == */* && "$sweep_py" != /* ]] && sweep_py="$PWD/$sweep_py"
script="$root/scripts/run-paper-figures.sh"

# shellcheck source=test/plot-check-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/plot-check-lib.sh"

dask=1
"$sweep_py" -c 'import distributed' 2>/dev/null || dask=0
jobs=()
((dask)) && jobs=(--jobs=2)
# Both runs write "out" in their own directory, so the paths printed in the tables agree.
mkdir -p "$work/par" "$work/seq"
out="$work/par/out"
if ! (cd "$work/par" && bash "$script" --out=out --days=0.5 --topologies=clos,double-sided \
    --schedulers=ecmp,crux --build-dir="$bindir" --python="$py" --sweep-python="$sweep_py" \
    "${jobs[@]}" >"$work/log" 2>&1); then
    cat "$work/log"
    fail "run-paper-figures.sh exited non-zero"
fi
if ((dask)); then
    grep -q "2 run(s) at a time" "$work/log" || fail "--jobs=2: not 2 runs at a time"
    grep -q "local Dask cluster, 2 worker(s)" "$work/log" || fail "--jobs=2: no Dask cluster"
    if ! (cd "$work/seq" && bash "$script" --out=out --days=0.5 --topologies=clos,double-sided \
        --schedulers=ecmp,crux --build-dir="$bindir" --python="$py" --sweep-python="$sweep_py" \
        --jobs=1 >"$work/seq.log" 2>&1); then
        cat "$work/seq.log"
        fail "run-paper-figures.sh --jobs=1 exited non-zero"
    fi
    # Every file of the sequential run, byte for byte in the parallel run.
    nfiles=0
    while read -r f; do
        case "$f" in
            ./timing.csv | ./logs/*.status.json) continue ;;
            */summary.json)
                cmp -s <(grep -v '_seconds"' "$work/seq/out/$f") \
                    <(grep -v '_seconds"' "$work/par/out/$f") || fail "--jobs=1 vs 2: $f differs"
                ;;
            *) cmp -s "$work/seq/out/$f" "$work/par/out/$f" || fail "--jobs=1 vs 2: $f differs" ;;
        esac
        nfiles=$((nfiles + 1))
    done < <(cd "$work/seq/out" && find . -type f | sort)
    nboth=$(cd "$work/par/out" && find . -type f | wc -l)
    [ "$nboth" -eq $((nfiles + 11)) ] ||
        fail "--jobs=1 vs 2: $nfiles compared files + 11 timing/status files, $nboth in the parallel run"
    echo "--jobs=1 and --jobs=2: $nfiles files identical"
fi
for f in fig23.png fig24.png fig25.png fig23.txt fig25.txt fig24-values.csv; do
    [ -s "$out/$f" ] || fail "$out/$f missing or empty"
done
# Every table row that names a summary.json must show its mean_gpu_utilization exactly.
(cd "$work/par" && "$py" - out) <<'PYEOF' || fail "table values differ from summary.json"
import json, sys
out = sys.argv[1]
rows = 0
for table in ("fig23.txt", "fig25.txt"):
    for line in open(f"{out}/{table}"):
        cells = line.split()
        if not cells or not cells[-1].endswith("summary.json"):
            continue
        want = json.load(open(cells[-1]))["mean_gpu_utilization"]
        got = float(cells[3])
        if got != want:
            print(f"{table}: {cells[-1]}: printed {got}, summary.json {want}")
            sys.exit(1)
        rows += 1
if rows != 2 * 2 + 3 * 2:
    print(f"expected 10 table rows with a summary.json (2 topologies + 3 placements, x 2 "
          f"schedulers), found {rows}")
    sys.exit(1)
print(f"{rows} table rows equal their summary.json")
PYEOF

# Bad input: an unknown option (exit 2), a run that fails (non-zero, the run's log shown).
bash "$script" --out="$work/bad" --nonsense=1 >"$work/bad.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "unknown option: exit $rc, expected 2"
grep -q "unknown option '--nonsense=1'" "$work/bad.log" || fail "unknown option not named"
for bad in --figures=99 --figures=23,99 --topologies=clos,torus --days=abc --workModel=x \
    --jobs=0 --schedulers=ecmp,,crux; do
    bash "$script" --out="$work/bad1" "$bad" --build-dir="$bindir" --python="$py" \
        >"$work/bad1.log" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "$bad: exit $rc, expected 2"
    opt=${bad%%=*}
    grep -q -- "$opt" "$work/bad1.log" || fail "$bad: the option is not named"
    [ ! -e "$work/bad1" ] || fail "$bad: wrote $work/bad1 before failing"
done
bash "$script" --out="$work/bad2" --days=0.5 --topologies=clos --figures=23 \
    --schedulers=ecmp,nosuch --build-dir="$bindir" --python="$py" --sweep-python="$sweep_py" \
    >"$work/bad2.log" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "unknown scheduler: exit 0"
grep -q "crux-trace-run failed" "$work/bad2.log" || fail "failed run not reported"
grep -q "nosuch" "$work/bad2.log" || fail "the run's error (the scheduler name) not shown"

if [ "$fails" -gt 0 ]; then
    echo "check-paper-figures: $fails failure(s)"
    exit 1
fi
if ((!dask)); then
    echo "SKIP: $sweep_py cannot import Dask (bash scripts/setup.sh installs it into build/venv):" \
        "the sequential run passed, the parallel run (--jobs) was not checked"
    exit 77
fi
echo "check-paper-figures: OK"
