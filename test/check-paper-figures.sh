#!/usr/bin/env bash
# scripts/run-paper-figures.sh end to end on a short generated trace (half a day, Clos and
# double-sided, schedulers ecmp and crux, all three figures): it must exit 0, write non-empty
# fig23.png / fig24.png / fig25.png, and the Fig. 23 / Fig. 25 tables it prints must carry
# exactly the mean_gpu_utilization of the summary.json each row names (recomputed here with the
# standard library). Bad options (unknown, bad figure, topology, days, work model) must give
# exit status 2 naming the option before anything is written; a failing run a non-zero status
# with the run's log. Exit 77 (ctest SKIP_RETURN_CODE) if the python cannot import matplotlib.
# Usage: check-paper-figures.sh <python with matplotlib> <dir holding crux-trace-run> <module root>
set -u
py=$1
bindir=$2
root=$3
script="$root/scripts/run-paper-figures.sh"

# shellcheck source=test/plot-check-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/plot-check-lib.sh"

out="$work/out"
if ! bash "$script" --out="$out" --days=0.5 --topologies=clos,double-sided \
    --schedulers=ecmp,crux --build-dir="$bindir" --python="$py" >"$work/log" 2>&1; then
    cat "$work/log"
    fail "run-paper-figures.sh exited non-zero"
fi
for f in fig23.png fig24.png fig25.png fig23.txt fig25.txt fig24-values.csv; do
    [ -s "$out/$f" ] || fail "$out/$f missing or empty"
done
# Every table row that names a summary.json must show its mean_gpu_utilization exactly.
"$py" - "$out" <<'PYEOF' || fail "table values differ from summary.json"
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
for bad in --figures=99 --figures=23,99 --topologies=clos,torus --days=abc --workModel=x; do
    bash "$script" --out="$work/bad1" "$bad" --build-dir="$bindir" --python="$py" \
        >"$work/bad1.log" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "$bad: exit $rc, expected 2"
    opt=${bad%%=*}
    grep -q -- "$opt" "$work/bad1.log" || fail "$bad: the option is not named"
    [ ! -e "$work/bad1" ] || fail "$bad: wrote $work/bad1 before failing"
done
bash "$script" --out="$work/bad2" --days=0.5 --topologies=clos --figures=23 \
    --schedulers=ecmp,nosuch --build-dir="$bindir" --python="$py" >"$work/bad2.log" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "unknown scheduler: exit 0"
grep -q "crux-trace-run failed" "$work/bad2.log" || fail "failed run not reported"
grep -q "nosuch" "$work/bad2.log" || fail "the run's error (the scheduler name) not shown"

if [ "$fails" -gt 0 ]; then
    echo "check-paper-figures: $fails failure(s)"
    exit 1
fi
echo "check-paper-figures: OK"
