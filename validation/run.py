#!/usr/bin/env python3
"""crux's validation suite: published hardware measurements against crux's simulation.

Two kinds of published measurements, one JSON file each (its source, the hardware and software
it was measured on, the measured number and the crux scenario that models it; all on the flow
fabric):

* validation/nccl-tests/*.json: an nccl-tests all-reduce. The scenario is one job whose only
  traffic is the measured all-reduce (a data-parallel plan over all its GPUs, one gradient
  bucket of the measured size, no compute). The job's all-reduce time t (jobs.csv,
  mean_comm_s) gives the bus bandwidth as nccl-tests defines it: S / t x 2 (n - 1) / n.
* validation/megatron/*.json: a Megatron-LM training throughput. The scenario is the training
  job as published (model shape, plan, global batch, micro-batch, GPU, precision,
  recomputation, optimizer: crux's training-step fields) for a few iterations; the steady-state
  iteration time T (jobs.csv, mean_iteration_s: the iterations after warmupIterations) gives
  TFLOP/s per GPU as Megatron counts them: F / T / GPUs, F being crux's FLOPs per iteration of
  the job (jobs.csv, flops_per_iteration: globalBatch x TrainingFlopsPerSequence, the formula of
  Megatron's num_floating_point_operations, training-step.cc). F counts executed FLOPs, so such
  a row must not recompute (Megatron counts model FLOPs); the runner refuses one that does.

This script runs every scenario with crux-experiment (mode "alone") and prints, per
measurement, the published number, the simulated one and the error.

The suite is a report, not a tuning target: no model constant is chosen to reduce an error.

Usage:
  run.py --bin <dir holding crux-experiment> [--only <name>...] [--kind nccl-tests|megatron]
         [--jobs N]
         [--check <expected.csv>] [--update <expected.csv>]
--check compares the simulated numbers with a recorded file (relative 1e-6; exit 1 on a
difference or a failed run): the ctest entry uses it so that the numbers stay reproducible.
--update rewrites that file (with the measurements run only: use it without --only/--kind).
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

# kind -> (directory, unit of the simulated number in expected.csv)
KINDS = {"nccl-tests": ("nccl-tests", "busbw_GBps"),
         "megatron": ("megatron", "tflops_per_gpu")}


def load(path, kind):
    with open(path) as f:
        v = json.load(f)
    for key in ("name", "measurement", "source", "hardware", "software", "scenario"):
        if key not in v:
            raise SystemExit(f"{path}: missing field '{key}'")
    v["kind"] = kind
    if kind == "megatron":
        job = v["scenario"]["jobs"][0]
        if job.get("recompute", "none") != "none":
            raise SystemExit(f"{path}: recompute '{job['recompute']}': crux's flops_per_iteration "
                             "would count the recomputation, Megatron's TFLOP/s do not")
    return v


def ranks(scenario):
    job = scenario["jobs"][0]
    return len(job["hosts"]) * job["gpusPerHost"]


def run_alone(binary, v):
    """Run the measurement's scenario alone; return (its job's jobs.csv row, summary.json)."""
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
        with open(os.path.join(tmp, "out", "summary.json")) as f:
            summary = json.load(f)
    return rows[0], summary


def simulate(binary, v):
    """Return (simulated number in the kind's unit, dict of details)."""
    row, summary = run_alone(binary, v)
    n = ranks(v["scenario"])
    if v["kind"] == "nccl-tests":
        t = float(row["mean_comm_s"])
        s = float(v["measurement"]["bytes"])
        return s / t * 2 * (n - 1) / n / 1e9, {"t": t}
    t = float(row["mean_iteration_s"])
    flops = float(row["flops_per_iteration"])
    return flops / t / n / 1e12, {"t": t, "flops": flops,
                                  "iterations": int(row["measured_iterations"])}


def published(v):
    m = v["measurement"]
    return float(m["busbwGBps"] if v["kind"] == "nccl-tests" else m["tflopsPerGpu"])


def print_nccl(items, results):
    head = f"{'measurement':34} {'ranks':>5} {'size':>9} {'published':>10} {'simulated':>10} " \
           f"{'error':>8}  source"
    print(head)
    print("-" * len(head))
    for v in items:
        if v["name"] not in results:
            continue
        sim, _ = results[v["name"]]
        pub = published(v)
        size = float(v["measurement"]["bytes"])
        size_s = f"{size / 2**30:g} GiB" if size >= 2**30 else f"{size / 2**20:g} MiB"
        print(f"{v['name']:34} {ranks(v['scenario']):5d} {size_s:>9} {pub:10.2f} {sim:10.2f} "
              f"{(sim - pub) / pub * 100:+7.1f}%  {v['source']['short']}")
    print("(bus bandwidth in GB/s, nccl-tests' definition; error = (simulated - published) / "
          "published)")


def print_megatron(items, results):
    head = f"{'measurement':34} {'GPUs':>5} {'iter s':>8} {'published':>10} {'simulated':>10} " \
           f"{'error':>8}  source"
    print(head)
    print("-" * len(head))
    for v in items:
        if v["name"] not in results:
            continue
        sim, d = results[v["name"]]
        pub = published(v)
        print(f"{v['name']:34} {ranks(v['scenario']):5d} {d['t']:8.4f} {pub:10.1f} {sim:10.1f} "
              f"{(sim - pub) / pub * 100:+7.1f}%  {v['source']['short']}")
    print("(TFLOP/s per GPU as Megatron counts them: FLOPs per iteration / steady-state "
          "iteration time / GPUs; error = (simulated - published) / published)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--kind", choices=sorted(KINDS), default=None,
                    help="only the measurements of one kind")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--check", default=None)
    ap.add_argument("--update", default=None)
    a = ap.parse_args()

    items = []
    for kind, (sub, _) in KINDS.items():
        items += [load(p, kind) for p in sorted(glob.glob(os.path.join(HERE, sub, "*.json")))]
    if a.kind:
        items = [v for v in items if v["kind"] == a.kind]
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

    nccl = [v for v in items if v["kind"] == "nccl-tests"]
    megatron = [v for v in items if v["kind"] == "megatron"]
    if nccl:
        print_nccl(nccl, results)
    if nccl and megatron:
        print()
    if megatron:
        print_megatron(megatron, results)

    if a.update:
        with open(a.update, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["measurement", "simulated", "unit"])
            for v in items:
                if v["name"] in results:
                    w.writerow([v["name"], repr(results[v["name"]][0]), KINDS[v["kind"]][1]])
    if a.check:
        want = {}
        with open(a.check) as f:
            for row in csv.DictReader(f):
                want[row["measurement"]] = float(row["simulated"])
        for v in items:
            name = v["name"]
            if name not in want:
                errors.append(f"{name}: not in {a.check}")
            elif name in results and abs(results[name][0] - want[name]) > 1e-6 * want[name]:
                errors.append(f"{name}: simulated {results[name][0]!r} "
                              f"{KINDS[v['kind']][1]}, recorded {want[name]!r}")
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
