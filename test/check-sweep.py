#!/usr/bin/env python3
#
# This program is free software; you can redistribute it and/or modify
# it under the terms of the GNU General Public License version 2 as
# published by the Free Software Foundation;
#
# This program is distributed in the hope that it will be useful,
# but WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
# GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License
# along with this program; if not, write to the Free Software
# Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
"""ctest check-sweep: scripts/sweep.py on a local Dask cluster.

1. sweeps/smoke-flow.yaml (8 flow-level crux-experiment runs: 2 schedulers x 2 seeds x 2
   aggregation-link rates, and 2 short crux-trace-run runs with 2 schedulers each) on a local
   cluster of 2 workers: exit 0, 12 table rows, and every number of every row equal to the
   summary.json of the same run made here by calling the program directly (its own command
   line, its own scenario file with the link rate set), with this file's own column mapping;
   the plots and their value tables are written.
2. The same sweep on 1 worker, and through dask-jobqueue (--cluster=local-jobs: its job scripts
   and adaptive scaling, the batch jobs started as local processes): table.csv byte-identical
   to the 2-worker table.
3. --resume on the 2-worker output reuses every run and rewrites the same table.
   While a run is going, --progress-every=2 prints lines naming it with its program's last
   progress line; the table is the same without them.
4. A sweep with a failing run (unknown scheduler): exit 1, the failing run named on stderr with
   its error line, a row with status 'failed' and that error, the other run's row intact.
5. Bad sweep files (unknown option, reserved option, empty grid, missing scenario field, an
   output in the sweep's own table.csv or logs/): exit 2 naming it, nothing written; the
   Python sweep sweeps/trace-load.py lists its 9 runs.
   Ctrl-C to the process group of a sweep whose run is going, on a local cluster and on
   dask-jobqueue's local jobs: exit 130 and only the sweep's one line, no simulation left.
6. --cluster=slurm --print-job-script: the SLURM job script dask-jobqueue would submit.

Exit 77 (ctest SKIP_RETURN_CODE) if this python cannot import Dask (distributed, dask_jobqueue).
Usage: check-sweep.py <dir holding crux-experiment and crux-trace-run> <module root>
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

try:
    import dask_jobqueue  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import Dask ({e}); scripts/setup.sh installs "
          "distributed and dask-jobqueue into build/venv")
    sys.exit(77)

bindir, root = (os.path.abspath(a) for a in sys.argv[1:3])
sys.path.insert(0, os.path.join(root, "bindings", "python"))
from crux.results import format_interval  # noqa: E402
sweep = os.path.join(root, "scripts", "sweep.py")
fails = []


def fail(msg):
    print(f"FAIL {msg}")
    fails.append(msg)


def run_sweep(*args):
    p = subprocess.run([sys.executable, sweep, *args, f"--bin={bindir}"], capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def read_table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# The table's columns and where each comes from, written out here independently of sweep.py.
EXPERIMENT = {"complete": "complete", "utilization": "utilization",
              "simulated_s": "simulatedTime", "window_start_s": "windowStart",
              "window_end_s": "windowEnd", "pause_frames": "pauseFrames",
              "retransmitted_packets": "retransmittedPackets", "timeouts": "timeouts"}
EXPERIMENT_JOB = {"level": "level", "k": "k", "rerouted_flows": "reroutedFlows",
                  "iterations": "measuredIterations", "iteration_s": "meanIterationTime",
                  "throughput": "throughput", "comm_s": "meanCommTime", "jct_s": "jct"}
TRACE = ["total_gpus", "sim_end_s", "mean_gpu_utilization", "utilization_alone_default",
         "utilization_alone_installed", "busy_gpu_fraction", "jobs_finished", "jobs_unfinished",
         "jobs_unplaceable", "jobs_zero_duration", "trace_rows_skipped", "mean_jct_s", "events",
         "decisions", "evaluations", "cache_hits", "fluid_events"]


def same(text, value, what):
    """Cell text vs a summary.json value: numbers exactly equal, booleans 1/0."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)):
        ok = text != "" and float(text) == value
    else:
        ok = text == str(value)
    if not ok:
        fail(f"{what}: table '{text}', summary.json {value!r}")
    return ok


def direct_run(work, program, argv, tag):
    """Run a program directly (not through the sweep); its output directory."""
    out = os.path.join(work, "direct", tag)
    p = subprocess.run([os.path.join(bindir, program), *argv, f"--outputDir={out}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"direct run {tag} failed: {p.stderr.strip()[-300:]}")
    return out


def check_rows(work, rows):
    """Every row of the smoke-flow table against a direct run of the same parameters."""
    with open(os.path.join(root, "scenarios", "smoke.json"), encoding="utf-8") as f:
        smoke = json.load(f)
    checked = 0
    direct = {}
    for row in rows:
        tag = row["run_id"]
        if row["status"] != "ok" or row["error"]:
            fail(f"{tag}: status {row['status']} {row['error']}")
            continue
        if row["program"] == "crux-experiment":
            if tag not in direct:
                sc = json.loads(json.dumps(smoke))
                sc["topology"]["fabricLinkRate"] = row["scenario.topology.fabricLinkRate"]
                path = os.path.join(work, f"{tag}.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(sc, f)
                direct[tag] = direct_run(work, "crux-experiment",
                                         [f"--scenario={path}", "--fabric=flow",
                                          f"--modes={row['modes']}", f"--seed={row['seed']}"],
                                         tag)
            with open(os.path.join(direct[tag], "summary.json"), encoding="utf-8") as f:
                doc = json.load(f)
            runs = [r for r in doc["runs"] if r["run"] == row["run"]]
            if len(runs) != 1 or row["run"] != row["modes"]:
                fail(f"{tag}: run '{row['run']}' (modes {row['modes']}) not in summary.json")
                continue
            r = runs[0]
            for col, key in EXPERIMENT.items():
                same(row[col], r[key], f"{tag} {col}")
            same(row["drops"], sum(r["drops"].values()), f"{tag} drops")
            for job in r["jobs"]:
                for col, key in EXPERIMENT_JOB.items():
                    same(row[f"job.{job['name']}.{col}"], job[key], f"{tag} {job['name']}.{col}")
            same(row["seed"], doc["scenario"]["seed"], f"{tag} seed")
        else:
            if tag not in direct:
                direct[tag] = direct_run(work, "crux-trace-run",
                                         ["--days=0.5", "--placement=random",
                                          "--workModel=duration", "--schedulers=ecmp,crux",
                                          "--quiet", f"--torAggRate={row['torAggRate']}"], tag)
            with open(os.path.join(direct[tag], row["run"], "summary.json"),
                      encoding="utf-8") as f:
                doc = json.load(f)
            for key in TRACE:
                same(row[key], doc[key], f"{tag}/{row['run']} {key}")
            same(row["window_jobs"], doc["jobs"], f"{tag}/{row['run']} window_jobs")
            same(row["window_start_s"], doc["window"]["start_s"], f"{tag} window_start_s")
            same(row["window_end_s"], doc["window"]["end_s"], f"{tag} window_end_s")
            same(row["priority_classes"], doc["priority_classes"], f"{tag} priority_classes")
            same(row["run"], doc["scheduler"], f"{tag} scheduler")
        checked += 1
    return checked


work = tempfile.mkdtemp(prefix="check-sweep-")
try:
    smoke_flow = os.path.join(root, "sweeps", "smoke-flow.yaml")
    # 1. two workers, every row against direct runs
    two = os.path.join(work, "two")
    rc, out, err = run_sweep(smoke_flow, f"--out={two}", "--workers=2")
    if rc != 0:
        fail(f"smoke-flow on 2 workers: exit {rc}\n{err}")
    elif "local Dask cluster, 2 worker(s)" not in err:
        fail(f"the sweep did not report a local cluster of 2 workers:\n{err}")
    rows = read_table(os.path.join(two, "table.csv")) if rc == 0 else []
    expect = [f"smoke-{i:03d}" for i in range(8)] + ["trace-000"] * 2 + ["trace-001"] * 2
    if [r["run_id"] for r in rows] != expect:
        fail(f"rows {[r['run_id'] for r in rows]}, expected {expect}")
    n = check_rows(work, rows)
    print(f"{n} table rows equal the summary.json of direct runs")
    for name in ("smoke-utilization", "trace-utilization"):
        for ext in (".png", ".txt"):
            if not os.path.getsize(os.path.join(two, "plots", name + ext)) > 0:
                fail(f"plots/{name}{ext} missing or empty")

    # 2. one worker: identical table
    one = os.path.join(work, "one")
    rc1, _, err1 = run_sweep(smoke_flow, f"--out={one}", "--workers=1")
    if rc1 != 0:
        fail(f"smoke-flow on 1 worker: exit {rc1}\n{err1}")
    else:
        with open(os.path.join(one, "table.csv"), "rb") as a, \
                open(os.path.join(two, "table.csv"), "rb") as b:
            if a.read() != b.read():
                fail("table.csv differs between 1 and 2 workers")
            else:
                print("table.csv byte-identical on 1 and 2 workers")

    # 2b. the dask-jobqueue path (job scripts, adaptive scaling) with dask-jobqueue's local
    # "batch system": the same table
    jq = os.path.join(work, "jobqueue")
    rcj, _, errj = run_sweep(smoke_flow, f"--out={jq}", "--cluster=local-jobs",
                             "--cluster-jobs=2", "--cluster-option=cores=1",
                             "--cluster-option=memory=2GB", "--cluster-option=processes=1")
    if rcj != 0 or "dask-jobqueue local.LocalCluster" not in errj:
        fail(f"smoke-flow on --cluster=local-jobs: exit {rcj}\n{errj}")
    elif open(os.path.join(jq, "table.csv"), "rb").read() != \
            open(os.path.join(two, "table.csv"), "rb").read():
        fail("table.csv differs between the local cluster and dask-jobqueue's batch jobs")
    else:
        print("table.csv byte-identical on dask-jobqueue batch jobs")

    # 3. --resume reuses every run
    before = open(os.path.join(two, "table.csv"), "rb").read() if rc == 0 else b""
    rc3, _, err3 = run_sweep(smoke_flow, f"--out={two}", "--resume")
    if rc3 != 0 or "10 run(s) reused" not in err3:
        fail(f"--resume: exit {rc3}, expected 10 runs reused:\n{err3}")
    elif open(os.path.join(two, "table.csv"), "rb").read() != before:
        fail("--resume rewrote a different table")

    # 3b. --resume after a scenario-file grid value changed: the command line is the same (the
    # derived scenario's path), the file is not, so the run is made again (found by a breaker
    # helper: it used to be reused, with the old link rate's numbers)
    def rate_sweep(rate):
        path = os.path.join(work, "rate.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"runs": [{"program": "crux-experiment", "name": "r", "options": {
                "scenario": os.path.join(root, "scenarios", "smoke.json"), "fabric": "flow",
                "modes": "crux", "quiet": True},
                "grid": {"scenario.topology.fabricLinkRate": [rate]}}]}, f)
        return path
    ro = os.path.join(work, "rate")
    run_sweep(rate_sweep("20Gbps"), f"--out={ro}", "--workers=1")
    u20 = read_table(os.path.join(ro, "table.csv"))[0]["utilization"]
    rc8, _, err8 = run_sweep(rate_sweep("40Gbps"), f"--out={ro}", "--workers=1", "--resume")
    u40 = read_table(os.path.join(ro, "table.csv"))[0]["utilization"]
    rc9, _, err9 = run_sweep(rate_sweep("40Gbps"), f"--out={ro}", "--workers=1", "--resume")
    u40b = read_table(os.path.join(ro, "table.csv"))[0]["utilization"]
    if rc8 != 0 or "reused" in err8 or u40 == u20:
        fail(f"--resume after a scenario grid value changed: exit {rc8}, utilization {u20} at "
             f"20 Gbit/s and {u40} at 40 (expected a new run):\n{err8}")
    elif rc9 != 0 or "1 run(s) reused" not in err9 or u40b != u40:
        fail(f"--resume of the same scenario: exit {rc9}, {u40b} against {u40}:\n{err9}")
    else:
        print(f"--resume reruns a changed scenario ({u20} -> {u40}) and reuses an unchanged one")

    # 3c. seeds: N inside crux-experiment (found by a breaker helper: the run column was
    # 'ecmp@1', 'ecmp@2', one line per seed, and 'where run: ecmp' matched nothing): the rows
    # of the seeds are one run with their ecmp_seeds, and the plot's point is the experiment's
    # own mean and interval over the seeds. At 10 Gbit/s the smoke scenario's Crux decision
    # differs between the seeds' profiles: one simulation stands for seeds 1 and 2, another for
    # seed 3 (two rows); its point must count the first twice (it used to average the two rows
    # with n = 2: 13.8 ± 6.1 against the experiment's 13.6 ± 1.4)
    seeds_path = os.path.join(work, "seeds.json")
    with open(seeds_path, "w", encoding="utf-8") as f:
        json.dump({"runs": [{"program": "crux-experiment", "name": "s", "options": {
            "scenario": os.path.join(root, "scenarios", "smoke.json"), "fabric": "flow",
            "modes": "ecmp,crux", "seeds": 3, "quiet": True,
            "scenario.topology.fabricLinkRate": "10Gbps"}}],
            "plots": [{"name": "u", "x": "seeds", "y": "utilization", "by": "run"}]}, f)
    so = os.path.join(work, "seeds-out")
    rcs, _, errs = run_sweep(seeds_path, f"--out={so}", "--workers=1")
    srows = read_table(os.path.join(so, "table.csv")) if rcs == 0 else []
    if rcs != 0 or [(r["run"], r["ecmp_seeds"]) for r in srows] != \
            [("ecmp", "1"), ("ecmp", "2"), ("ecmp", "3"), ("crux", "1 2"), ("crux", "3")]:
        fail(f"seeds: 3: exit {rcs}, rows {[(r['run'], r['ecmp_seeds']) for r in srows]} "
             f"(expected Crux as one run for seeds 1 2 and one for 3)\n{errs}")
    else:
        with open(os.path.join(so, "runs", "s-000", "summary.json"), encoding="utf-8") as f:
            clusters = json.load(f)["summary"]["clusters"]
        with open(os.path.join(so, "plots", "u.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        with open(os.path.join(so, "runs", "s-000", "table.txt"), encoding="utf-8") as f:
            table_txt = f.read()
        for c in clusters:
            u = c["utilization"]
            want = format_interval(u["mean"], u["ci95"], u["n"], 100.0)
            point = [ln for ln in lines if ln.startswith(c["scheduler"] + " ")]
            # the experiment's own table prints the same text: '<scheduler> <runs> <want> % ...'
            own = [ln for ln in table_txt.splitlines() if ln.split()[:2] ==
                   [c["scheduler"], str(c["runs"])] and f" {want} %  " in ln]
            if u["n"] != 3 or len(own) != 1:
                fail(f"seeds: 3: {c['scheduler']}: table.txt has no line '{c['scheduler']} "
                     f"{c['runs']} {want} %' (n {u['n']})")
            elif len(point) != 1 or not point[0].endswith(" 3  " + want):
                fail(f"seeds: 3: {c['scheduler']}: plot point {point}, the experiment's own "
                     f"utilization is {want} over 3 seeds")
            else:
                print(f"seeds: 3: {c['scheduler']} ({c['runs']} simulation(s)): point {want} % "
                      "over 3 seeds, as the experiment's table.txt")

    # 3d. a point of equal values (Crux's pinned paths, the same for seed 1 and 2 of the smoke
    # sweep): the mean alone, as FormatInterval prints equal measurements, and a line saying
    # why there is no interval
    with open(os.path.join(two, "plots", "smoke-utilization.txt"), encoding="utf-8") as f:
        txt = f.read()
    crux20 = [ln.split() for ln in txt.splitlines() if ln.startswith("crux ")]
    u20 = [float(r["utilization"]) for r in rows if r["run"] == "crux" and
           r.get("scenario.topology.fabricLinkRate") == "20Gbps"]
    if rows and (len(u20) != 2 or u20[0] != u20[1] or
                 ["crux", "20Gbps", "2", format_interval(u20[0], 0.0, 2, 100.0)] not in crux20 or
                 "the values at that point are equal, no spread" not in txt):
        fail(f"equal values: crux at 20Gbps {u20}, plot lines {crux20}:\n{txt}")

    # 3e. a scenario whose Chakra trace prefix is relative (to the scenario file's directory)
    # under a scenario.* grid key: the derived copy in <out>/scenarios/ holds the prefix made
    # absolute against the original's directory (it used to resolve against the copy's:
    # "missing rank file"); --resume hashes the rank files too, so an edited trace is run again
    sc_dir = os.path.join(work, "chakra-scenario")
    et_src = os.path.join(root, "test", "data", "chakra-et", "custom_collectives",
                          "custom_ring_allreduce_8npus_1MB")
    shutil.copytree(et_src, os.path.join(sc_dir, "et"))
    with open(os.path.join(root, "scenarios", "chakra-ring-bert.json"), encoding="utf-8") as f:
        chakra_sc = json.load(f)
    chakra_sc["jobs"][0]["chakra"] = "et/custom_allreduce"
    chakra_sc["jobs"][0]["iterations"] = 10
    chakra_path = os.path.join(sc_dir, "chakra.json")
    with open(chakra_path, "w", encoding="utf-8") as f:
        json.dump(chakra_sc, f)
    chakra_sweep = os.path.join(work, "chakra-sweep.json")
    with open(chakra_sweep, "w", encoding="utf-8") as f:
        json.dump({"runs": [{"program": "crux-experiment", "name": "c", "options": {
            "scenario": chakra_path, "fabric": "flow", "modes": "ecmp", "quiet": True},
            "grid": {"scenario.topology.fabricLinkRate": ["25Gbps"]}}]}, f)
    co = os.path.join(work, "chakra-out")
    rcc, _, errc = run_sweep(chakra_sweep, f"--out={co}", "--workers=1")
    crow = read_table(os.path.join(co, "table.csv")) if os.path.exists(
        os.path.join(co, "table.csv")) else []
    direct_c = direct_run(work, "crux-experiment", [f"--scenario={chakra_path}",
                                                    "--fabric=flow", "--modes=ecmp"], "chakra")
    with open(os.path.join(direct_c, "summary.json"), encoding="utf-8") as f:
        want_u = json.load(f)["runs"][0]["utilization"]
    with open(os.path.join(co, "scenarios", "c-000.json"), encoding="utf-8") as f:
        derived = json.load(f)["jobs"][0]["chakra"] if rcc == 0 else None
    if rcc != 0 or len(crow) != 1 or crow[0]["status"] != "ok" or \
            derived != os.path.join(sc_dir, "et", "custom_allreduce"):
        fail(f"relative chakra prefix under a scenario grid key: exit {rcc}, derived prefix "
             f"{derived}:\n{errc}")
    elif not same(crow[0]["utilization"], want_u, "chakra run utilization"):
        pass
    else:
        rcr, _, errr = run_sweep(chakra_sweep, f"--out={co}", "--workers=1", "--resume")
        other = os.path.join(root, "test", "data", "chakra-et", "microbenchmarks", "all_reduce",
                             "8npus_1MB")
        for r in range(8):  # another 8-rank trace under the same names
            shutil.copyfile(os.path.join(other, f"all_reduce.{r}.et"),
                            os.path.join(sc_dir, "et", f"custom_allreduce.{r}.et"))
        rce, _, erre = run_sweep(chakra_sweep, f"--out={co}", "--workers=1", "--resume")
        u_edit = read_table(os.path.join(co, "table.csv"))[0]["utilization"]
        if rcr != 0 or "1 run(s) reused" not in errr:
            fail(f"--resume of the unchanged Chakra run: exit {rcr}, expected it reused:\n{errr}")
        elif rce != 0 or "reused" in erre or float(u_edit) == want_u:
            fail(f"--resume after its rank files changed: exit {rce}, utilization {u_edit} "
                 f"against {want_u} before (expected a new run):\n{erre}")
        else:
            print(f"relative chakra prefix: the sweep's run equals the direct run ({want_u}); "
                  f"--resume reuses it, and runs it again when the .et files change ({u_edit})")

    # 3f. progress while a run is going (found by a tester: a sweep of minute-long runs was
    # silent for minutes; the programs' own progress lines went only to the logs): with
    # --progress-every=2 a 7 s run is named with the last line its program wrote, and the
    # table is the one of a sweep without those lines
    prog_path = os.path.join(work, "progress.json")
    with open(prog_path, "w", encoding="utf-8") as f:
        json.dump({"runs": [{"program": "crux-experiment", "name": "pr", "options": {
            "scenario": os.path.join(root, "scenarios", "smoke.json"), "modes": "ecmp",
            "progress": 1, "quiet": True, "scenario.jobs.0.iterations": 12}}]}, f)
    po = os.path.join(work, "progress-out")
    rcp, _, errp = run_sweep(prog_path, f"--out={po}", "--workers=1", "--progress-every=2")
    beats = [ln for ln in errp.splitlines() if ln.startswith("sweep: 0/1 done, 1 under way: "
                                                            "pr-000 ")]
    with_log = [ln for ln in beats if "[crux-experiment: ecmp: sim " in ln]
    po0 = os.path.join(work, "progress-out-0")
    rcp0, _, errp0 = run_sweep(prog_path, f"--out={po0}", "--workers=1", "--progress-every=0")
    if rcp != 0 or not with_log or rcp0 != 0 or "under way" in errp0:
        fail(f"progress while a run is going: exit {rcp}/{rcp0}, lines {beats}:\n{errp}")
    elif open(os.path.join(po, "table.csv"), "rb").read() != \
            open(os.path.join(po0, "table.csv"), "rb").read():
        fail("the progress lines changed table.csv")
    else:
        print(f"progress while a run is going: {len(beats)} line(s), e.g. {with_log[-1]}")

    # 4. a failing run
    bad = os.path.join(work, "failing.json")
    with open(bad, "w", encoding="utf-8") as f:
        json.dump({"name": "failing", "runs": [{
            "program": "crux-trace-run", "name": "t",
            "options": {"days": 0.25, "quiet": True},
            "grid": {"schedulers": ["ecmp", "nosuch"]}}]}, f)
    fo = os.path.join(work, "failing")
    rc4, _, err4 = run_sweep(bad, f"--out={fo}", "--workers=2")
    if rc4 != 1:
        fail(f"failing run: exit {rc4}, expected 1")
    if "1 of 2 run(s) failed" not in err4 or "t-001: crux-trace-run: error: --schedulers: " \
            "unknown scheduler 'nosuch'" not in err4:
        fail(f"failing run not named with its error on stderr:\n{err4}")
    frows = read_table(os.path.join(fo, "table.csv"))
    states = [(r["run_id"], r["run"], r["status"]) for r in frows]
    if states != [("t-000", "ecmp", "ok"), ("t-001", "", "failed")]:
        fail(f"failing sweep rows {states}")
    elif "unknown scheduler 'nosuch'" not in frows[1]["error"] or "exit status 1" not in \
            frows[1]["error"] or "\n" in frows[1]["error"]:
        fail(f"failed row error '{frows[1]['error']}'")
    elif frows[0]["mean_gpu_utilization"] == "":
        fail("the good run of the failing sweep has no numbers")

    # 5. bad sweep files: exit 2, nothing written
    for content, needle in (
            ({"runs": [{"program": "crux-trace-run", "options": {"dayz": 1}}]},
             "runs[0].options.dayz: not an option of crux-trace-run"),
            ({"runs": [{"program": "crux-experiment", "options": {"outputDir": "x"}}]},
             "runs[0].options.outputDir: the sweep sets it"),
            ({"runs": [{"program": "crux-trace-run", "grid": {"seed": []}}]},
             "runs[0].grid.seed: expected a non-empty list"),
            ({"runs": [{"program": "crux-experiment", "options": {
                "scenario": os.path.join(root, "scenarios", "smoke.json"),
                "scenario.topology.nosuch.x": 1}}]},
             "'topology.nosuch' is not in the scenario"),
            ({"runs": [{"program": "crux-trace-run", "grid": {"seed": [float("nan")]}}]},
             "runs[0].grid.seed[0]: nan is not a finite number"),
            ({"runs": [{"program": "crux-trace-run", "options": {"schedulers": "crux, crux"}}]},
             "schedulers: 'crux' is listed twice"),
            # a block's output naming the sweep's own files (found by a tester: 'table.csv'
            # ended in an IsADirectoryError traceback and left table.csv.partial)
            ({"runs": [{"program": "crux-trace-run", "output": "table.csv"}]},
             "runs[0].output: 'table.csv' names the sweep's own 'table.csv'"),
            ({"runs": [{"program": "crux-trace-run", "output": "logs/{days}",
                        "grid": {"days": [0.25]}}]},
             "runs[0].output: 'logs/{days}' (logs/0.25) is inside the sweep's own 'logs'")):
        path = os.path.join(work, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(content, f)
        bo = os.path.join(work, "bad-out")
        rc5, _, err5 = run_sweep(path, f"--out={bo}")
        if rc5 != 2 or needle not in err5 or os.path.exists(bo):
            fail(f"bad sweep file: exit {rc5}, expected 2 with '{needle}' and nothing "
                 f"written:\n{err5}")

    # 5a. values that JSON and a command line cannot carry (a YAML date) and a script that
    # exits: one line, exit 2
    for text, needle in (
            ("import datetime\nSWEEP = {'runs': [{'program': 'crux-trace-run', "
             "'options': {'days': datetime.date(2023, 1, 1)}}]}\n",
             "runs[0].options.days: 2023-01-01 is a date, not a number"),
            ("import sys\nsys.exit(3)\n", "SystemExit: 3")):
        path = os.path.join(work, "bad.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        bo = os.path.join(work, "bad-out")
        rc5, _, err5 = run_sweep(path, f"--out={bo}")
        if rc5 != 2 or needle not in err5 or len(err5.strip().splitlines()) != 1:
            fail(f"bad Python sweep: exit {rc5}, expected 2 with '{needle}':\n{err5}")

    # 5b. a sweep written in Python: its runs listed (--list runs nothing)
    rc7, out7, err7 = run_sweep(os.path.join(root, "sweeps", "trace-load.py"),
                                f"--out={os.path.join(work, 'py')}", "--list")
    listed = [ln for ln in out7.splitlines() if ln.startswith("load-")]
    if rc7 != 0 or len(listed) != 9 or "--jobsPerDay=1110 --seed=3" not in listed[-1] or \
            os.path.exists(os.path.join(work, "py")):
        fail(f"sweeps/trace-load.py --list: exit {rc7}:\n{out7}\n{err7}")

    # 5c. Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while a run is
    # going: exit 130 and the sweep's one documented line, nothing else (found by a tester:
    # ~45 lines of Dask worker tracebacks; and with dask-jobqueue, whose import set SIGINT to
    # sys.exit(), exit 0 with no word), and no simulation left running
    def interrupt(tag, *extra):
        long_sweep = os.path.join(work, "long.json")
        with open(long_sweep, "w", encoding="utf-8") as f:
            json.dump({"runs": [{"program": "crux-experiment", "name": "long", "options": {
                "scenario": os.path.join(root, "scenarios", "sec22-gpt-bert.json"),
                "modes": "ecmp", "quiet": True}, "grid": {"seed": [1, 2]}}]}, f)
        lo = os.path.join(work, f"interrupt-{tag}")
        p = subprocess.Popen([sys.executable, sweep, long_sweep, f"--out={lo}", f"--bin={bindir}",
                              *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        log = os.path.join(lo, "logs", "long-000.stderr")
        t0 = time.monotonic()
        while not os.path.exists(log) and time.monotonic() - t0 < 60 and p.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)  # the simulation is under way
        os.killpg(p.pid, signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        lines = [ln for ln in err.splitlines() if not ln.startswith("sweep: ")]
        left = subprocess.run(["pgrep", "-f", f"--outputDir={lo}/"], capture_output=True,
                              text=True).stdout.split()
        want = ["sweep.py: interrupted; the runs that completed are kept (--resume reuses them)"]
        if p.returncode != 130 or lines != want or left:
            fail(f"Ctrl-C ({tag}): exit {p.returncode}, expected 130 and only the line "
                 f"'{want[0]}'; simulations left: {left}:\n{err}")
        else:
            print(f"Ctrl-C ({tag}): exit 130, one line")
    interrupt("local", "--workers=1")
    interrupt("jobqueue", "--cluster=local-jobs", "--cluster-option=cores=1",
              "--cluster-option=memory=2GB", "--cluster-option=processes=1")

    # 6. the SLURM job script (nothing is submitted)
    rc6, out6, err6 = run_sweep(smoke_flow, f"--out={os.path.join(work, 'slurm')}",
                                "--cluster=slurm", "--print-job-script",
                                "--cluster-option=cores=8", "--cluster-option=memory=16GB",
                                "--cluster-option=processes=1")
    if rc6 != 0 or "#SBATCH --cpus-per-task=8" not in out6 or \
            "distributed.cli.dask_worker" not in out6 or "--nthreads 8" not in out6:
        fail(f"--print-job-script: exit {rc6}:\n{out6}\n{err6}")
finally:
    shutil.rmtree(work, ignore_errors=True)

if fails:
    print(f"check-sweep: {len(fails)} failure(s)")
    sys.exit(1)
print("check-sweep: OK")
