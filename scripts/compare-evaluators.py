#!/usr/bin/env python3
"""Accuracy of a trace run's evaluation against a reference run (the tolerances of the coarse
evaluator, doc/crux.rst "Evaluator of the trace runs").

Compares two crux-trace-run output directories made with the same trace, topology, placement
and schedulers but different evaluators (typically --evaluator=coarse against
--evaluator=exact). For every scheduler present in both it prints:

  * the mean GPU utilization of both runs and its relative difference;
  * the per-job JCT relative difference |JCT_test / JCT_ref - 1| over the jobs finished in
    both runs, at the median and the 99th percentile (nearest-rank);
  * the same for each job's mean iteration time (jobs.csv mean_iter_s, every job that ran in
    both runs): the per-job rate, which --workModel=duration runs measure where their JCT is
    the trace's and cannot move;
  * the fluid events (the evaluation's work) of both runs and their ratio.

Then whether the schedulers' order by mean utilization is the same in both runs: every pair
whose reference utilizations differ by more than the utilization tolerance must keep its
order (closer pairs are ties; their swaps are counted). With
--check it exits 1 when a run misses the coarse evaluator's tolerances (utilization within 0.3 %
relative, JCT and mean iteration time within 2 % at the median and 5 % at the 99th
percentile, the same order).
Output: one row per scheduler, whitespace-separated, for doc tables (--markdown: a
Markdown table).

A scheduler present in one run only, a different number of finished jobs, or a reference
utilization of 0 is reported and counts as a miss. Two runs that differ in a setting that
defines the run (summary.json's topology, trace, link rates, placement, seeds, work model,
window, drain, ...: RUN_SETTINGS of bindings/python/crux/run_settings.py, the list the figure
scripts check too) are refused with the field's name: only the evaluation (engine, evaluator,
timeline and the evaluator's options) may differ, so an --engine=flow run (every message a flow
on the live fabric) can be the reference of an epoch run.

Usage: compare-evaluators.py REF_DIR TEST_DIR [--label=TEXT] [--markdown [--no-header]]
                             [--check]   (--help: the options)
"""
import argparse
import csv
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
# the run settings shared with crux.results (bindings/python/crux/run_settings.py, stdlib only)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bindings", "python"))
from crux.run_settings import first_difference  # noqa: E402

UTIL_TOL = 0.003
JCT_MEDIAN_TOL = 0.02
JCT_P99_TOL = 0.05


def fail(msg):
    print("compare-evaluators.py: " + msg, file=sys.stderr)
    sys.exit(1)


def load_run(path):
    """Return {scheduler: (summary dict, {job id: jct}, {job id: mean iteration s})} of one
    output directory."""
    if not os.path.isdir(path):
        fail(f"{path}: not a directory")
    runs = {}
    for sched in sorted(os.listdir(path)):
        d = os.path.join(path, sched)
        sfile = os.path.join(d, "summary.json")
        jfile = os.path.join(d, "jobs.csv")
        if not (os.path.isfile(sfile) and os.path.isfile(jfile)):
            continue
        try:
            with open(sfile) as f:
                summary = json.load(f)
            jct = {}
            it = {}
            with open(jfile, newline="") as f:
                reader = csv.DictReader(f)
                for row in reader:
                    if None in row.values() or None in row:
                        fail(f"{jfile}:{reader.line_num}: not as many fields as the header")
                    if row["finished"] == "1":
                        jct[int(row["job"])] = float(row["jct_s"])
                    if row["mean_iter_s"] not in ("", "0"):
                        it[int(row["job"])] = float(row["mean_iter_s"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(f"{d}: unreadable run ({e})")
        if not isinstance(summary, dict):
            fail(f"{sfile}: not a JSON object")
        # the numbers compared: finite numbers, or the run is damaged
        for key in ("mean_gpu_utilization", "fluid_events"):
            v = summary.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                fail(f"{sfile}: '{key}' is {v!r}, not a finite number")
        runs[sched] = (summary, jct, it)
    if not runs:
        fail(f"{path}: no scheduler directory with summary.json and jobs.csv")
    return runs


def percentile(values, q):
    """Nearest-rank percentile q (0..100) of a non-empty list."""
    v = sorted(values)
    k = max(1, math.ceil(q / 100.0 * len(v)))
    return v[k - 1]


class Parser(argparse.ArgumentParser):
    """argparse with the project's bad-input convention: one line, exit status 1."""

    def error(self, message):
        fail(message + " (see --help)")


def main(argv):
    p = Parser(
        prog="compare-evaluators.py",
        description="Accuracy of a trace run's evaluation (TEST_DIR) against a reference run "
                    "(REF_DIR): crux-trace-run output directories of the same run settings.")
    p.add_argument("ref", metavar="REF_DIR", help="the reference run (e.g. --evaluator=exact)")
    p.add_argument("test", metavar="TEST_DIR", help="the run compared with it")
    p.add_argument("--label", default="", help="first column of every row (the run's name)")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    p.add_argument("--no-header", dest="header", action="store_false",
                   help="with --markdown: no header row")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a run misses the tolerances: mean utilization within 0.3 %% "
                   "relative, per-job JCT and mean iteration time within 2 %% at the median and "
                   "5 %% at the 99th percentile, the schedulers' order unchanged")
    a = p.parse_args(argv)
    args = [a.ref, a.test]
    label, markdown, header, check = a.label, a.markdown, a.header, a.check
    lead = f"{label} " if label else ""  # the plain rows' first column, if any
    ref = load_run(args[0])
    test = load_run(args[1])
    common = [s for s in ref if s in test]
    if not common:
        fail("the two directories have no scheduler in common")
    for s in common:
        key = first_difference(ref[s][0], test[s][0])
        if key is not None:
            fail(f"{s}: the runs differ in summary.json's '{key}' "
                 f"({ref[s][0].get(key)!r} against {test[s][0].get(key)!r}): not the same run")
    ok = True
    for s in sorted(set(ref) ^ set(test)):
        print(f"{lead}{s}: MISS, only in {args[0] if s in ref else args[1]}")
        ok = False
    rows = []
    for s in common:
        (rs, rj, ri), (ts, tj, ti) = ref[s], test[s]
        ur, ut = rs["mean_gpu_utilization"], ts["mean_gpu_utilization"]
        du = (ut / ur - 1) if ur > 0 else float("inf")
        both = [j for j in rj if j in tj and rj[j] > 0]
        diffs = [abs(tj[j] / rj[j] - 1) for j in both]
        med = percentile(diffs, 50) if diffs else 0.0
        p99 = percentile(diffs, 99) if diffs else 0.0
        idiffs = [abs(ti[j] / ri[j] - 1) for j in ri if j in ti and ri[j] > 0]
        imed = percentile(idiffs, 50) if idiffs else 0.0
        ip99 = percentile(idiffs, 99) if idiffs else 0.0
        er, et = rs.get("fluid_events", 0), ts.get("fluid_events", 0)
        good = (abs(du) <= UTIL_TOL and med <= JCT_MEDIAN_TOL and p99 <= JCT_P99_TOL
                and imed <= JCT_MEDIAN_TOL and ip99 <= JCT_P99_TOL and len(rj) == len(tj))
        if len(rj) != len(tj):
            print(f"{lead}{s}: finished jobs differ: {len(rj)} against {len(tj)}")
        ok = ok and good
        rows.append((s, ur, ut, du, len(both), med, p99, imed, ip99, er, et, good))
    # The order: every pair of schedulers whose reference utilizations differ by more than the
    # utilization tolerance keeps its order; closer pairs are ties of the reference (swaps
    # among them are counted, not failed).
    util_ref = {s: ref[s][0]["mean_gpu_utilization"] for s in common}
    util_test = {s: test[s][0]["mean_gpu_utilization"] for s in common}
    swapped, tied_swaps = [], 0
    for i, a in enumerate(common):
        for b in common[i + 1:]:
            hi, lo = (a, b) if util_ref[a] >= util_ref[b] else (b, a)
            if util_test[hi] >= util_test[lo]:
                continue
            if util_ref[hi] > util_ref[lo] * (1 + UTIL_TOL):
                swapped.append(f"{hi}/{lo}")
            else:
                tied_swaps += 1
    same_order = not swapped
    ok = ok and same_order
    order_ref = sorted(common, key=lambda s: -util_ref[s])
    if markdown and header:
        print("| run | scheduler | utilization reference | test | rel. diff | jobs "
              "| JCT diff median | p99 | iteration diff median | p99 | fluid events reference "
              "| test | within tolerance |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s, ur, ut, du, n, med, p99, imed, ip99, er, et, good in rows:
        if markdown:
            print(f"| {label} | {s} | {ur:.5f} | {ut:.5f} | {du * 100:+.3f} % | {n} | "
                  f"{med * 100:.3f} % | {p99 * 100:.3f} % | {imed * 100:.3f} % | "
                  f"{ip99 * 100:.3f} % | {er:,} | {et:,} | {'yes' if good else 'NO'} |")
        else:
            ratio = (et / er) if er else float("nan")
            print(f"{lead}{s} util {ur:.6f} {ut:.6f} diff {du * 100:+.4f}% jobs {n} "
                  f"jct_median {med * 100:.4f}% jct_p99 {p99 * 100:.4f}% "
                  f"iter_median {imed * 100:.4f}% iter_p99 {ip99 * 100:.4f}% "
                  f"events {er} {et} ratio {ratio:.3f} {'ok' if good else 'MISS'}")
    print(f"{lead}order {'same' if same_order else 'DIFFERENT: ' + ', '.join(swapped)} "
          f"(reference {' > '.join(order_ref)}; {tied_swaps} swap(s) among schedulers within "
          f"{UTIL_TOL * 100:.1f} % of each other)")
    if check and not ok:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
