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
"""Python version of the crux-experiment program, through the cppyy bindings.

Builds a small two-job cluster scenario in Python (or reads a scenario file), runs it under
ECMP and Crux with the module's C++ experiment driver (ns3::CruxExperiment), and prints the
per-job mean iteration times, priority levels and the cluster GPU utilization read back from
the C++ result objects. Same scenario and seed -> the same numbers as the C++ program
(test/python/test_bindings.py checks this).

    build/venv/bin/python examples/crux-experiment.py                  # built-in scenario
    build/venv/bin/python examples/crux-experiment.py --fabric=packet  # packet-level fabric
    build/venv/bin/python examples/crux-experiment.py \\
        --scenario=scenarios/sec22-gpt-bert.json --modes=alone,ecmp,crux --outputDir=out

--outputDir also writes the result files of the C++ program (summary.json, jobs.csv, ...).
Environment: CRUX_BUILD_DIR (default <clone>/build), see bindings/python/crux/__init__.py.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings",
                                "python"))

import crux  # noqa: E402


def small_scenario(fabric="flow", seed=1, output_dir="results/python-small"):
    """A scaled-down Crux §2.2 shape, built field by field as an ns3::Scenario.

    2 ToRs x 4 hosts (8 GPUs and one 100 Gbit/s NIC each) and 2 aggregation switches with
    20 Gbit/s ToR-aggregation links. "big" (GPT, 4 hosts x 8 GPUs, 48 MB gradients, 50 ms
    compute, 4 iterations) and "small" (BERT-large, 4 hosts x 4 GPUs, 8 MB, 10 ms, background)
    cross the aggregation layer. Equal to the JSON scenario of the ns-3 test suite
    crux-experiment (test/crux-experiment-test-suite.cc, SmallScenario).

    :param fabric: "flow" (fluid, fast) or "packet" (RoCEv2 packet level)
    :param seed: ns-3 RNG seed (>= 1)
    :param output_dir: where WriteResults() puts the files
    :return: ns3::Scenario (validated)
    """
    ns = crux.load()
    s = ns.Scenario()
    s.source = "examples/crux-experiment.py"
    s.name = "small-contention"
    t = s.topology
    t.type = "clos"
    t.tors = 2
    t.aggs = 2
    t.hostsPerTor = 4
    t.gpusPerHost = 8
    t.nicsPerHost = 1
    t.hostLinkRate = "100Gbps"
    t.fabricLinkRate = "20Gbps"
    for name, model, hosts, gpus, grad, compute, iters, background in (
            ("big", "gpt", [0, 1, 4, 5], 8, 48e6, 0.05, 4, False),
            ("small", "bert-large", [2, 3, 6, 7], 4, 8e6, 0.01, 3, True)):
        j = ns.ScenarioJob()
        j.name = name
        j.model = model
        for h in hosts:
            j.hosts.push_back(h)
        j.gpusPerHost = gpus
        j.gradientBytes = grad
        j.computeTime = compute
        j.iterations = iters
        j.background = background
        s.jobs.push_back(j)
    s.scheduler = "crux"
    s.priorityLevels = 8
    s.profileIterations = 1
    s.seed = seed
    s.fabric = fabric
    s.outputDir = output_dir
    s.Validate()
    return s


def run_experiment(scenario, modes):
    """Run `scenario` under each mode with ns3::CruxExperiment.

    :param scenario: ns3::Scenario
    :param modes: list of "alone" and/or scheduler names (ns.KnownCommSchedulers())
    :return: (the CruxExperiment, its std::vector<ExperimentRunResult>)
    :raises cppyy.gbl.ns3.ExperimentError / ScenarioError: bad input (one line naming the field)
    """
    ns = crux.load()
    experiment = ns.CruxExperiment(scenario)
    runs = experiment.Run(list(modes))
    return experiment, runs


def runs_as_dicts(runs):
    """The C++ run results as plain Python values (same keys as the C++ program's summary.json).

    :param runs: std::vector<ExperimentRunResult>
    :return: list (one per run) of dicts with run, scheduler, complete, windowStart, windowEnd,
             utilization (dimensionless), simulatedTime (s), pauseFrames, and jobs: list of
             dicts name, model, gpus, level, dscp, intensity (FLOP/s), schedulerCommTime (s),
             k, reroutedFlows, measuredIterations, meanIterationTime (s), throughput
             (iterations/s), meanCommTime (s), jct (s; -1 if not finished)
    """
    out = []
    for r in runs:
        jobs = []
        for j in r.jobs:
            jobs.append({
                "name": str(j.name),
                "model": str(j.model),
                "gpus": int(j.gpus),
                "hosts": [int(h) for h in j.hosts],
                "level": int(j.level),
                "dscp": int(j.dscp),
                "intensity": float(j.intensity),
                "schedulerCommTime": float(j.schedulerCommTime),
                "k": float(j.k),
                "reroutedFlows": int(j.reroutedFlows),
                "measuredIterations": int(j.measuredIterations),
                "meanIterationTime": float(j.meanIterationTime),
                "throughput": float(j.throughput),
                "meanCommTime": float(j.meanCommTime),
                "jct": float(j.jct),
            })
        out.append({
            "run": str(r.run),
            "scheduler": str(r.scheduler),
            "complete": bool(r.complete),
            "windowStart": float(r.windowStart),
            "windowEnd": float(r.windowEnd),
            "utilization": float(r.utilization),
            "simulatedTime": float(r.simulatedTime),
            "pauseFrames": int(r.pauseFrames),
            "jobs": jobs,
        })
    return out


def message_lines(e):
    """The lines of an error's message: cppyy puts the C++ signature first (ending with "=>")
    and the exception type and message after it; a run error of several stuck jobs has one
    line per job."""
    lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith("=>"):
        lines = lines[1:]
    return lines or [type(e).__name__]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", help="scenario file (JSON); default: a built-in "
                        "two-job scenario (small_scenario())")
    parser.add_argument("--modes", default="ecmp,crux",
                        help="comma-separated runs: alone and/or scheduler names "
                        "(default ecmp,crux)")
    parser.add_argument("--fabric", choices=("flow", "packet"),
                        help="override the fabric (built-in scenario: flow)")
    parser.add_argument("--seed", type=int, help="override the seed (>= 1)")
    parser.add_argument("--outputDir", help="write the C++ result files here")
    args = parser.parse_args(argv)

    ns = crux.load()
    try:
        if args.scenario:
            scenario = ns.Scenario.Load(args.scenario)
        else:
            scenario = small_scenario()
        if args.fabric:
            scenario.fabric = args.fabric
        if args.seed is not None:
            scenario.seed = args.seed
        if args.outputDir:
            scenario.outputDir = args.outputDir
        modes = [m for m in args.modes.split(",") if m]
        ns.CruxExperiment.CheckModes(modes)
        experiment, runs = run_experiment(scenario, modes)
        if args.outputDir:
            experiment.WriteResults(runs)
    except Exception as e:  # bad input, and the C++ run errors (a watchdog, stuck jobs)
        for line in message_lines(e):
            print("crux-experiment.py: error: " + line, file=sys.stderr)
        return 1

    print("scenario %s, fabric %s, seed %d" % (scenario.name, scenario.fabric, scenario.seed))
    print("%-14s %-10s %5s %6s %16s %14s" % ("run", "job", "level", "iters",
                                            "mean iter time s", "throughput/s"))
    for r in runs_as_dicts(runs):
        for j in r["jobs"]:
            print("%-14s %-10s %5d %6d %16.9f %14.6f" % (
                r["run"], j["name"], j["level"], j["measuredIterations"],
                j["meanIterationTime"], j["throughput"]))
    for r in runs_as_dicts(runs):
        print("cluster GPU utilization %-14s %.6f" % (r["run"], r["utilization"]))
    if args.outputDir:
        print("results written to %s/" % args.outputDir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
