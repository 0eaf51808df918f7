#!/usr/bin/env python3
"""Bus bandwidth of crux's all-reduce algorithms on DGX-A100-class hosts (doc/crux.rst,
"NCCL's collectives"): 8 GPUs and 8 x 200 Gbit/s NICs per host (rail-wired Clos, NVLink and
PCIe links on), flow fabric, one all-reduce of --bytes over every GPU of --hosts hosts, for
each algorithm of --algorithms (the "classic-*" ones are crux's algorithms before issue 28).

Usage: algorithms.py --bin <dir holding crux-experiment> [--hosts 2 16] [--bytes 1073741824]
                     [--algorithms nccl ring tree hierarchical classic-ring ...] [--jobs N]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile


def scenario(hosts, algorithm, nbytes):
    nics = 8
    groups = max(1, hosts // 8)  # at most 8 hosts under one group of 8 rail ToRs
    return {
        "name": f"{algorithm}-{hosts}",
        "topology": {"type": "clos", "tors": nics * groups, "aggs": 8,
                     "hostsPerTor": hosts // groups, "gpusPerHost": 8, "nicsPerHost": nics,
                     "hostLinkRate": "200Gbps", "fabricLinkRate": "200Gbps",
                     "linkDelay": "1us", "wiring": "rail", "pfc": True,
                     "intraHost": {"enabled": True}},
        "jobs": [{"name": "allreduce", "model": "gpt", "hosts": list(range(hosts)),
                  "gpusPerHost": 8, "iterations": 2, "computeTime": 0,
                  "gradientBytes": nbytes,
                  "parallelism": {"tp": 1, "pp": 1, "dp": hosts * 8},
                  "collectives": {"allReduce": algorithm}, "overlap": {"buckets": 1}}],
        "fabric": "flow", "scheduler": "ecmp", "profileIterations": 0, "seed": 1,
        "stopTime": 60,
    }


def run(binary, hosts, algorithm, nbytes):
    with tempfile.TemporaryDirectory(prefix="crux-algorithms-") as tmp:
        s = scenario(hosts, algorithm, nbytes)
        s["outputDir"] = os.path.join(tmp, "out")
        path = os.path.join(tmp, "s.json")
        with open(path, "w") as f:
            json.dump(s, f)
        p = subprocess.run([os.path.join(binary, "crux-experiment"), f"--scenario={path}",
                            "--modes=alone", "--quiet"], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{algorithm} on {hosts} hosts: {p.stderr.strip()}")
        with open(os.path.join(tmp, "out", "jobs.csv")) as f:
            t = float(next(csv.DictReader(f))["mean_comm_s"])
    n = hosts * 8
    return nbytes / t * 2 * (n - 1) / n / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--hosts", type=int, nargs="*", default=[2, 16])
    ap.add_argument("--bytes", type=int, default=1 << 30)
    ap.add_argument("--algorithms", nargs="*",
                    default=["classic-ring", "classic-tree", "classic-hierarchical", "ring",
                             "tree", "hierarchical", "nccl"])
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    cases = [(h, al) for h in a.hosts for al in a.algorithms]
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        fut = {ex.submit(run, a.bin, h, al, a.bytes): (h, al) for h, al in cases}
        for f in concurrent.futures.as_completed(fut):
            out[fut[f]] = f.result()
    print(f"{'algorithm':22}" + "".join(f"{str(h) + ' hosts':>12}" for h in a.hosts))
    for al in a.algorithms:
        print(f"{al:22}" + "".join(f"{out[(h, al)]:12.1f}" for h in a.hosts))
    print(f"(all-reduce busbw in GB/s, {a.bytes} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
