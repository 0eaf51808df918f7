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
"""Fig. 25 of Crux (SIGCOMM'24, §6.3): GPU utilization with and without job schedulers.

Plotting only: reads the scheduler directories of several ``crux-trace-run`` output directories
that differ in ``--placement`` (e.g. random = no job scheduler, locality, buddy = HiveD-like).
Left panel: bars of ``mean_gpu_utilization`` from summary.json, one group per placement, one
bar per communication scheduler (e.g. ecmp vs crux). Right panel: GPU utilization over time from
``utilization.csv`` (a step function), averaged over ``--smooth`` seconds.

It always prints the bar values with the summary.json each came from, the gain over
``--baseline-placement`` (same communication scheduler) and over ``--baseline`` (same
placement), and the time-weighted mean of utilization.csv over the run's window as a
cross-check; ``--values-csv`` writes the plotted line points. The runs on one topology must be
one experiment but for the placement (the same seed, trace, link rates, window, ...:
``crux.run_settings.RUN_SETTINGS``); runs that differ in one of them are refused with its name.

Example::

    fig25_job_schedulers.py out/clos-random out/clos-locality out/clos-buddy \\
        --placement-labels "random=no job scheduler,buddy=HiveD-like" --output fig25.png
"""

import csv
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402


def parse_args(argv):
    p = cr.ArgumentParser(description=__doc__)
    cr.add_run_arguments(p, "comma-separated communication schedulers to plot, in this order "
                         "(default: all found)")
    p.add_argument("--baseline", help="communication scheduler the per-placement gains are "
                   "relative to (default: the first plotted)")
    p.add_argument("--baseline-placement", help="placement the per-scheduler gains are "
                   "relative to (default: random if present, else the first)")
    p.add_argument("--placement-labels", default="",
                   help="display names, e.g. 'random=no job scheduler,buddy=HiveD-like'")
    p.add_argument("--smooth", type=float, default=3600.0,
                   help="average the utilization lines over bins of this many seconds "
                   "(0: raw steps; default 3600)")
    p.add_argument("--include-drain", action="store_true",
                   help="draw the lines past the arrival window to the last sample (the drain "
                   "period; default: stop at the window end like the mean)")
    p.add_argument("--values-csv", help="also write the plotted line points to this CSV file")
    a = cr.parse_plot_args(p, argv, "GPU utilization with job schedulers (Fig. 25)")
    if a.smooth < 0:
        p.error("--smooth must be >= 0")
    return a


def parse_labels(text):
    labels = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        if "=" not in item:
            raise cr.ResultsError(f"--placement-labels: '{item}' is not placement=label")
        k, v = item.split("=", 1)
        labels[k.strip()] = v.strip()
    return labels


def collect(args):
    """(groups, schedulers, {(group, scheduler): SchedulerRun}); group = placement (prefixed
    with the topology if the runs cover several topologies)."""
    wanted = cr.scheduler_list(args.schedulers)
    runs = cr.load_runs(args.runs, wanted)
    multi_topo = len({r.topology for r in runs}) > 1
    cells = {}
    group_of = {}
    for r in runs:
        g = f"{r.topology}/{r.placement}" if multi_topo else r.placement
        group_of[g] = r
        key = (g, r.scheduler)
        if key in cells:
            raise cr.ResultsError(
                f"{r.summary_path}: scheduler '{r.scheduler}' with placement '{r.placement}' "
                f"on topology '{r.topology}' also in {cells[key].summary_path}")
        cells[key] = r
    for t in sorted({r.topology for r in runs}):  # its gains cross placements: one experiment
        cr.check_same_run([r for r in runs if r.topology == t], f"the runs on '{t}'",
                          ignore=("placement", "placement_seed"))
    topo_rank = {t: i for i, t in enumerate(cr.ordered([r.topology for r in runs],
                                                        cr.TOPOLOGY_ORDER))}
    pl_rank = {p: i for i, p in enumerate(cr.PLACEMENT_ORDER)}
    groups = sorted(group_of, key=lambda g: (topo_rank[group_of[g].topology],
                                             pl_rank.get(group_of[g].placement, 99),
                                             group_of[g].placement))
    scheds = cr.ordered([s for _, s in cells], cr.SCHEDULER_ORDER, wanted)
    return groups, scheds, cells


def csv_mean(run, series):
    """Time-weighted mean of utilization.csv over the summary's window ('-' if unknown)."""
    if run.window is None:
        return "-"
    times, util = series
    return cr.step_mean(times, util, run.window[0], run.window[1])


def table(groups, scheds, cells, series, base_sched, base_group):
    header = ["topology", "placement", "scheduler", "mean_gpu_utilization",
              f"gain_vs_{base_group.split('/')[-1]}_pct", f"gain_vs_{base_sched}_pct",
              "utilization_csv_window_mean", "summary"]
    rows = []
    for g in groups:
        for s in scheds:
            r = cells.get((g, s))
            if r is None:
                continue
            rows.append([r.topology, r.placement, s, r.mean_utilization,
                         cr.gain_pct(r, cells.get((base_group, s))),
                         cr.gain_pct(r, cells.get((g, base_sched))),
                         csv_mean(r, series[(g, s)]), r.summary_path])
    return cr.format_table(header, rows)


def lines(groups, scheds, cells, series, smooth, include_drain):
    """{(group, scheduler): (times_h, utilization_pct)} of the plotted lines."""
    out = {}
    for g in groups:
        for s in scheds:
            r = cells.get((g, s))
            if r is None:
                continue
            times, util = series[(g, s)]
            if not times:
                out[(g, s)] = ([], [])
                continue
            end = times[-1] if include_drain or r.window is None else r.window[1]
            start = times[0] if include_drain or r.window is None else r.window[0]
            keep = [i for i, t in enumerate(times) if t < end]
            if not keep:
                out[(g, s)] = ([], [])
                continue
            # Clip to the window: rows before its start begin at the start.
            times = [max(times[i], start) for i in keep]
            util = [util[i] for i in keep]
            if smooth > 0:
                ts, us = cr.smoothed(times, util, smooth, end)
            else:
                ts, us = list(times) + [end], list(util) + [util[-1]]
            out[(g, s)] = ([t / 3600.0 for t in ts], [u * 100 for u in us])
    return out


def write_values(points, cells, path):
    try:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["topology", "placement", "scheduler", "time_h", "gpu_utilization_pct"])
            for (g, s), (ts, us) in points.items():
                r = cells[(g, s)]
                for t, u in zip(ts, us):
                    w.writerow([r.topology, r.placement, s, cr.fmt(t), cr.fmt(u)])
    except OSError as e:
        raise cr.ResultsError(f"--values-csv: cannot write '{path}' ({e.strerror})") from None
    print(f"wrote {path}")


def plot(groups, scheds, cells, points, labels, args):
    plt = cr.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 3.8),
                                  gridspec_kw={"width_ratios": [1, 1.6]})
    cmap = plt.get_cmap("tab10")

    def name(g):
        r = next(cells[k] for k in cells if k[0] == g)
        pl = labels.get(r.placement, r.placement)
        return pl if "/" not in g else f"{r.topology}/{pl}"

    cr.utilization_bars(ax, cmap, groups, scheds, cells, args.base_sched)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([name(g) for g in groups], fontsize=8)
    ax.set_ylabel("Average GPU utilization (%)")
    ax.grid(axis="x", visible=False)
    ax.set_title(f"labels: relative change against {args.base_sched} with the same placement",
                 fontsize=8)

    styles = ["-", "--", ":", "-."]
    for i, g in enumerate(groups):
        for k, s in enumerate(scheds):
            if (g, s) not in points:
                continue
            ts, us = points[(g, s)]
            kw = {"drawstyle": "steps-post"} if args.smooth == 0 else {}
            ax2.plot(ts, us, styles[k % len(styles)], color=cmap((i + len(scheds)) % 10),
                     linewidth=1.0, label=f"{name(g)} / {s}", **kw)
    ax2.set_xlabel("Time (h)")
    ax2.set_ylabel("GPU utilization (%)")
    ax2.set_ylim(bottom=0)
    ax2.legend(fontsize=7, ncol=2, loc="lower right")
    fig.suptitle(args.title)
    cr.save(fig, args.output)


def main(argv=None):
    args = parse_args(argv)
    if args.output:
        cr.check_output_path(args.output)
    labels = parse_labels(args.placement_labels)
    groups, scheds, cells = collect(args)
    base_sched = args.baseline or scheds[0]
    args.base_sched = base_sched
    if base_sched not in scheds:
        raise cr.ResultsError(f"--baseline: scheduler '{base_sched}' is not among the plotted "
                              f"ones ({', '.join(scheds)})")
    topologies = sorted({r.topology for r in cells.values()})
    if len(topologies) > 1:
        raise cr.ResultsError(f"runs of several topologies ({', '.join(topologies)}): Fig. 25 "
                              f"compares placements on one topology; plot each separately")
    placements = {g: cells[k].placement for k in cells for g in [k[0]]}
    if args.baseline_placement:
        matches = [g for g in groups if placements[g] == args.baseline_placement]
        if not matches:
            raise cr.ResultsError(
                f"--baseline-placement: no run with placement '{args.baseline_placement}' "
                f"(found: {', '.join(sorted(set(placements.values())))})")
        base_group = matches[0]
    else:
        base_group = next((g for g in groups if placements[g] == "random"), groups[0])
    series = {}
    for k, r in cells.items():
        u = r.utilization()
        series[k] = (u["time_s"].tolist(), u["gpu_utilization_fraction"].tolist())
    print("Fig. 25: average GPU utilization (time-weighted, 0..1) per placement and scheduler")
    print(table(groups, scheds, cells, series, base_sched, base_group))
    points = lines(groups, scheds, cells, series, args.smooth, args.include_drain)
    print(f"lines: {len(points)} series, "
          f"{', '.join(str(len(p[0])) for p in points.values())} points "
          f"({'raw steps' if args.smooth == 0 else f'{cr.fmt(args.smooth)} s averages'})")
    if args.values_csv:
        write_values(points, cells, args.values_csv)
    if not args.print_only:
        plot(groups, scheds, cells, points, labels, args)


if __name__ == "__main__":
    cr.run_main(main)
