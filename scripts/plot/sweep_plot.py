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
Rows that share a line and an x value (e.g. several seeds) are drawn as their mean with a bar
from their minimum to their maximum. An x column whose values are all numbers is a numeric axis;
otherwise its values are categories in the order of the table (the sweep file's order).

It prints the plotted values first (line, x, n, mean, min, max; floats in shortest round-trip
form) and writes them next to the figure as ``<name>.txt``.

Example::

    sweep_plot.py out/table.csv --x seed --y utilization --by run \\
        --where program=crux-experiment --output out/plots/util-vs-seed.png
"""

import csv
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402


class PlotError(Exception):
    """A plot that cannot be drawn: one line naming the column."""


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def series(header, rows, spec):
    """[(line label, [(x text, [y values])])] of the rows selected by ``spec`` (keys x, y, by,
    where), lines and x values in order of first appearance."""
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
        xs.setdefault(row.get(spec["x"], ""), []).append(y)
    if not lines:
        raise PlotError("no row with status ok matches (check 'where' and 'y')")
    return [(label, list(xs.items())) for label, xs in lines.items()]


def plot(header, rows, spec, stem):
    """Print the values of the plot ``spec`` (name, x, y, by, where, title) and draw it to
    ``<stem>.png``; the printed table also goes to ``<stem>.txt``. Raises PlotError."""
    data = series(header, rows, spec)
    xs_all = [x for _, pts in data for x, _ in pts]
    numeric = all(_number(x) is not None for x in xs_all)
    table = []
    for label, pts in data:
        for x, ys in pts:
            table.append([label, x, len(ys), sum(ys) / len(ys), min(ys), max(ys)])
    text = cr.format_table([spec.get("by") or "line", spec["x"], "n", f"mean {spec['y']}",
                            "min", "max"], table)
    title = spec.get("title") or f"{spec['y']} vs {spec['x']}"
    print(f"{title}\n{text}")
    with open(stem + ".txt", "w", encoding="utf-8") as f:
        f.write(f"{title}\n{text}\n")
    try:
        plt = cr.pyplot()
    except cr.ResultsError as e:
        raise PlotError(str(e)) from None
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    categories = []
    for x in xs_all:
        if x not in categories:
            categories.append(x)
    for k, (label, pts) in enumerate(data):
        if numeric:
            pts = sorted(pts, key=lambda p: _number(p[0]))
            xv = [_number(x) for x, _ in pts]
        else:
            xv = [categories.index(x) for x, _ in pts]
        mean = [sum(ys) / len(ys) for _, ys in pts]
        lo = [m - min(ys) for m, (_, ys) in zip(mean, pts)]
        hi = [max(ys) - m for m, (_, ys) in zip(mean, pts)]
        ax.errorbar(xv, mean, yerr=[lo, hi], marker="o", capsize=3, label=label,
                    color=plt.get_cmap("tab10")(k % 10))
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
    ax.set_xlabel(spec["x"])
    ax.set_ylabel(spec["y"])
    if any(len(ys) > 1 for _, pts in data for _, ys in pts):
        title += "\n(mean over the runs at each point; bars: min to max)"
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if spec.get("by"):
        ax.legend(title=spec["by"], fontsize=8)
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
    spec = {"x": a.x, "y": a.y, "by": a.by, "where": where, "title": a.title}
    try:
        plot(header, rows, spec, a.output[:-len(".png")])
    except PlotError as e:
        raise cr.ResultsError(str(e)) from None


if __name__ == "__main__":
    cr.run_main(main)
