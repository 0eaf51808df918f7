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
"""Fig. 24 of Crux (SIGCOMM'24, §6.3): link traffic over time, colored by GPU intensity.

Plotting only: reads ``link-intensity.csv`` of one or more scheduler runs (``crux-trace-run``
output). x = time bins, y = links sorted by total bytes (largest on top, ``--top`` N of them),
cell color = byte-weighted mean GPU intensity (FLOPs/s) of the traffic that crossed the link in
the bin; cells without traffic are left blank. Several runs are drawn side by side with one
color scale and, unless ``--per-run-links``, the same link rows (ranked by bytes summed over all
runs).

It always prints, per panel, the plotted links with their total bytes, byte-weighted mean
intensity and number of bins with traffic; ``--values-csv`` writes every plotted cell.

Example::

    fig24_intensity_heatmap.py out/clos/ecmp out/clos/crux --top 40 --output fig24.png
"""

import csv
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402


def parse_args(argv):
    p = cr.ArgumentParser(description=__doc__)
    cr.add_run_arguments(
        p, "comma-separated schedulers to draw, in this order",
        runs_help="scheduler directory (holds link-intensity.csv and summary.json) or a run "
        "directory (each of its scheduler subdirectories becomes a panel)", metavar="DIR")
    p.add_argument("--top", type=int, default=30, help="links to show, by total bytes (30)")
    p.add_argument("--link-regex",
                   help="only links whose name matches this regular expression (re.search), "
                   "e.g. '^t[0-9]+->a' for ToR-to-aggregation uplinks")
    p.add_argument("--hours", metavar="A:B",
                   help="only bins starting in [A, B) hours of the trace clock, e.g. 0:24 for "
                   "the first day (the paper's Fig. 24 zoom)")
    p.add_argument("--per-run-links", action="store_true",
                   help="rank links separately in each panel (default: shared rows)")
    p.add_argument("--bin-seconds", type=float,
                   help="merge bins to this width in seconds (a multiple of the file's bins; "
                   "default: the file's bin width)")
    p.add_argument("--linear", action="store_true", help="linear color scale (default: log)")
    p.add_argument("--values-csv", help="also write every plotted cell to this CSV file")
    a = cr.parse_plot_args(p, argv, "Link traffic by GPU intensity (Fig. 24)",
                           "print the tables, draw nothing")
    if a.top < 1:
        p.error("--top must be >= 1")
    if a.bin_seconds is not None and not a.bin_seconds > 0:
        p.error("--bin-seconds must be > 0")
    if a.hours is not None:
        try:
            lo, hi = (float(x) for x in a.hours.split(":"))
        except ValueError:
            p.error(f"--hours: '{a.hours}' is not A:B (hours)")
        if not hi > lo:
            p.error(f"--hours: '{a.hours}': B must be > A")
        a.hours = (lo * 3600.0, hi * 3600.0)
    if a.link_regex is not None:
        try:
            a.link_regex = re.compile(a.link_regex)
        except re.error as e:
            p.error(f"--link-regex: {e}")
    return a


def infer_width(data):
    """Bin width: the smallest gap between distinct bin starts over all panels (3600 if none)."""
    gaps = []
    for d in data:
        b = d.bins()
        gaps += [y - x for x, y in zip(b, b[1:]) if y > x]
    return min(gaps) if gaps else 3600.0


def collect(args):
    """Panels: list of (SchedulerRun, LinkIntensity (rebinned), links, bin starts)."""
    wanted = cr.scheduler_list(args.schedulers)
    runs = cr.load_runs(args.runs, wanted)
    if wanted:
        order = {s: i for i, s in enumerate(wanted)}
        runs.sort(key=lambda r: order[r.scheduler])
    data = [r.link_intensity() for r in runs]
    for d in data:
        d.cells = {k: v for k, v in d.cells.items()
                   if (args.link_regex is None or args.link_regex.search(k[1])) and
                   (args.hours is None or args.hours[0] <= k[0] < args.hours[1])}
    width = args.bin_seconds or infer_width(data)
    data = [d.rebinned(width) for d in data]
    starts = sorted({b for d in data for b in d.bins()})
    grid = []
    if starts:
        n = int(round((starts[-1] - starts[0]) / width)) + 1
        grid = [starts[0] + k * width for k in range(n)]
    shared = None
    if not args.per_run_links:
        tot = {}
        for d in data:
            for l, n in d.link_totals().items():
                tot[l] = tot.get(l, 0.0) + n
        shared = top_links(tot, args.top)
    panels = []
    for r, d in zip(runs, data):
        links = shared if shared is not None else top_links(d.link_totals(), args.top)
        panels.append((r, d, links, grid))
    return panels, width


def top_links(totals, n):
    """The n links with most bytes (ties by name), largest first."""
    return [l for l, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def print_tables(panels, width):
    for r, d, links, grid in panels:
        tot = d.link_totals()
        mean = d.link_mean_intensity()
        active = {}
        for (_, l), (n, _) in d.cells.items():
            if n > 0:
                active[l] = active.get(l, 0) + 1
        print(f"Fig. 24 panel {r.label()}: {len(links)} links x {len(grid)} bins of "
              f"{cr.fmt(float(width))} s ({d.path})")
        rows = [[i + 1, l, tot.get(l, 0.0), mean.get(l, float("nan")), active.get(l, 0)]
                for i, l in enumerate(links)]
        print(cr.format_table(["rank", "link", "total_bytes", "mean_intensity_flops_per_s",
                               "bins_with_traffic"], rows))


def write_values(panels, path):
    try:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["topology", "placement", "scheduler", "bin_start_s", "link", "bytes",
                        "mean_intensity_flops_per_s"])
            for r, d, links, grid in panels:
                nbytes, inten = d.matrix(links, grid)
                for i, l in enumerate(links):
                    for j, b in enumerate(grid):
                        if nbytes[i][j] > 0:
                            w.writerow([r.topology, r.placement, r.scheduler, cr.fmt(b), l,
                                        cr.fmt(nbytes[i][j]), cr.fmt(inten[i][j])])
    except OSError as e:
        raise cr.ResultsError(f"--values-csv: cannot write '{path}' ({e.strerror})") from None
    print(f"wrote {path}")


def plot(panels, width, args):
    plt = cr.pyplot()
    import numpy as np
    from matplotlib.colors import LogNorm, Normalize

    mats = []
    for r, d, links, grid in panels:
        _, inten = d.matrix(links, grid)
        mats.append(np.ma.masked_invalid(np.array(inten, dtype=float).reshape(len(links),
                                                                              len(grid))))
    vals = np.concatenate([m.compressed() for m in mats]) if mats else np.array([])
    if not args.linear:
        vals = vals[vals > 0]
    if vals.size == 0:
        raise cr.ResultsError("no link traffic to plot in " +
                              ", ".join(d.path for _, d, _, _ in panels))
    vmin, vmax = float(vals.min()), float(vals.max())
    if vmax <= vmin:
        vmax = vmin * 1.01 if vmin > 0 else vmin + 1
    norm = Normalize(vmin, vmax) if args.linear else LogNorm(vmin, vmax)
    nrows = max(len(p[2]) for p in panels)
    fig, axes = plt.subplots(1, len(panels), squeeze=False, sharey=not args.per_run_links,
                             figsize=(min(4.5 * len(panels) + 1.5, 24),
                                      max(3.0, 1.2 + 0.16 * nrows)))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("white")
    mesh = None
    for ax, (r, d, links, grid), m in zip(axes[0], panels, mats):
        t0 = grid[0] if grid else 0.0
        xedges = [(t0 + k * width) / 3600.0 for k in range(len(grid) + 1)]
        yedges = list(range(len(links) + 1))
        mesh = ax.pcolormesh(xedges, yedges, m, cmap=cmap, norm=norm, shading="flat")
        ax.set_ylim(len(links), 0)  # largest on top
        ax.set_xlabel("Time (h)")
        ax.set_title(r.label(), fontsize=9)
        step = max(1, math.ceil(len(links) / 40))
        ax.set_yticks([i + 0.5 for i in range(0, len(links), step)])
        ax.set_yticklabels([links[i] for i in range(0, len(links), step)], fontsize=6)
        ax.set_facecolor("white")
    axes[0][0].set_ylabel("Link (by total bytes)")
    cb = fig.colorbar(mesh, ax=axes[0].tolist(), fraction=0.03, pad=0.02)
    cb.set_label("Byte-weighted GPU intensity (FLOPs/s)")
    fig.suptitle(args.title)
    cr.save(fig, args.output)


def main(argv=None):
    args = parse_args(argv)
    if args.output:
        cr.check_output_path(args.output)
    panels, width = collect(args)
    print_tables(panels, width)
    if args.values_csv:
        write_values(panels, args.values_csv)
    if not args.print_only:
        plot(panels, width, args)


if __name__ == "__main__":
    cr.run_main(main)
