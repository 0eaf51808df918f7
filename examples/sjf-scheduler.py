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
"""A scheduler written in Python: "shortest job first" (SJF) priorities, run beside ECMP and Crux.

SjfScheduler subclasses the C++ scheduler interface ns3::CommScheduler through cppyy and is
registered under the short name "sjf"; it then runs wherever the built-in schedulers run:

1. a scenario run (ns3::CruxExperiment, flow or packet fabric): <outputDir>/scenario/;
2. a trace run (ns3::ClusterRun, epoch engine) on a generated one-day trace, one
   subdirectory per scheduler: <outputDir>/trace/sjf/ beside .../ecmp/ and .../crux/;
3. the Crux §4.4 microbenchmark's end-to-end score (ns3::RunStageAblation, column e2e.sjf).

"Shortest job" here is the job with the fewest bytes to send per training iteration (the sum of
SchedFlow::bytesPerIteration over the job's flows): the communication analogue of SJF / smallest
coflow first. The scheduler input has no remaining work (no iteration counts), so "shortest
remaining work" is not an option at this interface. Ties go to the smaller job id. Every flow
keeps its ECMP default path; rank r gets level K-1-r while r < K-1 and the rest share level 0
(TopRankLevel, the rule Sincronia uses).

    build/venv/bin/python examples/sjf-scheduler.py                     # results/sjf
    build/venv/bin/python examples/sjf-scheduler.py --fabric=packet --cases=5 --outputDir=/tmp/sjf

Environment: CRUX_BUILD_DIR (default <clone>/build), see bindings/python/crux/__init__.py.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings",
                                "python"))

import crux  # noqa: E402

ns = crux.load()


def job_bytes(job):
    """Bytes job `job` (ns3::SchedJob) sends per iteration over all its flows."""
    return sum(float(f.bytesPerIteration) for f in job.flows)


class SjfScheduler(ns.CommScheduler):
    """Shortest job first: fewest bytes per iteration -> highest level (see the module doc)."""

    def DoSchedule(self, model, config):
        # MakeDefaultDecision: ECMP default paths, level 0, t_j and I_j on the default paths.
        decision = ns.MakeDefaultDecision(model, config, self.GetName())
        order = sorted(model.jobs, key=lambda j: (job_bytes(j), int(j.id)))
        for rank, job in enumerate(order):
            jd = decision.jobs[job.id]
            jd.rank = rank
            jd.level = ns.TopRankLevel(rank, config.numLevels)
        return decision  # Schedule() checks it (every job and flow decided, levels < K, ...)


def register(name="sjf"):
    """Register SjfScheduler under `name` (once per process)."""
    if name not in [str(n) for n in ns.KnownCommSchedulers()]:
        crux.register_scheduler(name, SjfScheduler)


def run_scenario(scenario_path, fabric, output_dir, schedulers):
    """Scenario run: each scheduler on the scenario's jobs; writes output_dir.

    :return: std::vector<ExperimentRunResult>"""
    scenario = ns.Scenario.Load(scenario_path)
    scenario.fabric = fabric
    scenario.outputDir = output_dir
    experiment = ns.CruxExperiment(scenario)
    runs = experiment.Run(list(schedulers))
    experiment.WriteResults(runs)
    print(experiment.FormatTable(runs), end="")
    return runs


def trace_config(output_dir, schedulers, hours=6.0):
    """A trace run on `hours` of a generated one-day trace on a 256-GPU two-layer Clos."""
    c = ns.ClusterRunConfig()
    c.clos.tors = 8
    c.clos.aggs = 2
    c.clos.hostsPerTor = 4
    c.traceDays = 1
    c.windowEnd = hours * 3600.0
    c.drainSeconds = 12 * 3600.0
    c.schedulers.clear()
    for s in schedulers:
        c.schedulers.push_back(s)
    c.outputDir = output_dir
    return c


def run_trace(config):
    """Trace run of every scheduler of `config`; writes config.outputDir/<scheduler>/.

    :return: std::vector<ClusterRunResult>"""
    run = ns.ClusterRun(config)
    runs = run.RunAll()
    run.WriteResults(runs)
    print(ns.ClusterRun.FormatTable(runs), end="")
    return runs


def run_microbenchmark(cases, scheduler="sjf"):
    """End-to-end ratio to the exhaustive optimum on `cases` random §4.4 cases.

    :return: list (one per case) of dicts column -> ratio, e2e.* columns only"""
    params = ns.RandomClusterParams()  # crux-microbenchmark's defaults: <= 256 path choices,
    params.maxPathChoices = 256        # horizon 30 longest iterations
    options = ns.StageAblationOptions()
    options.search.evaluator.horizonIterations = 30
    options.search.maxSearchSize = 1e12  # the path cap bounds the space
    options.extraSchedulers.push_back(scheduler)
    out = []
    for i in range(cases):
        model = ns.GenerateRandomCluster(params, i + 1)
        result = ns.RunStageAblation(model, options)
        ratios = {str(p.first): float(p.second) for p in result.ratios
                  if str(p.first).startswith("e2e.")}
        out.append(ratios)
        print("microbenchmark case %d: %s" % (i, " ".join(
            "%s=%.4f" % kv for kv in ratios.items())))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "smoke.json")),
        help="scenario file of the scenario run (default scenarios/smoke.json)")
    parser.add_argument("--fabric", choices=("flow", "packet"), default="flow",
                        help="fabric of the scenario run (default flow)")
    parser.add_argument("--traceHours", type=float, default=6.0,
                        help="hours of the generated trace in the trace run (0 = skip)")
    parser.add_argument("--cases", type=int, default=3,
                        help="random microbenchmark cases (0 = skip)")
    parser.add_argument("--outputDir", default="results/sjf", help="output directory")
    args = parser.parse_args(argv)

    register()
    schedulers = ["ecmp", "crux", "sjf"]
    try:
        run_scenario(args.scenario, args.fabric, os.path.join(args.outputDir, "scenario"),
                     schedulers)
        if args.traceHours > 0:
            run_trace(trace_config(os.path.join(args.outputDir, "trace"), schedulers,
                                   args.traceHours))
        run_microbenchmark(args.cases)
    except Exception as e:  # C++ exceptions: the C++ signature first, then the message lines
        lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
        for line in (lines[1:] if len(lines) > 1 and lines[0].endswith("=>") else lines):
            print("sjf-scheduler.py: error: " + line, file=sys.stderr)
        return 1
    print("results written to %s/" % args.outputDir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
