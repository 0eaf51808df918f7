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
"""What the plot scripts of scripts/plot share: the style of crux's figures, their command
lines and their errors. The result files are read by :mod:`crux.results` (bindings/python/crux,
pandas only), whose names are re-exported here (``cr.load_runs``, ``cr.ResultsError``, ...).

matplotlib is imported only by :func:`pyplot` so that ``--print-only`` works without it. Every
problem with an input raises :class:`ResultsError` with a one-line message naming the file
(and the column or field); :func:`run_main` turns it into one line on stderr and exit status 1.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bindings", "python"))
try:
    from crux.results import *  # noqa: F401,F403,E402  (the readers, re-exported)
    from crux.results import (ResultsError, format_interval, format_significant,  # noqa: E402
                              duration_unit)
except ImportError as _e:
    print(f"{os.path.basename(sys.argv[0])}: error: {_e}", file=sys.stderr)
    sys.exit(1)

#: Colours of the schedulers (tab10 order) and of the decomposition terms, one style for every
#: crux figure.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
#: rcParams of every crux figure (paper-sized fonts, light grid, no top/right spines).
STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
         "xtick.labelsize": 8, "ytick.labelsize": 8, "axes.spines.top": False,
         "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
         "axes.axisbelow": True, "savefig.dpi": 150, "pdf.fonttype": 42}


def scheduler_colors(schedulers):
    """dict scheduler -> colour: the same scheduler gets the same colour in every figure
    (position in SCHEDULER_ORDER, others after it)."""
    from crux.results import SCHEDULER_ORDER
    out = {}
    extra = 0
    for s in schedulers:
        if s in SCHEDULER_ORDER:
            out[s] = PALETTE[SCHEDULER_ORDER.index(s) % len(PALETTE)]
        else:
            out[s] = PALETTE[(len(SCHEDULER_ORDER) + extra) % len(PALETTE)]
            extra += 1
    return out


def signed_pct(fraction, ci=None, n=2):
    """A change as text: "+5.6 ± 3.3 %" (interval when n >= 2), "+0.0 %" style sign always."""
    text = format_interval(fraction, ci, n, 100.0)
    return (text if text.startswith(("-", "–")) else "+" + text) + " %"


def fmt(value):
    """Table text of a value: floats in shortest round-trip form (``repr``), so a printed value
    parses back to exactly the number in the file."""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def format_table(header, rows):
    """Left-aligned, space-separated table (header line first) of ``rows`` (lists of values)."""
    text = [[str(h) for h in header]] + [[fmt(v) for v in r] for r in rows]
    widths = [max(len(r[c]) for r in text) for c in range(len(header))]
    return "\n".join("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip()
                     for r in text)


def scheduler_list(text):
    """The schedulers named by a comma-separated ``--schedulers`` value (empty items dropped), or
    None if the option was not given (then every scheduler found is used)."""
    return [s for s in text.split(",") if s] if text else None


def gain_pct(run, base):
    """Gain of ``run``'s mean GPU utilization over ``base``'s in percent, rounded to 3 decimals;
    ``"-"`` if there is no base run or its utilization is not positive."""
    if base is None or not base.mean_utilization > 0:
        return "-"
    return round((run.mean_utilization / base.mean_utilization - 1) * 100, 3) + 0.0


def utilization_bars(ax, cmap, groups, scheds, cells, baseline=None):
    """Grouped bars of ``mean_gpu_utilization`` in percent on ``ax``: one group per entry of
    ``groups`` (at x = 0, 1, ...), one bar per scheduler of ``scheds`` (its colour of
    :func:`scheduler_colors`); ``cells`` maps (group, scheduler) to a SchedulerRun, missing
    pairs leave a gap. The baseline scheduler's bar is labelled with its value, every other bar
    with its change against the baseline of its group ("+4.7 %"), the difference the figure is
    about. The y axis starts at zero. The caller sets the tick labels, axis labels and legend."""
    width = 0.8 / len(scheds)
    colors = scheduler_colors(scheds)
    top = 0.0
    for k, s in enumerate(scheds):
        xs, ys, labels = [], [], []
        for i, g in enumerate(groups):
            r = cells.get((g, s))
            if r is None:
                continue
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(r.mean_utilization * 100)
            base = cells.get((g, baseline)) if baseline else None
            if base is None or s == baseline:
                labels.append(f"{format_significant(r.mean_utilization * 100, 3)} %")
            else:
                gain = gain_pct(r, base)
                labels.append("–" if gain == "-" else
                              f"{'+' if gain >= 0 else ''}{format_significant(gain, 2)} %")
        bars = ax.bar(xs, ys, width, label=s, color=colors[s], edgecolor="black",
                      linewidth=0.5)
        ax.bar_label(bars, labels=labels, fontsize=6.5, padding=2, rotation=90)
        top = max([top] + ys)
    ax.set_ylim(0, top * 1.35 if top > 0 else 1)
    ax.legend(title="scheduler", fontsize=7, ncol=min(len(scheds), 5), loc="upper center",
              bbox_to_anchor=(0.5, -0.1))


def check_output_path(path):
    """Check the --output suffix (.png, .pdf, .svg) and that its directory exists."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".pdf", ".svg"):
        raise ResultsError(f"--output: '{path}': suffix must be .png, .pdf or .svg")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ResultsError(f"--output: '{path}': directory {parent} does not exist")


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend; ResultsError if not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams.update(STYLE)
    except ImportError as e:
        raise ResultsError(
            f"matplotlib is not importable ({e}); scripts/setup.sh installs it into build/venv "
            "(run with build/venv/bin/python), or use --print-only"
        ) from None
    return plt


def save(fig, path):
    """Save ``fig`` to ``path`` (format from the suffix) and close it; report the path."""
    try:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    except OSError as e:
        raise ResultsError(f"--output: cannot write '{path}' ({e.strerror})") from None
    finally:
        import matplotlib.pyplot as plt
        plt.close(fig)
    print(f"wrote {path}")


def save_keep(fig, path):
    """Save ``fig`` to ``path`` (format from the suffix) without closing it; report the path."""
    try:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    except OSError as e:
        raise ResultsError(f"cannot write '{path}' ({e.strerror})") from None
    print(f"wrote {path}")


class ArgumentParser(argparse.ArgumentParser):
    """argparse parser whose usage errors are one line on stderr and exit status 1 (like the
    file errors; ``--help`` still shows the full usage)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(**kwargs)

    def error(self, message):
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(1)


RUNS_HELP = "run directory (--outputDir of crux-trace-run) or scheduler directory"


def add_run_arguments(parser, schedulers_help, runs_help=RUNS_HELP, metavar="RUN_DIR"):
    """Add the arguments every plot script starts with: the positional run directories
    (``runs``, one or more), ``--output`` and ``--schedulers``."""
    parser.add_argument("runs", nargs="+", metavar=metavar, help=runs_help)
    parser.add_argument("--output", help="figure file (.png, .pdf or .svg); required unless "
                        "--print-only")
    parser.add_argument("--schedulers", help=schedulers_help)


def parse_plot_args(parser, argv, title, print_only_help="print the table, draw nothing"):
    """Add the arguments every plot script ends with (``--title`` with default ``title``,
    ``--print-only``), parse ``argv`` and require ``--output`` unless ``--print-only``; returns
    the namespace (usage errors exit as :meth:`ArgumentParser.error` does)."""
    parser.add_argument("--title", default=title)
    parser.add_argument("--print-only", action="store_true", help=print_only_help)
    args = parser.parse_args(argv)
    if not args.print_only and not args.output:
        parser.error("--output is required unless --print-only")
    return args


def run_main(main, argv=None):
    """Call ``main(argv)``; a ResultsError becomes one line on stderr and exit status 1."""
    prog = os.path.basename(sys.argv[0])
    try:
        main(argv)
    except ResultsError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        # Output piped into e.g. head: stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
