#!/usr/bin/env python3
"""The evaluator accuracy study (scripts/compare-evaluators.sh and .py, issue 30) on real runs.

Runs scripts/compare-evaluators.sh --check on a quarter day of the generated trace (Clos, random
placement, --workModel=duration, schedulers ecmp and crux-pa, both evaluators), then checks:
  - it exits 0 and prints one "ok" row per scheduler and the order line;
  - every number of a row against a second computation from the run files: mean utilization
    and its relative difference (summary.json), the per-job mean iteration time difference at
    the median and the 99th percentile (jobs.csv mean_iter_s, nearest rank), the JCT
    differences and the fluid events;
and, as the counter-checks, compare-evaluators.py --check on the exact run against a doctored
copy of the coarse one exits 1 and marks the row MISS when every job's mean iteration time is
3 % longer (tolerance 2 % at the median) or the utilization 0.4 % higher (tolerance 0.3 %).
Then --seeds: a load run of seed 2 is named load<rate>-<days>d-s2 and is of seed 2, and
a seed that is not a whole number is refused with the option's name.

Usage: check-compare-evaluators.py <directory holding crux-trace-run> <module root>
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

SCHEDULERS = ["crux-pa", "ecmp"]


def nearest_rank(values, q):
    """Nearest-rank percentile q (0..100) of a non-empty list."""
    v = sorted(values)
    return v[max(1, math.ceil(q / 100.0 * len(v))) - 1]


def per_job(path, column, finished_only):
    """{job id: float(column)} of a jobs.csv (rows with an empty or zero value skipped)."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if finished_only and row["finished"] != "1":
                continue
            if row[column] not in ("", "0"):
                out[int(row["job"])] = float(row[column])
    return out


def rel_diffs(ref, test):
    """|test / ref - 1| over the jobs of both (ref > 0)."""
    return [abs(test[j] / ref[j] - 1) for j in ref if j in test and ref[j] > 0]


def compare(root, ref, test):
    """compare-evaluators.py --check on two run directories: (exit code, stdout)."""
    p = subprocess.run([sys.executable, os.path.join(root, "scripts", "compare-evaluators.py"),
                        ref, test, "--label=t", "--check"], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout


def main():
    bindir, root = sys.argv[1], sys.argv[2]
    if not os.path.exists("/usr/bin/time"):
        print("SKIP: /usr/bin/time is missing (Debian package time)")
        sys.exit(77)
    fails = []
    with tempfile.TemporaryDirectory() as work:
        p = subprocess.run(["bash", os.path.join(root, "scripts", "compare-evaluators.sh"),
                            "--out=" + work, "--days=0.25", "--no-load",
                            "--schedulers=" + ",".join(SCHEDULERS), "--jobs=1",
                            "--build-dir=" + bindir, "--check"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            sys.exit(f"FAIL: compare-evaluators.sh exit {p.returncode}:\n{p.stdout}\n{p.stderr}")
        run = "fig23-clos-0.25d"
        # a refused run (an unknown scheduler, found by crux-trace-run) keeps the earlier
        # results of the same run name: it used to delete them before the run was refused
        kept = os.path.join(work, run, "exact", SCHEDULERS[0], "summary.json")
        with open(kept, "rb") as f:
            before = f.read()
        q = subprocess.run(["bash", os.path.join(root, "scripts", "compare-evaluators.sh"),
                            "--out=" + work, "--days=0.25", "--no-load",
                            "--schedulers=" + SCHEDULERS[0] + ",bogus", "--jobs=1",
                            "--build-dir=" + bindir],
                           capture_output=True, text=True, timeout=900)
        if q.returncode == 0 or not os.path.exists(kept) or open(kept, "rb").read() != before:
            fails.append(f"a refused run lost the earlier results: exit {q.returncode}, "
                         f"{kept} {'kept' if os.path.exists(kept) else 'gone'}")
        rows = {}
        for line in p.stdout.splitlines():
            m = re.match(rf"{re.escape(run)} (\S+) util (\S+) (\S+) diff (\S+)% jobs (\d+) "
                         r"jct_median (\S+)% jct_p99 (\S+)% iter_median (\S+)% iter_p99 (\S+)% "
                         r"events (\d+) (\d+) ratio \S+ (ok|MISS)$", line)
            if m:
                rows[m.group(1)] = m.groups()[1:]
        if sorted(rows) != sorted(SCHEDULERS):
            fails.append(f"rows for {sorted(rows)}, expected {SCHEDULERS}:\n{p.stdout}")
        if not re.search(rf"{re.escape(run)} order same ", p.stdout):
            fails.append("no 'order same' line:\n" + p.stdout)
        for s, (ur, ut, du, n, jmed, jp99, imed, ip99, er, et, verdict) in rows.items():
            d = {ev: os.path.join(work, run, ev, s) for ev in ("exact", "coarse")}
            summ = {}
            for ev in d:
                with open(os.path.join(d[ev], "summary.json")) as f:
                    summ[ev] = json.load(f)
            u_ref = summ["exact"]["mean_gpu_utilization"]
            u_test = summ["coarse"]["mean_gpu_utilization"]
            it = {ev: per_job(os.path.join(d[ev], "jobs.csv"), "mean_iter_s", False) for ev in d}
            jct = {ev: per_job(os.path.join(d[ev], "jobs.csv"), "jct_s", True) for ev in d}
            idiffs = rel_diffs(it["exact"], it["coarse"])
            jdiffs = rel_diffs(jct["exact"], jct["coarse"])
            if not idiffs or not jdiffs:
                fails.append(f"{s}: no job with an iteration time or a JCT in both runs")
                continue
            expect = {
                "utilization exact": (float(ur), u_ref, 1e-6),
                "utilization coarse": (float(ut), u_test, 1e-6),
                "utilization diff %": (float(du), (u_test / u_ref - 1) * 100, 1e-4),
                "jobs": (int(n), len(jdiffs), 0),
                "JCT median %": (float(jmed), nearest_rank(jdiffs, 50) * 100, 1e-4),
                "JCT p99 %": (float(jp99), nearest_rank(jdiffs, 99) * 100, 1e-4),
                "iteration median %": (float(imed), nearest_rank(idiffs, 50) * 100, 1e-4),
                "iteration p99 %": (float(ip99), nearest_rank(idiffs, 99) * 100, 1e-4),
                "fluid events exact": (int(er), summ["exact"]["fluid_events"], 0),
                "fluid events coarse": (int(et), summ["coarse"]["fluid_events"], 0),
            }
            for what, (printed, computed, tol) in expect.items():
                if abs(printed - computed) > tol:
                    fails.append(f"{s}: {what} printed {printed}, computed {computed}")
            if verdict != "ok":
                fails.append(f"{s}: verdict {verdict} but the script exited 0")
            if int(er) <= 0:
                fails.append(f"{s}: the exact run has no fluid events")
        # Counter-checks on doctored copies of the coarse run.
        ref = os.path.join(work, run, "exact")
        for what in ("iteration", "utilization"):
            bad = os.path.join(work, "doctored-" + what)
            shutil.copytree(os.path.join(work, run, "coarse"), bad)
            for s in SCHEDULERS:
                if what == "iteration":
                    path = os.path.join(bad, s, "jobs.csv")
                    with open(path, newline="") as f:
                        reader = csv.DictReader(f)
                        fields, data = reader.fieldnames, list(reader)
                    for row in data:
                        if row["mean_iter_s"] not in ("", "0"):
                            row["mean_iter_s"] = repr(float(row["mean_iter_s"]) * 1.03)
                    with open(path, "w", newline="") as f:
                        w = csv.DictWriter(f, fieldnames=fields)
                        w.writeheader()
                        w.writerows(data)
                else:
                    path = os.path.join(bad, s, "summary.json")
                    with open(path) as f:
                        summary = json.load(f)
                    summary["mean_gpu_utilization"] *= 1.004
                    with open(path, "w") as f:
                        json.dump(summary, f)
            code, out = compare(root, ref, bad)
            misses = [line for line in out.splitlines() if line.endswith(" MISS")]
            if code != 1 or len(misses) != len(SCHEDULERS):
                fails.append(f"doctored {what}: exit {code}, {len(misses)} MISS rows:\n{out}")
        # Runs of different settings are refused, naming the field: a copy of the coarse run
        # whose summary.json says --workModel=iterations; and the settings the runs must
        # share are in every summary.json, the evaluator's options null under the exact one.
        other = os.path.join(work, "doctored-work-model")
        shutil.copytree(os.path.join(work, run, "coarse"), other)
        path = os.path.join(other, SCHEDULERS[0], "summary.json")
        with open(path) as f:
            summary = json.load(f)
        if summary.get("work_model") != "duration" or summary.get("trace", {}).get(
                "source") != "generated" or "link_rates_bps" not in summary:
            fails.append(f"summary.json lacks the run's settings: {sorted(summary)}")
        summary["work_model"] = "iterations"
        with open(path, "w") as f:
            json.dump(summary, f)
        p = subprocess.run([sys.executable, os.path.join(root, "scripts", "compare-evaluators.py"),
                            ref, other], capture_output=True, text=True, timeout=120)
        if p.returncode != 1 or "'work_model'" not in p.stderr:
            fails.append(f"different work models: exit {p.returncode}, stderr {p.stderr!r}")
        # ... but not an evaluation choice: the engine ("flow" as the reference of "epoch")
        summary["work_model"] = "duration"
        summary["engine"] = "flow"
        with open(path, "w") as f:
            json.dump(summary, f)
        p = subprocess.run([sys.executable, os.path.join(root, "scripts", "compare-evaluators.py"),
                            ref, other], capture_output=True, text=True, timeout=120)
        if "differ in" in p.stderr or not re.search(r" util ", p.stdout):
            fails.append(f"different engines refused: exit {p.returncode}, stderr {p.stderr!r}")
        # damaged runs: one line naming the file, exit 1, no traceback
        for what, damage, want in (
                ("short row", lambda d: open(os.path.join(d, "jobs.csv"), "a").write("3,x\n"),
                 "not as many fields as the header"),
                ("summary a list", lambda d: open(os.path.join(d, "summary.json"), "w").write(
                    "[]"), "summary.json: not a JSON object"),
                ("utilization text", lambda d: open(os.path.join(d, "summary.json"), "w").write(
                    json.dumps({**summary, "mean_gpu_utilization": "x"})),
                 "'mean_gpu_utilization' is 'x', not a finite number")):
            dmg = os.path.join(work, "damaged")
            shutil.rmtree(dmg, ignore_errors=True)
            shutil.copytree(os.path.join(work, run, "coarse"), dmg)
            damage(os.path.join(dmg, SCHEDULERS[0]))
            p = subprocess.run([sys.executable,
                                os.path.join(root, "scripts", "compare-evaluators.py"), ref, dmg],
                               capture_output=True, text=True, timeout=120)
            err = p.stderr.strip().splitlines()
            if p.returncode != 1 or len(err) != 1 or want not in err[0]:
                fails.append(f"damaged run ({what}): exit {p.returncode}, stderr {p.stderr!r}")
        with open(os.path.join(ref, SCHEDULERS[0], "summary.json")) as f:
            exact = json.load(f)
        if exact.get("weak_link_bound", 0) is not None:
            fails.append("the exact run's summary.json gives a weak_link_bound")
        # --seeds: a load run on another trace seed gets -s<seed> in its name and that
        # seed in its summary.json; a bad seed is refused, naming the option.
        script = os.path.join(root, "scripts", "compare-evaluators.sh")
        common = ["--out=" + work, "--no-fig23", "--load-days=0.05", "--loads=370", "--jobs=1",
                  "--build-dir=" + bindir]
        p = subprocess.run(["bash", script] + common + ["--seeds=2"],
                           capture_output=True, text=True, timeout=900)
        seeded = os.path.join(work, "load370-0.05d-s2")
        if p.returncode != 0 or not re.search(r"^load370-0\.05d-s2 ecmp util ", p.stdout, re.M):
            fails.append(f"--seeds=2: exit {p.returncode}, no row:\n{p.stdout}\n{p.stderr}")
        else:
            for ev in ("exact", "coarse"):
                with open(os.path.join(seeded, ev, "ecmp", "summary.json")) as f:
                    if json.load(f)["seed"] != 2:
                        fails.append(f"--seeds=2: the {ev} run is not of seed 2")
        p = subprocess.run(["bash", script] + common + ["--seeds=two"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode == 0 or "--seeds" not in p.stderr:
            fails.append(f"--seeds=two: exit {p.returncode}, stderr {p.stderr!r}")
    if fails:
        print("FAIL:\n  " + "\n  ".join(fails))
        sys.exit(1)
    print(f"ok: {len(rows)} schedulers, every printed number recomputed from the run files; "
          "doctored iteration times and utilization are refused, so are runs of other "
          "settings; --seeds names and seeds "
          "its runs")


if __name__ == "__main__":
    main()
