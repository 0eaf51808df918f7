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
"""Fig. 23 of Crux (SIGCOMM'24, §6.3): average GPU utilization per scheduler per topology.

Plotting only: reads ``summary.json`` of each scheduler directory under the given run
directories (the ``--outputDir`` of ``crux-trace-run``; one call per topology) and draws grouped
bars, one group per topology (and placement, if runs of one topology differ in placement), one
bar per scheduler. The bar height is ``mean_gpu_utilization`` exactly as the runner wrote it.
The runs of one group must be one experiment (the same seed, trace, link rates, window, ...:
``crux.run_settings.RUN_SETTINGS``); runs that differ in one of them are refused with its name.

It always prints the plotted values as a table (with the summary.json each value came from and
the gain over ``--baseline``), so that a number in a paper can be traced to a file.

Example::

    fig23_utilization.py out/clos out/double-sided --output fig23.png --baseline ecmp
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402


def parse_args(argv):
    p = cr.ArgumentParser(description=__doc__)
    cr.add_run_arguments(p, "comma-separated schedulers to plot, in this order (default: all "
                         "found, ecmp first, crux last)")
    p.add_argument("--baseline", help="scheduler the gains are relative to (default: the first "
                   "plotted scheduler)")
    return cr.parse_plot_args(p, argv, "Average GPU utilization (Fig. 23)")


def collect(args):
    """Plotted values: (groups, schedulers, {(group, scheduler): SchedulerRun})."""
    wanted = cr.scheduler_list(args.schedulers)
    runs = cr.load_runs(args.runs, wanted)
    topo_placements = {}
    for r in runs:
        topo_placements.setdefault(r.topology, set()).add(r.placement)
    cells = {}
    for r in runs:
        group = r.topology if len(topo_placements[r.topology]) == 1 \
            else f"{r.topology} ({r.placement})"
        key = (group, r.scheduler)
        if key in cells:
            raise cr.ResultsError(
                f"{r.summary_path}: scheduler '{r.scheduler}' on topology '{r.topology}' "
                f"placement '{r.placement}' also in {cells[key].summary_path}")
        cells[key] = r
    for g in dict.fromkeys(g for g, _ in cells):  # a group's bars and gains: one experiment
        cr.check_same_run([r for (gg, _), r in cells.items() if gg == g],
                          f"the runs of '{g}'")
    topo_rank = {t: i for i, t in enumerate(cr.ordered(topo_placements, cr.TOPOLOGY_ORDER))}
    pl_rank = {p: i for i, p in enumerate(cr.PLACEMENT_ORDER)}
    groups = sorted({g for g, _ in cells},
                    key=lambda g: min((topo_rank[r.topology], pl_rank.get(r.placement, 99),
                                       r.placement) for (gg, _), r in cells.items() if gg == g))
    scheds = cr.ordered([s for _, s in cells], cr.SCHEDULER_ORDER, wanted)
    if args.baseline and args.baseline not in scheds:
        raise cr.ResultsError(f"--baseline: scheduler '{args.baseline}' is not among the "
                              f"plotted ones ({', '.join(scheds)})")
    return groups, scheds, cells


def table(groups, scheds, cells, baseline):
    header = ["topology", "placement", "scheduler", "mean_gpu_utilization",
              f"gain_vs_{baseline}_pct", "summary"]
    rows = []
    for g in groups:
        base = cells.get((g, baseline))
        for s in scheds:
            r = cells.get((g, s))
            if r is None:
                continue
            rows.append([r.topology, r.placement, s, r.mean_utilization, cr.gain_pct(r, base),
                         r.summary_path])
    return cr.format_table(header, rows)


def plot(groups, scheds, cells, args, baseline):
    plt = cr.pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 + 0.45 * len(groups) * len(scheds)), 3.6))
    cr.utilization_bars(ax, None, groups, scheds, cells, baseline)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel("Average GPU utilization (%)")
    ax.set_title(f"{args.title}\nlabels: relative change of the utilization against {baseline} "
                 f"on the same topology, not percentage points ({baseline}: its utilization)")
    ax.grid(axis="x", visible=False)
    cr.save(fig, args.output)


def main(argv=None):
    args = parse_args(argv)
    if args.output:
        cr.check_output_path(args.output)
    groups, scheds, cells = collect(args)
    baseline = args.baseline or scheds[0]
    print("Fig. 23: average GPU utilization (time-weighted, 0..1) per topology and scheduler")
    print(table(groups, scheds, cells, baseline))
    if not args.print_only:
        plot(groups, scheds, cells, args, baseline)


if __name__ == "__main__":
    cr.run_main(main)
