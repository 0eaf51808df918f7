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
"""Plot one column of a sweep table (scripts/sweep.py's table.csv) against another.

Plotting only: one line per value of ``--by`` (e.g. ``run``: one line per scheduler), the
column ``--y`` against ``--x``, over the rows with status ``ok`` that match every ``--where``.
Rows that share a line and an x value (e.g. several seeds) are drawn as their mean with its 95 %
Student-t confidence interval (none for one row); a row of a crux-experiment run that stands for
several ECMP seeds (its ``ecmp_seeds``, e.g. "1 2") counts once per seed, so that a point is the
experiment's own mean and interval over its seeds (its table.txt). An x column whose values are all numbers, or
all quantities with one ns-3 unit ("25Gbps", "32MiB", "1us"), is a numeric axis in that unit
(logarithmic for rates and sizes, ``--log-x`` / ``--linear-x`` to choose); otherwise its values
are categories in the order of the table (the sweep file's order). Axis labels and the legend
title come from a table of known columns (:data:`LABELS`: name and unit), the y axis starts at
zero unless ``--y-auto``.

It prints the plotted values first (line, x, n, mean ± interval rounded to the precision the
interval supports) and writes them next to the figure as ``<name>.txt``.

Example::

    sweep_plot.py out/table.csv --x scenario.topology.fabricLinkRate --y utilization --by run \\
        --where program=crux-experiment --output out/plots/util-vs-rate.png
"""

import csv
import math
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402

#: Known columns (the last dotted component of a parameter): (label, display unit, factor from
#: the base unit, log axis). Units: a rate's base is bit/s, a size's bytes, a time's seconds.
LABELS = {
    "fabricLinkRate": ("ToR–aggregation link rate", "Gbit/s", 1e-9, True),
    "hostLinkRate": ("host link rate", "Gbit/s", 1e-9, True),
    "coreLinkRate": ("aggregation–core link rate", "Gbit/s", 1e-9, True),
    "torAggRate": ("ToR–aggregation link rate", "Gbit/s", 1e-9, True),
    "aggCoreRate": ("aggregation–core link rate", "Gbit/s", 1e-9, True),
    "switchBuffer": ("switch buffer", "MiB", 1 / 2 ** 20, True),
    "gradientBytes": ("gradient size", "MB", 1e-6, True),
    "linkDelay": ("link delay", "µs", 1e6, True),
    "computeTime": ("compute time per iteration", "ms", 1e3, False),
    "jobsPerDay": ("jobs per day", "", 1, True),
    "days": ("trace length", "days", 1, False),
    "seed": ("ECMP hash seed", "", 1, False),
    "seeds": ("ECMP seeds", "", 1, False),
    "priorityLevels": ("priority levels", "", 1, False),
    "hostsPerTor": ("hosts per ToR", "", 1, False),
    "tors": ("ToRs", "", 1, False),
    "aggs": ("aggregation switches", "", 1, False),
    "iterations": ("iterations", "", 1, False),
    "utilization": ("cluster GPU utilization", "%", 100, False),
    "mean_gpu_utilization": ("mean GPU utilization", "%", 100, False),
    "utilization_alone_default": ("GPU utilization, jobs alone (ECMP)", "%", 100, False),
    "utilization_alone_installed": ("GPU utilization, jobs alone (installed)", "%", 100, False),
    "busy_gpu_fraction": ("busy GPUs", "%", 100, False),
    "iteration_s": ("iteration time", "s", 1, False),
    "comm_s": ("communication time per iteration", "s", 1, False),
    "jct_s": ("job completion time", "s", 1, False),
    "mean_jct_s": ("mean job completion time", "h", 1 / 3600, False),
    "throughput": ("throughput", "iterations/s", 1, False),
    "simulated_s": ("simulated time", "s", 1, False),
    "pause_frames": ("PAUSE frames", "", 1, False),
    "retransmitted_packets": ("retransmitted packets", "", 1, False),
    "drops": ("dropped frames", "", 1, False),
    "run": ("scheduler", "", 1, False),
    "modes": ("schedulers", "", 1, False),
    "placement": ("placement", "", 1, False),
    "topology": ("topology", "", 1, False),
    "fabric": ("fabric", "", 1, False),
}
#: Units that a value in its base unit may carry, and their display units (for columns not in
#: LABELS): base unit -> (display unit, factor, log axis).
BASE_UNITS = {"bit/s": ("Gbit/s", 1e-9, True), "B": ("MiB", 1 / 2 ** 20, True),
              "s": ("s", 1, False), "": ("", 1, False)}


class PlotError(Exception):
    """A plot that cannot be drawn: one line naming the column."""


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def known(column):
    """(label, unit, factor, log) of a column: LABELS by its last dotted part (a job column
    job.<name>.<field> is labelled '<field> of job <name>'), else the column itself."""
    key = column.split(".")[-1]
    if key in LABELS:
        label, unit, factor, log = LABELS[key]
        if column.startswith("job.") and column.count(".") == 2:
            label = f"{label} of job {column.split('.')[1]}"
        return label, unit, factor, log
    return column, "", 1, False


def axis_label(label, unit):
    label = label[:1].upper() + label[1:]
    return f"{label} ({unit})" if unit else label


def seed_weight(row):
    """How many measurements a row is: the number of ECMP seeds it stands for (its
    ``ecmp_seeds``: a crux-experiment run with ``seeds: N`` that is the same simulation for
    several seeds, such as Crux's pinned paths, is one row for all of them), else 1. Counting a
    row once per seed makes a point the mean and interval over the seeds, as the experiment's
    own table.txt and summary.json ``summary.clusters`` compute them."""
    return max(1, len((row.get("ecmp_seeds") or "").split()))


def series(header, rows, spec, seen=None):
    """[(line label, [(x text, [y values])])] of the rows selected by ``spec`` (keys x, y, by,
    where), lines and x values in order of first appearance; a row's value is there once per
    seed it stands for (:func:`seed_weight`)."""
    for k in ("x", "y", "by"):
        if spec.get(k) is not None and spec[k] not in header:
            raise PlotError(f"{k}: '{spec[k]}' is not a column of the table")
    where = {}
    for col, want in (spec.get("where") or {}).items():
        if col not in header:
            raise PlotError(f"where: '{col}' is not a column of the table")
        values = want if isinstance(want, list) else [want]
        where[col] = {cr.fmt(v) if not isinstance(v, bool) else ("true" if v else "false")
                      for v in values}
    lines = {}
    for row in rows:
        if row.get("status", "ok") != "ok":
            continue
        if any(row.get(c, "") not in ok for c, ok in where.items()):
            continue
        ytext = row.get(spec["y"], "")
        if ytext == "":
            continue
        y = _number(ytext)
        if y is None:
            raise PlotError(f"y: '{spec['y']}' holds '{ytext}', not a number")
        label = row.get(spec["by"], "") if spec.get("by") else spec["y"]
        xs = lines.setdefault(label, {})
        weight = seed_weight(row)
        if seen is not None and weight > 1:
            seen["multi_seed_rows"] = True
        xs.setdefault(row.get(spec["x"], ""), []).extend([y] * weight)
    if not lines:
        raise PlotError("no row with status ok matches (check 'where' and 'y')")
    return [(label, list(xs.items())) for label, xs in lines.items()]


def x_axis(column, xs):
    """(numeric: {x text: value in display unit} or None, label, unit, log) of the x column."""
    label, unit, factor, log = known(column)
    parsed = [cr.parse_quantity(x) for x in xs]
    if xs and all(p is not None for p in parsed):
        units = {p[1] for p in parsed}
        if len(units) == 1:
            base = units.pop()
            if base and column.split(".")[-1] not in LABELS:
                unit, factor, log = BASE_UNITS.get(base, (base, 1, False))
            elif base and not unit:
                unit, factor, log = BASE_UNITS.get(base, (base, 1, False))
            values = {x: p[0] * factor for x, p in zip(xs, parsed)}
            if any(v <= 0 for v in values.values()):
                log = False
            return values, label, unit, log
    return None, label, unit, False


def plot(header, rows, spec, stem):
    """Print the values of the plot ``spec`` (name, x, y, by, where, title, y_from_zero,
    log_x) and draw it to ``<stem>.png``; the printed table also goes to ``<stem>.txt``.
    Raises PlotError."""
    seen = {}
    data = series(header, rows, spec, seen)
    xs_all = list(dict.fromkeys(x for _, pts in data for x, _ in pts))
    numeric, xlabel, xunit, xlog = x_axis(spec["x"], xs_all)
    if spec.get("log_x") is not None:
        xlog = bool(spec["log_x"]) and numeric is not None
    ylabel, yunit, yfactor, _ = known(spec["y"])
    if spec["y"].split(".")[-1] in ("iteration_s", "comm_s", "jct_s", "simulated_s"):
        ys = [y for _, pts in data for _, v in pts for y in v if y > 0]
        scale, yunit = cr.duration_unit(min(ys) if ys else 1.0)
        yfactor = scale
    by_label = known(spec["by"])[0] if spec.get("by") else "line"
    stats = [(label, [(x, cr.summarize(ys)) for x, ys in pts]) for label, pts in data]
    n_max = max(s[2] for _, pts in stats for _, s in pts)
    table = []
    for label, pts in stats:
        for x, (m, hw, n) in pts:
            table.append([label, x, n, cr.format_interval(m, hw, n, yfactor)])
    ycol = f"{ylabel} ({yunit})" if yunit else ylabel
    head = [by_label, axis_label(xlabel, xunit), "n",
            ycol + (": mean ± 95 % CI" if n_max > 1 else "")]
    text = cr.format_table(head, table)
    title = spec.get("title") or f"{ylabel} against {xlabel}"
    note = (f"mean ± 95 % Student-t interval over the runs at each point (n ≤ {n_max})"
            if n_max > 1 else "one run per point")
    if seen.get("multi_seed_rows"):
        note += "; n counts a run once per ECMP seed it stands for"
    # A point of n >= 2 equal values has no interval: its mean is printed alone, as the
    # experiments' own tables do (FormatInterval); say so under the table, so that it is not
    # read as a missing interval.
    equal = any(n >= 2 and hw == 0 for _, pts in stats for _, (m, hw, n) in pts)
    if equal:
        text += ("\n(a mean without ± at n ≥ 2: the values at that point are equal, no spread; "
                 "an interval narrower than the last digit shows as ± <1 of that digit)")
    print(f"{title}\n{note}\n{text}")
    with open(stem + ".txt", "w", encoding="utf-8") as f:
        f.write(f"{title}\n{note}\n{text}\n")
    try:
        plt = cr.pyplot()
    except cr.ResultsError as e:
        raise PlotError(str(e)) from None
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    colors = cr.scheduler_colors([label for label, _ in stats])
    for label, pts in stats:
        if numeric is not None:
            pts = sorted(pts, key=lambda p: numeric[p[0]])
            xv = [numeric[x] for x, _ in pts]
        else:
            xv = [xs_all.index(x) for x, _ in pts]
        mean = [s[0] * yfactor for _, s in pts]
        err = [s[1] * yfactor if s[2] > 1 else 0.0 for _, s in pts]
        ax.errorbar(xv, mean, yerr=err, marker="o", markersize=4, capsize=3, label=label,
                    color=colors[label], linewidth=1.2)
    if numeric is None:
        ax.set_xticks(range(len(xs_all)))
        ax.set_xticklabels(xs_all)
    else:
        if xlog:
            ax.set_xscale("log")
        ticks = sorted(set(numeric.values()))
        ax.set_xticks(ticks)
        ax.set_xticklabels([cr.format_significant(t, 3).rstrip("0").rstrip(".")
                            if "." in cr.format_significant(t, 3) else
                            cr.format_significant(t, 3) for t in ticks])
        ax.minorticks_off()
    ax.set_xlabel(axis_label(xlabel, xunit))
    ax.set_ylabel(axis_label(ylabel, yunit))
    if spec.get("y_from_zero", True):
        ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.05)
    ax.set_title(f"{title}\n({note})", fontsize=9)
    if spec.get("by"):
        ax.legend(title=by_label, fontsize=8)
    try:
        cr.save(fig, stem + ".png")
    except cr.ResultsError as e:
        raise PlotError(str(e)) from None


def read_table(path):
    """(header, rows as dicts) of a sweep table."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            return reader.fieldnames or [], rows
    except OSError as e:
        raise cr.ResultsError(f"{path}: cannot read ({e.strerror})") from None


def main(argv=None):
    p = cr.ArgumentParser(description=__doc__)
    p.add_argument("table", help="table.csv of a sweep")
    p.add_argument("--x", required=True, help="column on the x axis")
    p.add_argument("--y", required=True, help="column on the y axis (numbers)")
    p.add_argument("--by", help="one line per value of this column (e.g. run)")
    p.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                   help="keep rows whose COLUMN is VALUE (repeatable; VALUE may be a|b|c)")
    p.add_argument("--title")
    p.add_argument("--y-auto", action="store_true", help="y axis fitted to the data (default: "
                   "from zero)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--log-x", action="store_true", default=None, help="logarithmic x axis")
    g.add_argument("--linear-x", action="store_true", help="linear x axis")
    p.add_argument("--output", required=True, help="figure file (.png); the values go to "
                   "the same name with .txt")
    a = p.parse_args(argv)
    if not a.output.endswith(".png"):
        p.error("--output must end in .png")
    where = {}
    for w in a.where:
        if "=" not in w:
            p.error(f"--where: '{w}' is not COLUMN=VALUE")
        col, val = w.split("=", 1)
        where[col] = val.split("|")
    header, rows = read_table(a.table)
    spec = {"x": a.x, "y": a.y, "by": a.by, "where": where, "title": a.title,
            "y_from_zero": not a.y_auto}
    if a.log_x or a.linear_x:
        spec["log_x"] = bool(a.log_x)
    try:
        plot(header, rows, spec, a.output[:-len(".png")])
    except PlotError as e:
        raise cr.ResultsError(str(e)) from None


if __name__ == "__main__":
    cr.run_main(main)
