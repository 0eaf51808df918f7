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
"""Read the result files of a trace-driven cluster run (``crux-trace-run``) for the plot scripts.

A *run directory* is the ``--outputDir`` of one ``crux-trace-run`` call; it holds one
subdirectory per communication scheduler (a *scheduler directory*) with the files

* ``summary.json`` -- scheduler, topology, placement, window, ``mean_gpu_utilization``
  (time-weighted, 0..1), ``jobs_finished``, ``mean_jct_s``, ...;
* ``utilization.csv`` -- ``time_s,running_jobs,queued_jobs,busy_gpus,gpu_utilization``: one row
  per change, the value holds until the next row;
* ``link-intensity.csv`` -- ``bin_start_s,link,bytes,mean_intensity_flops_per_s``: per time bin,
  links with traffic only; the mean intensity is byte-weighted over the jobs on the link;
* ``jobs.csv`` and ``decisions.csv`` (not read here).

Everything is read with the standard library (:mod:`csv`, :mod:`json`); matplotlib is imported
only by :func:`pyplot` so that ``--print-only`` works without it. Every problem with an input
file raises :class:`ResultsError` with a one-line message naming the file (and the column or
field); :func:`run_main` turns it into one line on stderr and exit status 1.
"""

import argparse
import csv
import json
import math
import os
import sys

SUMMARY_FILE = "summary.json"
UTILIZATION_FILE = "utilization.csv"
LINK_INTENSITY_FILE = "link-intensity.csv"

#: Preferred order of scheduler names in tables and legends (others follow alphabetically).
SCHEDULER_ORDER = ["ecmp", "sincronia", "varys", "taccl", "cassini", "optimal", "crux-pa",
                   "crux-ps-pa", "crux", "crux-full"]
#: Preferred order of placement policies (others follow alphabetically).
PLACEMENT_ORDER = ["random", "locality", "buddy", "trace"]
#: Preferred order of topologies (others follow alphabetically).
TOPOLOGY_ORDER = ["clos", "double-sided", "lingjun"]


class ResultsError(Exception):
    """A problem with an input file or an argument; the message is one line naming it."""


def _open_text(path):
    """Open ``path`` for reading text or raise ResultsError naming it."""
    try:
        return open(path, newline="", encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ResultsError(f"{path}: is a directory, expected a file") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot open ({e.strerror})") from None


def _number(text, path, line, column):
    """Parse a finite or infinite float; ResultsError naming file, line and column otherwise."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ResultsError(
            f"{path}:{line}: column '{column}': '{text}' is not a number") from None
    if math.isnan(value):
        raise ResultsError(f"{path}:{line}: column '{column}': value is NaN")
    return value


def read_csv(path, columns):
    """Read a CSV file with a header line.

    :param path: file path
    :param columns: dict column name -> ``float`` or ``str`` (the type of the values)
    :return: dict column name -> list of values (rows in file order); other columns are ignored
    :raises ResultsError: missing/unreadable file, missing header, missing column, a value that
        is not a number, a row with too few fields
    """
    with _open_text(path) as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise ResultsError(f"{path}: empty file (no header line)") from None
        except csv.Error as e:
            raise ResultsError(f"{path}:1: malformed CSV ({e})") from None
        header = [h.strip() for h in header]
        index = {}
        for name in columns:
            if name not in header:
                raise ResultsError(f"{path}: missing column '{name}' (header: {','.join(header)})")
            index[name] = header.index(name)
        out = {name: [] for name in columns}
        try:
            for row in reader:
                line = reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) < len(header):
                    raise ResultsError(
                        f"{path}:{line}: {len(row)} fields, header has {len(header)}")
                for name, kind in columns.items():
                    text = row[index[name]].strip()
                    out[name].append(_number(text, path, line, name) if kind is float else text)
        except csv.Error as e:
            raise ResultsError(f"{path}:{reader.line_num}: malformed CSV ({e})") from None
    return out


def read_json(path):
    """Read a JSON object from ``path``; ResultsError for a missing file or malformed JSON."""
    with _open_text(path) as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ResultsError(f"{path}: malformed JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object at the top level")
    return data


def _summary_number(summary, path, field):
    """summary[field] as a float, or ResultsError naming the field."""
    if field not in summary:
        raise ResultsError(f"{path}: missing field '{field}'")
    value = summary[field]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ResultsError(f"{path}: field '{field}': expected a number, got {value!r}")
    return float(value)


def _summary_string(summary, path, field):
    """summary[field] as a string, or ResultsError naming the field."""
    if field not in summary:
        raise ResultsError(f"{path}: missing field '{field}'")
    value = summary[field]
    if not isinstance(value, str):
        raise ResultsError(f"{path}: field '{field}': expected a string, got {value!r}")
    return value


def _summary_window(summary):
    """(start_s, end_s) of the arrival window if summary.json states it, else None.

    Accepted forms: ``"window": {"start_s": a, "end_s": b}`` (also keys ``start``/``end``),
    ``"window": [a, b]`` or top-level ``window_start_s``/``window_end_s``.
    """
    w = summary.get("window")
    pair = None
    if isinstance(w, dict):
        for a, b in (("start_s", "end_s"), ("start", "end")):
            if a in w and b in w:
                pair = (w[a], w[b])
                break
    elif isinstance(w, (list, tuple)) and len(w) == 2:
        pair = tuple(w)
    elif "window_start_s" in summary and "window_end_s" in summary:
        pair = (summary["window_start_s"], summary["window_end_s"])
    if pair is None:
        return None
    try:
        return float(pair[0]), float(pair[1])
    except (TypeError, ValueError):
        return None


class SchedulerRun:
    """The output of one scheduler in one run: a directory holding summary.json and the CSVs.

    Attributes: ``directory``, ``summary`` (the parsed JSON), ``scheduler``, ``topology``,
    ``placement`` (``"?"`` if summary.json lacks it), ``mean_utilization`` (0..1, as written by
    the runner, never recomputed), ``window`` ((start_s, end_s) or None).
    """

    def __init__(self, directory):
        self.directory = directory
        self.summary_path = os.path.join(directory, SUMMARY_FILE)
        s = read_json(self.summary_path)
        self.summary = s
        self.scheduler = _summary_string(s, self.summary_path, "scheduler")
        self.topology = _summary_string(s, self.summary_path, "topology")
        self.placement = s.get("placement", "?")
        if not isinstance(self.placement, str):
            raise ResultsError(
                f"{self.summary_path}: field 'placement': expected a string, "
                f"got {self.placement!r}")
        self.mean_utilization = _summary_number(s, self.summary_path, "mean_gpu_utilization")
        self.window = _summary_window(s)

    def path(self, name):
        """Path of result file ``name`` in this scheduler directory."""
        return os.path.join(self.directory, name)

    def utilization(self):
        """utilization.csv as (times_s, gpu_utilization) lists (file order, step function)."""
        p = self.path(UTILIZATION_FILE)
        t = read_csv(p, {"time_s": float, "gpu_utilization": float})
        times, util = t["time_s"], t["gpu_utilization"]
        for i in range(1, len(times)):
            if times[i] < times[i - 1]:
                raise ResultsError(f"{p}: column 'time_s' decreases at data row {i + 1}")
        return times, util

    def link_intensity(self):
        """link-intensity.csv as a :class:`LinkIntensity`."""
        p = self.path(LINK_INTENSITY_FILE)
        t = read_csv(p, {"bin_start_s": float, "link": str, "bytes": float,
                         "mean_intensity_flops_per_s": float})
        return LinkIntensity(p, t["bin_start_s"], t["link"], t["bytes"],
                             t["mean_intensity_flops_per_s"])

    def label(self):
        """``topology/placement/scheduler``."""
        return f"{self.topology}/{self.placement}/{self.scheduler}"


class LinkIntensity:
    """Traffic per (time bin, link) with its byte-weighted mean GPU intensity.

    ``cells`` maps (bin_start_s, link) -> [bytes, sum of bytes x intensity]; keeping the weighted
    sum makes merging bins (:meth:`rebinned`) exact.
    """

    def __init__(self, path, bins, links, nbytes, intensity):
        self.path = path
        self.cells = {}
        for b, l, n, i in zip(bins, links, nbytes, intensity):
            if n < 0:
                raise ResultsError(f"{path}: column 'bytes': negative value {n} (link {l})")
            cell = self.cells.setdefault((b, l), [0.0, 0.0])
            cell[0] += n
            cell[1] += n * i

    def bins(self):
        """Sorted bin start times, seconds."""
        return sorted({b for b, _ in self.cells})

    def link_totals(self):
        """dict link -> total bytes over all bins."""
        tot = {}
        for (_, l), (n, _) in self.cells.items():
            tot[l] = tot.get(l, 0.0) + n
        return tot

    def link_mean_intensity(self):
        """dict link -> byte-weighted mean intensity over all bins (FLOPs/s; NaN if no bytes)."""
        acc = {}
        for (_, l), (n, w) in self.cells.items():
            a = acc.setdefault(l, [0.0, 0.0])
            a[0] += n
            a[1] += w
        return {l: (w / n if n > 0 else float("nan")) for l, (n, w) in acc.items()}

    def rebinned(self, width, origin=0.0):
        """A copy with bins merged to ``width`` seconds (bin start = origin + k*width)."""
        out = LinkIntensity(self.path, [], [], [], [])
        for (b, l), (n, w) in self.cells.items():
            nb = origin + math.floor((b - origin) / width + 1e-9) * width
            cell = out.cells.setdefault((nb, l), [0.0, 0.0])
            cell[0] += n
            cell[1] += w
        return out

    def matrix(self, links, bins):
        """(bytes, intensity) matrices, rows = links, columns = bins; intensity NaN if no bytes."""
        col = {b: j for j, b in enumerate(bins)}
        row = {l: i for i, l in enumerate(links)}
        nbytes = [[0.0] * len(bins) for _ in links]
        inten = [[float("nan")] * len(bins) for _ in links]
        for (b, l), (n, w) in self.cells.items():
            if l in row and b in col and n > 0:
                nbytes[row[l]][col[b]] = n
                inten[row[l]][col[b]] = w / n
        return nbytes, inten


def find_runs(directory):
    """The scheduler directories of a run directory (or the directory itself).

    :param directory: a scheduler directory (holds summary.json) or a run directory (its
        subdirectories that hold summary.json, in SCHEDULER_ORDER)
    :return: list of :class:`SchedulerRun`
    :raises ResultsError: the directory does not exist or holds no summary.json
    """
    if not os.path.isdir(directory):
        raise ResultsError(f"{directory}: no such directory")
    if os.path.exists(os.path.join(directory, SUMMARY_FILE)):
        return [SchedulerRun(directory)]
    runs = []
    for name in sorted(os.listdir(directory)):
        sub = os.path.join(directory, name)
        if os.path.isdir(sub) and os.path.exists(os.path.join(sub, SUMMARY_FILE)):
            runs.append(SchedulerRun(sub))
    rank = {s: i for i, s in enumerate(ordered([r.scheduler for r in runs], SCHEDULER_ORDER))}
    runs.sort(key=lambda r: rank[r.scheduler])
    if not runs:
        raise ResultsError(
            f"{directory}: no {SUMMARY_FILE} in it or in its subdirectories "
            "(expected the --outputDir of crux-trace-run)")
    return runs


def load_runs(directories, schedulers=None):
    """All scheduler runs of several run directories, optionally only some schedulers.

    :param directories: run or scheduler directories
    :param schedulers: None (all) or a list of scheduler names to keep
    :raises ResultsError: a directory problem, or a requested scheduler found nowhere
    """
    runs = []
    for d in directories:
        runs.extend(find_runs(d))
    if schedulers:
        found = {r.scheduler for r in runs}
        for s in schedulers:
            if s not in found:
                raise ResultsError(
                    f"--schedulers: no run of scheduler '{s}' in {', '.join(directories)} "
                    f"(found: {', '.join(sorted(found))})")
        runs = [r for r in runs if r.scheduler in schedulers]
    return runs


def ordered(names, preferred, explicit=None):
    """Unique ``names`` in ``explicit`` order if given, else ``preferred`` order then by name."""
    uniq = list(dict.fromkeys(names))
    if explicit:
        return [n for n in explicit if n in uniq]
    rank = {n: i for i, n in enumerate(preferred)}
    return sorted(uniq, key=lambda n: (rank.get(n, len(rank)), n))


def step_mean(times, values, start, end):
    """Time-weighted mean over [start, end) of a step function (value i holds from times[i]).

    Before the first sample the function counts as 0. Returns NaN if end <= start.
    """
    if end <= start:
        return float("nan")
    total = 0.0
    for i, t in enumerate(times):
        t1 = times[i + 1] if i + 1 < len(times) else end
        a, b = max(t, start), min(t1, end)
        if b > a:
            total += values[i] * (b - a)
    return total / (end - start)


def smoothed(times, values, width, end):
    """Step function averaged over consecutive bins of ``width`` seconds from times[0] to end.

    :return: (bin centres, bin means) lists
    """
    if not times:
        return [], []
    centres, means = [], []
    t = times[0]
    while t < end:
        b = min(t + width, end)
        centres.append((t + b) / 2)
        means.append(step_mean(times, values, t, b))
        t += width
    return centres, means


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


def utilization_bars(ax, cmap, groups, scheds, cells):
    """Grouped bars of ``mean_gpu_utilization`` in percent on ``ax``: one group per entry of
    ``groups`` (at x = 0, 1, ...), one bar per scheduler of ``scheds`` (color ``cmap(k % 10)``,
    labelled with its value); ``cells`` maps (group, scheduler) to a SchedulerRun, missing
    pairs leave a gap. The caller sets the tick labels, axis labels and legend."""
    width = 0.8 / len(scheds)
    for k, s in enumerate(scheds):
        xs, ys = [], []
        for i, g in enumerate(groups):
            r = cells.get((g, s))
            if r is not None:
                xs.append(i - 0.4 + width * (k + 0.5))
                ys.append(r.mean_utilization * 100)
        bars = ax.bar(xs, ys, width, label=s, color=cmap(k % 10), edgecolor="black",
                      linewidth=0.5)
        ax.bar_label(bars, fmt="%.1f", fontsize=7, padding=1)


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
    except ImportError as e:
        raise ResultsError(
            f"matplotlib is not importable ({e}); install python3-matplotlib or use --print-only"
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
