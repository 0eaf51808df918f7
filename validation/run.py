#!/usr/bin/env python3
"""crux's validation suite: published hardware measurements against crux's simulation.

Every file validation/nccl-tests/*.json is one published nccl-tests measurement (its source,
the hardware and software it was measured on, the message size and the bus bandwidth) with the
crux scenario that models it: one job whose only traffic is the measured all-reduce (a
data-parallel plan over all its GPUs, one gradient bucket of the measured size, no compute),
on the flow fabric. This script runs every scenario with crux-experiment (mode "alone"), takes
the job's all-reduce time t (jobs.csv, mean_comm_s) and prints, per measurement, the published
bus bandwidth, the simulated one (nccl-tests' definition: S / t x 2 (n - 1) / n) and the error.

The suite is a report, not a tuning target: no model constant is chosen to reduce an error.

Usage:
  run.py --bin <dir holding crux-experiment> [--only <name>...] [--jobs N]
         [--check <expected.csv>] [--update <expected.csv>]
--check compares the simulated bus bandwidths with a recorded file (relative 1e-6; exit 1 on a
difference or a failed run): the ctest entry uses it so that the numbers stay reproducible.
--update rewrites that file.
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(path) as f:
        v = json.load(f)
    for key in ("name", "measurement", "source", "hardware", "software", "scenario"):
        if key not in v:
            raise SystemExit(f"{path}: missing field '{key}'")
    return v


def ranks(scenario):
    job = scenario["jobs"][0]
    return len(job["hosts"]) * job["gpusPerHost"]


def simulate(binary, v):
    """Run the measurement's scenario; return (busbw GB/s, all-reduce seconds)."""
    with tempfile.TemporaryDirectory(prefix="crux-validation-") as tmp:
        scenario = dict(v["scenario"])
        scenario["outputDir"] = os.path.join(tmp, "out")
        path = os.path.join(tmp, "scenario.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        cmd = [os.path.join(binary, "crux-experiment"), f"--scenario={path}", "--modes=alone",
               "--quiet"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{v['name']}: crux-experiment failed: {p.stderr.strip()}")
        with open(os.path.join(tmp, "out", "jobs.csv")) as f:
            rows = list(csv.DictReader(f))
        t = float(rows[0]["mean_comm_s"])
    s = float(v["measurement"]["bytes"])
    n = ranks(v["scenario"])
    return s / t * 2 * (n - 1) / n / 1e9, t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--check", default=None)
    ap.add_argument("--update", default=None)
    a = ap.parse_args()

    files = sorted(glob.glob(os.path.join(HERE, "nccl-tests", "*.json")))
    items = [load(p) for p in files]
    if a.only:
        unknown = set(a.only) - {v["name"] for v in items}
        if unknown:
            raise SystemExit("unknown measurement(s): " + ", ".join(sorted(unknown)))
        items = [v for v in items if v["name"] in a.only]

    results = {}
    errors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futures = {ex.submit(simulate, a.bin, v): v for v in items}
        for fut in concurrent.futures.as_completed(futures):
            v = futures[fut]
            try:
                results[v["name"]] = fut.result()
            except RuntimeError as e:
                errors.append(str(e))

    head = f"{'measurement':34} {'ranks':>5} {'size':>9} {'published':>10} {'simulated':>10} " \
           f"{'error':>8}  source"
    print(head)
    print("-" * len(head))
    for v in items:
        if v["name"] not in results:
            continue
        m = v["measurement"]
        sim, _ = results[v["name"]]
        pub = float(m["busbwGBps"])
        err = (sim - pub) / pub * 100
        size = float(m["bytes"])
        size_s = f"{size / 2**30:g} GiB" if size >= 2**30 else f"{size / 2**20:g} MiB"
        print(f"{v['name']:34} {ranks(v['scenario']):5d} {size_s:>9} {pub:10.2f} {sim:10.2f} "
              f"{err:+7.1f}%  {v['source']['short']}")
    print("(bus bandwidth in GB/s, nccl-tests' definition; error = (simulated - published) / "
          "published)")

    if a.update:
        with open(a.update, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["measurement", "simulated_busbw_GBps"])
            for v in items:
                if v["name"] in results:
                    w.writerow([v["name"], repr(results[v["name"]][0])])
    if a.check:
        want = {}
        with open(a.check) as f:
            for row in csv.DictReader(f):
                want[row["measurement"]] = float(row["simulated_busbw_GBps"])
        for v in items:
            name = v["name"]
            if name not in want:
                errors.append(f"{name}: not in {a.check}")
            elif name in results and abs(results[name][0] - want[name]) > 1e-6 * want[name]:
                errors.append(f"{name}: simulated {results[name][0]!r} GB/s, recorded "
                              f"{want[name]!r} GB/s")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
