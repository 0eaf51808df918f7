#!/usr/bin/env python3
"""Byte-identity check of crux's result files (issue 13: refactoring must not move a number).

Runs a fixed set of real runs -- every shipped scenario (packet and flow fabric, every
scheduler), a sample of §4.4 microbenchmark cases and trace-driven cluster runs (epoch and flow
engines) -- and compares the SHA-256 of every result file with test/golden/digests.txt.
Wall-clock values are not results: timing.csv is skipped, and JSON lines / CSV columns that
hold wall seconds are removed before hashing (WALL_KEYS, WALL_COLUMNS below).

Usage:
  golden.py --bin <dir holding crux-experiment, crux-trace-run, crux-microbenchmark>
            [--root <module root>] [--update] [--only <run name>...] [--jobs N]
Exit 0: every digest matches (or --update wrote them); 1: a digest differs or a run failed
(each difference is one line naming the run and the file).

When a model change is meant to move numbers, rerun with --update and say why in the commit.
"""
import argparse
import concurrent.futures
import csv
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import time

ALL_SCHEDULERS = "ecmp,crux,sincronia,varys,taccl,cassini,crux-pa,crux-ps-pa"

# (name, program, arguments); {out} is the run's output directory (or file for the
# microbenchmark), {root} the module root.
RUNS = [
    ("smoke-packet", "crux-experiment",
     ["--scenario={root}/scenarios/smoke.json", "--outputDir={out}", "--quiet",
      "--modes=alone," + ALL_SCHEDULERS]),
    ("smoke-packet-pinned", "crux-experiment",
     ["--scenario={root}/scenarios/smoke.json", "--outputDir={out}", "--quiet",
      "--modes=crux,taccl", "--pathEnforcement=pinned"]),
    ("smoke-flow", "crux-experiment",
     ["--scenario={root}/scenarios/smoke.json", "--outputDir={out}", "--quiet",
      "--fabric=flow", "--modes=alone," + ALL_SCHEDULERS]),
    ("sec22-packet", "crux-experiment",
     ["--scenario={root}/scenarios/sec22-gpt-bert.json", "--outputDir={out}", "--quiet"]),
    ("sec22-flow", "crux-experiment",
     ["--scenario={root}/scenarios/sec22-gpt-bert.json", "--outputDir={out}", "--quiet",
      "--fabric=flow", "--modes=alone," + ALL_SCHEDULERS]),
    ("testbed-packet", "crux-experiment",
     ["--scenario={root}/scenarios/testbed-gpt-bert.json", "--outputDir={out}", "--quiet"]),
    ("testbed-flow", "crux-experiment",
     ["--scenario={root}/scenarios/testbed-gpt-bert.json", "--outputDir={out}", "--quiet",
      "--fabric=flow", "--modes=alone," + ALL_SCHEDULERS]),
    ("three-tier-flow", "crux-experiment",
     ["--scenario={root}/scenarios/three-tier.json", "--outputDir={out}", "--quiet",
      "--fabric=flow", "--modes=alone," + ALL_SCHEDULERS]),
    ("double-sided-flow", "crux-experiment",
     ["--scenario={root}/scenarios/double-sided.json", "--outputDir={out}", "--quiet",
      "--fabric=flow", "--modes=alone," + ALL_SCHEDULERS]),
    ("double-sided-packet", "crux-experiment",
     ["--scenario={root}/scenarios/double-sided.json", "--outputDir={out}", "--quiet",
      "--modes=alone," + ALL_SCHEDULERS]),
    ("double-sided-packet-pinned", "crux-experiment",
     ["--scenario={root}/scenarios/double-sided.json", "--outputDir={out}", "--quiet",
      "--modes=crux,taccl", "--pathEnforcement=pinned"]),
    ("microbenchmark", "crux-microbenchmark",
     ["--cases=12", "--output={out}/micro.csv", "--quiet", "--threads=1"]),
    ("trace-clos-epoch", "crux-trace-run",
     ["--topology=clos", "--placement=random", "--schedulers=" + ALL_SCHEDULERS,
      "--days=2", "--windowEnd=1d", "--outputDir={out}", "--quiet"]),
    ("trace-double-sided-epoch", "crux-trace-run",
     ["--topology=double-sided", "--placement=locality", "--schedulers=ecmp,crux",
      "--days=1", "--windowEnd=12h", "--workModel=duration", "--outputDir={out}", "--quiet",
      # one run after the other on two threads each: the files are those of one thread
      "--jobs=1", "--threads=2"]),
    ("trace-lingjun-epoch", "crux-trace-run",
     ["--topology=lingjun", "--topoCsv={root}/data/lingjun-2023/topo.csv",
      "--placement=buddy", "--schedulers=ecmp,crux,crux-pa", "--days=1", "--windowEnd=12h",
      "--outputDir={out}", "--quiet"]),
    ("trace-clos-flow", "crux-trace-run",
     ["--topology=clos", "--placement=random", "--schedulers=ecmp,crux", "--engine=flow",
      "--days=1", "--windowStart=12h", "--windowEnd=735m", "--drain=3m", "--outputDir={out}",
      "--quiet"]),
]

WALL_KEYS = ("wall_seconds", "scheduler_seconds", "evaluator_seconds", "wallSeconds")
WALL_COLUMNS = ("seconds",)
SKIP_FILES = ("timing.csv",)


def canonical(path, out, root):
    """Bytes of a result file with the wall-clock values taken out and the (temporary) output
    directory and the module root written as {out} and {root}."""
    data = open(path, "rb").read().replace(out.encode(), b"{out}").replace(root.encode(),
                                                                           b"{root}")
    name = os.path.basename(path)
    if name.endswith(".json"):
        lines = data.decode().splitlines(keepends=True)
        keep = [l for l in lines if not any(f'"{k}"' in l for k in WALL_KEYS)]
        return "".join(keep).encode()
    if name.endswith(".csv") and data:
        rows = list(csv.reader(io.StringIO(data.decode())))
        drop = [i for i, h in enumerate(rows[0]) if h in WALL_COLUMNS]
        if drop:
            out = io.StringIO()
            w = csv.writer(out, lineterminator="\n")
            for r in rows:
                w.writerow([c for i, c in enumerate(r) if i not in drop])
            return out.getvalue().encode()
    return data


def run_one(run, bindir, root, work):
    name, prog, args = run
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True) if prog == "crux-microbenchmark" else None
    cmd = [os.path.join(bindir, prog)] + [a.format(out=out, root=root) for a in args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if proc.returncode != 0:
        return name, None, f"{name}: {' '.join(cmd)} exited {proc.returncode}: " \
                           f"{proc.stderr.strip().splitlines()[-1:] }"
    digests = {}
    for dirpath, _, files in os.walk(out):
        for f in files:
            if f in SKIP_FILES:
                continue
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, out)
            digests[rel] = hashlib.sha256(canonical(p, out, root)).hexdigest()
    print(f"golden: {name}: {len(digests)} files, {seconds:.1f} s", file=sys.stderr, flush=True)
    return name, digests, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    table = os.path.join(a.root, "test", "golden", "digests.txt")
    runs = [r for r in RUNS if a.only is None or r[0] in a.only]
    unknown = set(a.only or []) - {r[0] for r in RUNS}
    if unknown:
        print(f"golden.py: --only: unknown run(s) {sorted(unknown)}", file=sys.stderr)
        return 1
    want = {}
    if os.path.exists(table):
        for line in open(table):
            if line.strip() and not line.startswith("#"):
                run, rel, digest = line.split()
                want[(run, rel)] = digest
    got, errors = {}, []
    with tempfile.TemporaryDirectory(prefix="crux-golden-") as work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            for name, digests, err in ex.map(lambda r: run_one(r, a.bin, a.root, work), runs):
                if err:
                    errors.append(err)
                    continue
                for rel, d in digests.items():
                    got[(name, rel)] = d
    if errors:
        print("\n".join(errors))
        return 1
    if a.update:
        kept = {k: v for k, v in want.items() if k[0] not in {r[0] for r in runs}}
        kept.update(got)
        with open(table + ".tmp", "w") as f:
            f.write("# run file sha256 -- written by test/golden/golden.py --update; "
                    "see its docstring\n")
            for (run, rel) in sorted(kept):
                f.write(f"{run} {rel} {kept[(run, rel)]}\n")
        os.replace(table + ".tmp", table)
        print(f"golden: wrote {len(kept)} digests to {table}")
        return 0
    bad = []
    names = {r[0] for r in runs}
    for key in sorted(set(want) | set(got)):
        if key[0] not in names:
            continue
        if key not in got:
            bad.append(f"{key[0]}: {key[1]} missing from the run")
        elif key not in want:
            bad.append(f"{key[0]}: {key[1]} is new (no digest kept)")
        elif want[key] != got[key]:
            bad.append(f"{key[0]}: {key[1]} differs")
    if bad:
        print("\n".join(bad))
        print(f"golden: {len(bad)} of {len(got)} files differ")
        return 1
    print(f"golden: {len(got)} files of {len(names)} runs byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
