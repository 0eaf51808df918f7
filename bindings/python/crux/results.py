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
"""crux's result directories as pandas DataFrames (pure Python + pandas: no cppyy, no ns-3).

Three kinds of directory are read (doc/crux.rst, "Results as data frames")::

    import sys; sys.path.insert(0, "<crux clone>/bindings/python")
    from crux import results
    e = results.load_experiment("results/sec22-gpt-bert")   # crux-experiment --outputDir
    e.job_times          # per scheduler and job: iteration time, 95 % CI, change against alone
    e.clusters           # per scheduler: utilization and its contention decomposition
    t = results.load_trace("out/clos")                       # crux-trace-run --outputDir
    t.summary            # one row per scheduler
    s = results.load_sweep("sweep-out")                      # scripts/sweep.py --out
    s.table              # table.csv, typed; numeric parameter columns with their unit
    results.load("any of the three")                         # picks the kind from the files

Every column is typed (float64, int64, string or bool) and a column that holds a quantity
carries its unit in its name: ``_s`` seconds, ``_bytes``, ``_frames``, ``_fraction`` (0..1),
``_flops``, ``_flops_per_s``, ``_bit_per_s``; a mean over ECMP seeds comes with its 95 %
Student-t half-width in ``<name>_ci95`` (NaN for fewer than two seeds) and the number of seeds
in ``n`` (a scheduler whose one simulation stands for every seed, ``runs`` 1, counts each seed
it stands for, with a zero interval: its value is the same for every seed). Floats are parsed
exactly (``float_precision="round_trip"``): a value equals the number in the file.

Every problem with an input (missing directory or file, missing column or field, a value that is
not a number) raises :class:`ResultsError`, whose message is one line naming the path (and the
column or field).
"""

import json
import math
import os
import re

from .run_settings import RUN_SETTINGS, first_difference

try:
    import pandas as pd
except ImportError as _e:  # pragma: no cover - the set-up installs it
    raise ImportError(f"crux.results needs pandas ({_e}); scripts/setup.sh installs it into "
                      "build/venv: run with build/venv/bin/python") from None

__all__ = ["ResultsError", "load", "load_experiment", "load_trace", "load_sweep", "Experiment",
           "TraceRun", "SchedulerRun", "LinkIntensity", "Sweep", "summarize", "t_quantile",
           "format_significant", "format_interval", "format_duration", "parse_quantity",
           "step_mean", "smoothed", "ordered", "find_runs", "load_runs", "check_same_run",
           "RUN_SETTINGS", "SCHEDULER_ORDER",
           "PLACEMENT_ORDER", "TOPOLOGY_ORDER", "TC_CONTROL"]

#: Preferred order of scheduler names in tables and legends (others follow alphabetically).
SCHEDULER_ORDER = ["ecmp", "sincronia", "varys", "taccl", "cassini", "optimal", "crux-pa",
                   "crux-ps-pa", "crux", "crux-full"]
#: Preferred order of placement policies (others follow alphabetically).
PLACEMENT_ORDER = ["random", "locality", "buddy", "trace"]
#: Preferred order of topologies (others follow alphabetically).
TOPOLOGY_ORDER = ["clos", "double-sided", "lingjun"]
#: Traffic class of ACK/NAK/CNP frames in ``maxQueueBytes`` (after TC 0-7).
TC_CONTROL = 8


class ResultsError(Exception):
    """A problem with an input path or value; the message is one line naming it."""


# --------------------------------------------------------------------------------------------
# Statistics and number formats (the rules of model/metrics/sample-statistics.cc)
# --------------------------------------------------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the regularized incomplete beta function (Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t, df):
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p, df):
    """Quantile ``p`` (0.5 < p < 1) of Student's t with ``df`` degrees of freedom (bisection on
    the CDF, to 1e-12; the value Boost.Math gives the C++ side)."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile: p={p}, df={df}")
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def summarize(values, confidence=0.95):
    """(mean, half-width of the Student-t interval, n) of finite ``values``; the half-width is
    0 for one value or equal values (as ``Summarize`` in sample-statistics.cc), NaN for none."""
    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(vals)
    if n == 0:
        return float("nan"), float("nan"), 0
    if all(v == vals[0] for v in vals):
        return vals[0], 0.0, n
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return mean, t_quantile((1 + confidence) / 2, n - 1) * sd / math.sqrt(n), n


#: Below this magnitude a printed value is 0 (rounding noise of x/x - 1).
_NOISE = 1e-9


def _decimals_for(value, digits):
    if value == 0:
        return digits - 1
    return max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))


def _fixed(value, decimals):
    out = f"{value:.{decimals}f}"
    if out.strip("-0.") == "":
        out = out.lstrip("-")
    return out


def format_significant(value, digits=4):
    """``value`` with ``digits`` significant digits, fixed notation ("–" if not finite)."""
    if value is None or not math.isfinite(value):
        return "–"
    digits = max(1, digits)
    if abs(value) < _NOISE:
        value = 0.0
    decimals = _decimals_for(value, digits)
    decimals = _decimals_for(float(_fixed(value, decimals)), digits)
    return _fixed(value, decimals)


def format_interval(mean, half_width, n=2, scale=1.0):
    """``mean ± half_width`` rounded to the precision the interval supports: the half-width with
    2 significant digits fixes the last decimal place, the mean gets the same place but never
    more than 4 significant digits, so an interval below the mean's last digit prints as an
    upper bound at that place ("0.2747 ± <0.0001": there is an interval, narrower than the
    digits shown);
    the mean alone (4 digits) for n < 2 or a zero interval. The rule of FormatInterval
    (model/metrics/sample-statistics.cc), whose tables show the same text."""
    if mean is None or not math.isfinite(mean * scale):
        return "–"
    m = mean * scale
    hw = 0.0 if half_width is None or not math.isfinite(half_width) else abs(half_width * scale)
    hw = 0.0 if hw < _NOISE else hw
    if n < 2 or hw == 0:
        return format_significant(m, 4)
    decimals = min(_decimals_for(hw, 2), _decimals_for(m, 4))
    width = _fixed(hw, decimals)
    if width.strip("0.") == "":
        # narrower than the mean's last digit: say so rather than print a zero interval
        return f"{_fixed(m, decimals)} ± <{_fixed(10.0 ** -decimals, decimals)}"
    return f"{_fixed(m, decimals)} ± {width}"


def format_duration(seconds):
    """Seconds in the unit that keeps 4 significant digits >= 1 (s, ms, us, ns)."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "–"
    for scale, name in ((1, "s"), (1e3, "ms"), (1e6, "us"), (1e9, "ns")):
        text = format_significant(seconds * scale, 4)
        if seconds == 0 or float(text) >= 1 or scale == 1e9:
            return f"{text} {name}"
    return f"{format_significant(seconds, 4)} s"


def duration_unit(seconds):
    """(scale, unit name) that shows ``seconds`` (a typical value) with a leading digit >= 1."""
    s = abs(seconds) if seconds is not None and math.isfinite(seconds) else 1.0
    for scale, name in ((1, "s"), (1e3, "ms"), (1e6, "µs")):
        if s * scale >= 1:
            return scale, name
    return 1e9, "ns"


#: ns-3 value suffixes: (regular expression, base unit, factor).
_QUANTITY_UNITS = [
    (r"([kKMGT]?)bps", "bit/s", {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}),
    (r"([KMGT]i)?B", "B", {"": 1, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40}),
    (r"([kKMGT])B", "B", {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}),
    (r"(ns|us|ms|s|min|h|d)", "s", {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60,
                                    "h": 3600, "d": 86400}),
]
_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


def parse_quantity(text):
    """(value in base units, unit) of a number with an ns-3 unit suffix ("25Gbps" -> (2.5e10,
    "bit/s"), "32MiB" -> (33554432, "B"), "1us" -> (1e-6, "s")), (value, "") of a plain number,
    None otherwise."""
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text), ""
    text = str(text).strip()
    m = re.fullmatch(_NUMBER, text)
    if m:
        return float(m.group(1)), ""
    for suffix, unit, factors in _QUANTITY_UNITS:
        m = re.fullmatch(_NUMBER + r"\s*" + suffix, text)
        if m:
            return float(m.group(1)) * factors[m.group(2) or ""], unit
    return None


# --------------------------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------------------------

def _check_file(path):
    if not os.path.exists(path):
        raise ResultsError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ResultsError(f"{path}: is a directory, expected a file")
    if not os.access(path, os.R_OK):
        raise ResultsError(f"{path}: cannot open (permission denied)")


def read_csv(path, columns, rename=None):
    """A CSV file with a header line as a DataFrame of the given columns.

    :param columns: dict column name -> ``float``, ``int``, ``str`` or ``bool`` (0/1); other
        columns of the file are dropped, a missing one is an error
    :param rename: dict file column -> frame column (the unit in the name)
    :raises ResultsError: missing/unreadable file, no header, missing column, a value that is
        not a number (naming the line), NaN
    """
    _check_file(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise ResultsError(f"{path}: empty file (no header line)") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: malformed CSV ({' '.join(str(e).split())})") from None
    raw.columns = [str(c).strip() for c in raw.columns]
    out = {}
    for name, kind in columns.items():
        if name not in raw.columns:
            raise ResultsError(f"{path}: missing column '{name}' (header: "
                               f"{','.join(raw.columns)})")
        text = raw[name].str.strip()
        if kind is str:
            out[name] = text.astype("string")
            continue
        values = pd.to_numeric(text, errors="coerce")
        bad = values.isna()
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            what = text.iloc[i]
            raise ResultsError(f"{path}:{i + 2}: column '{name}': "
                               + ("no value (an empty field, or a row shorter than the "
                                  "header)" if what == "" else
                                  f"'{what}' is not a number" if what.lower() != "nan"
                                  else "value is NaN"))
        if kind is float:
            # exact: the shortest round-trip text of a double parses back to that double
            out[name] = pd.Series([float(t) for t in text], index=raw.index, dtype="float64")
        elif kind is int:
            out[name] = values.astype("int64")
        elif kind is bool:
            out[name] = values.astype("int64") != 0
    frame = pd.DataFrame(out, index=raw.index)
    return frame.rename(columns=rename or {}).reset_index(drop=True)


def read_json(path):
    """A JSON object from ``path``; ResultsError for a missing file or malformed JSON."""
    _check_file(path)
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ResultsError(f"{path}: malformed JSON (line {e.lineno}: {e.msg})") from None
        except UnicodeDecodeError:
            raise ResultsError(f"{path}: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object at the top level")
    return data


def _field(doc, path, field, kind):
    """doc[field] of type ``kind`` (float or str), or ResultsError naming the field."""
    if not isinstance(doc, dict) or field not in doc:
        raise ResultsError(f"{path}: missing field '{field}'")
    value = doc[field]
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ResultsError(f"{path}: field '{field}': expected a number, got {value!r}")
        return float(value)
    if not isinstance(value, kind):
        raise ResultsError(f"{path}: field '{field}': expected a {kind.__name__}, "
                           f"got {value!r}")
    return value


def _require_dir(directory):
    if not os.path.exists(directory):
        raise ResultsError(f"{directory}: no such directory")
    if not os.path.isdir(directory):
        raise ResultsError(f"{directory}: not a directory")


def ordered(names, preferred, explicit=None):
    """Unique ``names`` in ``explicit`` order if given, else ``preferred`` order then by name."""
    uniq = list(dict.fromkeys(names))
    if explicit:
        return [n for n in explicit if n in uniq]
    rank = {n: i for i, n in enumerate(preferred)}
    return sorted(uniq, key=lambda n: (rank.get(n, len(rank)), n))


# --------------------------------------------------------------------------------------------
# crux-experiment result directories
# --------------------------------------------------------------------------------------------

#: The files of a crux-experiment result directory: file -> ({column: type}, {rename}).
EXPERIMENT_CSV = {
    "jobs.csv": ({"run": str, "roles": str, "seeds": str, "scheduler": str, "job": str,
                  "model": str, "gpus": int, "background": bool, "level": int, "dscp": int,
                  "flops_per_iteration": float, "intensity_flops_per_s": float, "k": float,
                  "rerouted_flows": int, "measured_iterations": int,
                  "mean_iteration_s": float, "throughput_iter_per_s": float,
                  "mean_comm_s": str, "jct_s": str},
                 {"flops_per_iteration": "flops_per_iteration_flops"}),
    "iterations.csv": ({"run": str, "job": str, "iteration": int, "start_s": float,
                        "end_s": float, "duration_s": float, "allreduce_s": float}, {}),
    "links.csv": ({"run": str, "link": int, "tc": int, "bytes": float}, {}),
    "paths.csv": ({"run": str, "job": str, "flow": int, "links": str}, {}),
    "pfc.csv": ({"run": str, "link": int, "tc": int, "pause_frames_sent": int},
                {"pause_frames_sent": "pause_sent_frames"}),
    "drops.csv": ({"run": str, "reason": str, "frames": int}, {}),
    "utilization.csv": ({"run": str, "bin_start_s": float, "bin_s": float,
                         "flop_utilization": float},
                        {"flop_utilization": "flop_utilization_fraction"}),
    "timing.csv": ({"run": str, "wall_s": float, "simulated_s": float, "events": int}, {}),
    # only with ns3::LinkThroughputSampler::Interval > 0 (Experiment.link_throughput)
    "link_throughput.csv": ({"run": str, "time_s": float, "interval_s": float, "link": int,
                             "tc": int, "bytes": float, "gbps": float},
                            {"gbps": "throughput_gbit_per_s"}),
}

#: Layer names of a link at depth d of an up-down path (0: host links).
LAYER_NAMES = ["host–ToR", "ToR–agg", "agg–core", "core–spine"]


def _optional_float(series):
    """A text column with empty cells as float64 (NaN where empty)."""
    return pd.to_numeric(series.replace("", None), errors="coerce").astype("float64")


def _ci(d):
    """(mean, ci95, n) of a summary.json interval object (NaN if absent). The half-width is NaN
    for n < 2: one seed gives no interval (summary.json writes 0 there)."""
    if not isinstance(d, dict):
        return float("nan"), float("nan"), 0
    n = int(d.get("n", 0))
    ci = float(d.get("ci95", float("nan"))) if n >= 2 else float("nan")
    return float(d.get("mean", float("nan"))), ci, n


class Experiment:
    """A crux-experiment result directory (its ``--outputDir``).

    ``summary`` is summary.json as parsed; ``scenario`` its scenario; ``fabric`` "flow" or
    "packet"; ``seeds`` the number of ECMP seeds. The CSV files are DataFrames (read on first
    use): ``jobs``, ``iterations``, ``links``, ``paths``, ``pfc``, ``drops``, ``utilization``,
    ``timing``, ``link_throughput`` (empty unless the run sampled it). From summary.json:
    ``runs`` (one row per simulation), ``max_queue`` (packet fabric), ``references`` (each job
    alone), ``job_times`` (each job under each scheduler), ``clusters`` (utilization and
    decomposition per scheduler); ``link_layers`` places every link of ``links.csv`` on a
    topology layer.
    """

    def __init__(self, directory):
        _require_dir(directory)
        self.directory = directory
        self.summary_path = os.path.join(directory, "summary.json")
        if not os.path.exists(self.summary_path):
            raise ResultsError(f"{directory}: not a crux-experiment result directory (no "
                               "summary.json)")
        s = read_json(self.summary_path)
        for field in ("runs", "scenario", "summary"):
            if field not in s:
                raise ResultsError(f"{self.summary_path}: missing field '{field}' (not "
                                   "written by crux-experiment)")
        self.summary = s
        self.scenario = s["scenario"]
        self.name = str(self.scenario.get("name", os.path.basename(directory.rstrip("/"))))
        self.fabric = str(self.scenario.get("fabric", "packet"))
        self.seeds = int(s["summary"].get("seeds", self.scenario.get("seeds", 1)) or 1)
        self._frames = {}

    def path(self, name):
        return os.path.join(self.directory, name)

    def _csv(self, name):
        if name not in self._frames:
            columns, rename = EXPERIMENT_CSV[name]
            f = read_csv(self.path(name), columns, rename)
            for c in ("mean_comm_s", "jct_s"):
                if c in f.columns:
                    f[c] = _optional_float(f[c])
            self._frames[name] = f
        return self._frames[name]

    jobs = property(lambda self: self._csv("jobs.csv"))
    iterations = property(lambda self: self._csv("iterations.csv"))
    links = property(lambda self: self._csv("links.csv"))
    paths = property(lambda self: self._csv("paths.csv"))
    pfc = property(lambda self: self._csv("pfc.csv"))
    drops = property(lambda self: self._csv("drops.csv"))
    utilization = property(lambda self: self._csv("utilization.csv"))
    timing = property(lambda self: self._csv("timing.csv"))

    @property
    def link_throughput(self):
        """The sampled throughput of every link and class (link_throughput.csv: run, time_s at
        the interval's end, interval_s, link, tc, bytes, throughput_gbit_per_s); an empty frame
        of those columns when the run did not sample (ns3::LinkThroughputSampler::Interval 0)."""
        if not os.path.exists(self.path("link_throughput.csv")):
            columns, rename = EXPERIMENT_CSV["link_throughput.csv"]
            empty = pd.DataFrame({c: pd.Series(dtype="string" if k is str else
                                               ("int64" if k is int else "float64"))
                                  for c, k in columns.items()})
            return empty.rename(columns=rename)
        return self._csv("link_throughput.csv")

    def _runs_list(self):
        runs = self.summary["runs"]
        if not isinstance(runs, list):
            raise ResultsError(f"{self.summary_path}: field 'runs': expected a list")
        return runs

    @property
    def runs(self):
        """One row per simulation: run, scheduler, roles (space-separated), seeds, complete,
        utilization_fraction, window_start_s, window_end_s, simulated_s, pause_frames,
        retransmitted_packets, timeouts, drops_frames."""
        rows = []
        for r in self._runs_list():
            drops = r.get("drops")
            rows.append({
                "run": _field(r, self.summary_path, "run", str),
                "scheduler": str(r.get("scheduler", "")),
                "roles": " ".join(r.get("roles", [])),
                "seeds": " ".join(str(x) for x in r.get("seeds", [])),
                "complete": bool(r.get("complete", True)),
                "utilization_fraction": float(r.get("utilization", float("nan"))),
                "window_start_s": float(r.get("windowStart", float("nan"))),
                "window_end_s": float(r.get("windowEnd", float("nan"))),
                "simulated_s": float(r.get("simulatedTime", float("nan"))),
                "pause_frames": int(r.get("pauseFrames", 0)),
                "retransmitted_packets": int(r.get("retransmittedPackets", 0)),
                "timeouts": int(r.get("timeouts", 0)),
                "drops_frames": int(sum(drops.values())) if isinstance(drops, dict) else 0,
            })
        return pd.DataFrame(rows).astype({"run": "string", "scheduler": "string",
                                          "roles": "string", "seeds": "string"})

    @property
    def max_queue(self):
        """The deepest queue any device held, per run and class (packet fabric; empty on the
        flow fabric): run, tc (8 = control class), max_queue_bytes."""
        rows = []
        for r in self._runs_list():
            for tc, b in enumerate(r.get("maxQueueBytes") or []):
                rows.append({"run": r["run"], "tc": tc, "max_queue_bytes": float(b)})
        return pd.DataFrame(rows, columns=["run", "tc", "max_queue_bytes"]).astype(
            {"run": "string", "tc": "int64", "max_queue_bytes": "float64"})

    def _summary_list(self, key):
        lst = self.summary["summary"].get(key, [])
        if not isinstance(lst, list):
            raise ResultsError(f"{self.summary_path}: field 'summary.{key}': expected a list")
        return lst

    @property
    def references(self):
        """Each job alone: job, reference ("alone@ECMP", "alone@free", "alone@paths(<s>)"),
        iteration_s, iteration_s_ci95, n."""
        rows = []
        for r in self._summary_list("references"):
            refs = [("alone@ECMP", r.get("aloneEcmp")), ("alone@free", r.get("aloneFree"))]
            refs += [(f"alone@paths({s})", v) for s, v in (r.get("alonePaths") or {}).items()]
            for name, v in refs:
                if v is None:
                    continue
                m, ci, n = _ci(v)
                rows.append({"job": r.get("job"), "reference": name, "iteration_s": m,
                             "iteration_s_ci95": ci, "n": n})
        return pd.DataFrame(rows, columns=["job", "reference", "iteration_s",
                                           "iteration_s_ci95", "n"]).astype(
            {"job": "string", "reference": "string"})

    @property
    def job_times(self):
        """Each job under each scheduler: scheduler, job, level, iteration_s (+ _ci95, n: the
        seeds with a measured iteration), vs_alone_ecmp_fraction and vs_alone_paths_fraction
        (the change against the job alone, per seed; + _ci95), few_iterations."""
        rows = []
        for j in self._summary_list("jobs"):
            m, ci, n = _ci(j.get("iterationTime"))
            va, vaci, _ = _ci(j.get("vsAloneEcmp"))
            vp, vpci, _ = _ci(j.get("vsAlonePaths"))
            rows.append({"scheduler": j.get("scheduler"), "job": j.get("job"),
                         "level": int(j.get("level", 0)), "iteration_s": m,
                         "iteration_s_ci95": ci, "n": n, "vs_alone_ecmp_fraction": va,
                         "vs_alone_ecmp_fraction_ci95": vaci, "vs_alone_paths_fraction": vp,
                         "vs_alone_paths_fraction_ci95": vpci,
                         "few_iterations": bool(j.get("fewIterations", False))})
        cols = ["scheduler", "job", "level", "iteration_s", "iteration_s_ci95", "n",
                "vs_alone_ecmp_fraction", "vs_alone_ecmp_fraction_ci95",
                "vs_alone_paths_fraction", "vs_alone_paths_fraction_ci95", "few_iterations"]
        return pd.DataFrame(rows, columns=cols).astype({"scheduler": "string", "job": "string"})

    #: summary.json cluster terms -> column stem (fractions of the cluster's peak FLOP/s).
    CLUSTER_TERMS = [("utilization", "utilization_fraction"),
                     ("aloneEcmp", "alone_ecmp_fraction"),
                     ("aloneFree", "alone_free_fraction"),
                     ("alonePaths", "alone_paths_fraction"),
                     ("ownFlowLoss", "own_flow_loss_fraction"),
                     ("pathGain", "path_gain_fraction"),
                     ("interJobLoss", "inter_job_loss_fraction"),
                     ("priorityRecovery", "priority_recovery_fraction"),
                     ("vsAloneEcmp", "vs_alone_ecmp_fraction")]

    @property
    def clusters(self):
        """Per scheduler: runs (simulations of its mix), n (seeds), the cluster GPU utilization,
        the sum of its jobs alone (alone@ECMP, @free, @paths) and the contention decomposition
        (own-flow loss, path gain, inter-job loss, priority recovery), each a fraction of the
        cluster's peak with its _ci95 (doc/crux.rst, "Measurement methodology"); incomplete,
        and jobs_outside_window (the jobs with no iteration in the window, space-separated)."""
        rows = []
        for c in self._summary_list("clusters"):
            row = {"scheduler": c.get("scheduler"), "runs": int(c.get("runs", 0))}
            n = 0
            for key, col in self.CLUSTER_TERMS:
                m, ci, k = _ci(c.get(key))
                row[col], row[col + "_ci95"] = m, ci
                n = max(n, k)
            row["n"] = n
            row["incomplete"] = bool(c.get("incomplete", False))
            row["jobs_outside_window"] = " ".join(str(j) for j in
                                                  c.get("jobsOutsideWindow") or [])
            rows.append(row)
        cols = ["scheduler", "runs", "n"] + [x for _, c in self.CLUSTER_TERMS
                                            for x in (c, c + "_ci95")] + \
            ["incomplete", "jobs_outside_window"]
        return pd.DataFrame(rows, columns=cols).astype({"scheduler": "string"})

    @property
    def link_layers(self):
        """Every link of links.csv and paths.csv: link, layer (LAYER_NAMES, from its position
        on the up-down paths of paths.csv: the d-th link up or the d-th link down from a host
        is on layer d), direction ("up", "down"; "" if the paths disagree or never use it)."""
        depth = {}
        for links in self.paths["links"]:
            ids = [int(x[1:]) for x in str(links).split() if x.startswith("l")]
            n = len(ids)
            for i, l in enumerate(ids):
                d, up = (i, "up") if i < n / 2 else (n - 1 - i, "down")
                depth.setdefault(l, set()).add((d, up))
        rows = []
        for l in sorted(set(depth) | set(int(x) for x in self.links["link"])):
            seen = depth.get(l, set())
            if len(seen) == 1:
                d, up = next(iter(seen))
                layer = LAYER_NAMES[d] if d < len(LAYER_NAMES) else f"layer {d}"
            else:
                layer, up = ("unused by any path" if not seen else "mixed"), ""
            rows.append({"link": l, "layer": layer, "direction": up})
        return pd.DataFrame(rows, columns=["link", "layer", "direction"]).astype(
            {"link": "int64", "layer": "string", "direction": "string"})

    def run_scheduler(self):
        """dict run -> scheduler of every mix run (roles "mix:<s>"), from summary.json."""
        out = {}
        for r in self._runs_list():
            for role in r.get("roles", []):
                if role.startswith("mix:"):
                    out[r["run"]] = role[len("mix:"):]
        return out

    def schedulers(self):
        """The schedulers of the mixes, in the order of the summary."""
        return [c.get("scheduler") for c in self._summary_list("clusters")]


def load_experiment(directory):
    """A crux-experiment result directory as an :class:`Experiment`."""
    return Experiment(directory)


# --------------------------------------------------------------------------------------------
# crux-trace-run result directories
# --------------------------------------------------------------------------------------------

SUMMARY_FILE = "summary.json"
UTILIZATION_FILE = "utilization.csv"
LINK_INTENSITY_FILE = "link-intensity.csv"


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


#: jobs.csv columns of a trace run (doc/crux.rst, "Output files"), as read by read_csv
TRACE_JOBS_COLUMNS = {
    "job": int, "name": str, "model": str, "gpus": int, "hosts": int, "submit_s": float,
    "start_s": str, "end_s": str, "jct_s": str, "iterations": float, "alone_iter_s": float,
    "mean_iter_s": float, "slowdown": float, "flops_per_iter": float, "intensity": str,
    "arrival_s": float, "work_iterations": float, "finished": int}
#: jobs.csv columns that are empty where there is no value (float64 with NaN there)
TRACE_JOBS_OPTIONAL = ("start_s", "end_s", "jct_s", "intensity")


class SchedulerRun:
    """The output of one scheduler in one crux-trace-run call: a directory holding
    summary.json, utilization.csv, link-intensity.csv, jobs.csv and decisions.csv.

    Attributes: ``directory``, ``summary`` (the parsed JSON), ``scheduler``, ``topology``,
    ``placement`` (``"?"`` if summary.json lacks it), ``mean_utilization`` (0..1, as written by
    the runner, never recomputed), ``window`` ((start_s, end_s) or None).
    """

    def __init__(self, directory):
        self.directory = directory
        self.summary_path = os.path.join(directory, SUMMARY_FILE)
        s = read_json(self.summary_path)
        self.summary = s
        self.scheduler = _field(s, self.summary_path, "scheduler", str)
        self.topology = _field(s, self.summary_path, "topology", str)
        self.placement = s.get("placement", "?")
        if not isinstance(self.placement, str):
            raise ResultsError(f"{self.summary_path}: field 'placement': expected a string, "
                               f"got {self.placement!r}")
        self.mean_utilization = _field(s, self.summary_path, "mean_gpu_utilization", float)
        self.window = _summary_window(s)

    def path(self, name):
        """Path of result file ``name`` in this scheduler directory."""
        return os.path.join(self.directory, name)

    def utilization(self):
        """utilization.csv: time_s, running_jobs, queued_jobs, busy_gpus,
        gpu_utilization_fraction, utilization_alone_default_fraction,
        utilization_alone_installed_fraction (a step function: a row holds until the next)."""
        p = self.path(UTILIZATION_FILE)
        f = read_csv(p, {"time_s": float, "running_jobs": int, "queued_jobs": int,
                         "busy_gpus": int, "gpu_utilization": float,
                         "utilization_alone_default": float,
                         "utilization_alone_installed": float},
                     {"gpu_utilization": "gpu_utilization_fraction",
                      "utilization_alone_default": "utilization_alone_default_fraction",
                      "utilization_alone_installed": "utilization_alone_installed_fraction"})
        dec = f["time_s"].diff() < 0
        if dec.any():
            raise ResultsError(f"{p}: column 'time_s' decreases at data row "
                               f"{int(dec.to_numpy().nonzero()[0][0]) + 1}")
        return f

    def link_intensity_frame(self):
        """link-intensity.csv: bin_start_s, link, bytes, mean_intensity_flops_per_s."""
        p = self.path(LINK_INTENSITY_FILE)
        f = read_csv(p, {"bin_start_s": float, "link": str, "bytes": float,
                         "mean_intensity_flops_per_s": float})
        neg = f["bytes"] < 0
        if neg.any():
            i = int(neg.to_numpy().nonzero()[0][0])
            raise ResultsError(f"{p}: column 'bytes': negative value {f['bytes'][i]} "
                               f"(link {f['link'][i]})")
        return f

    def link_intensity(self):
        """link-intensity.csv as a :class:`LinkIntensity`."""
        return LinkIntensity(self.path(LINK_INTENSITY_FILE), self.link_intensity_frame())

    def jobs(self):
        """jobs.csv (every column; numbers as float64, names as strings; ``intensity`` as
        ``intensity_flops_per_s``, +inf for a job that puts no byte on a modelled link)."""
        f = read_csv(self.path("jobs.csv"), TRACE_JOBS_COLUMNS)
        for c in TRACE_JOBS_OPTIONAL:  # empty for a job that never started / did not finish
            f[c] = _optional_float(f[c])
        return f.rename(columns={"intensity": "intensity_flops_per_s"})

    def label(self):
        """``topology/placement/scheduler``."""
        return f"{self.topology}/{self.placement}/{self.scheduler}"


class LinkIntensity:
    """Traffic per (time bin, link) with its byte-weighted mean GPU intensity.

    ``cells`` maps (bin_start_s, link) -> [bytes, sum of bytes x intensity]; keeping the weighted
    sum makes merging bins (:meth:`rebinned`) exact.
    """

    def __init__(self, path, frame=None):
        self.path = path
        self.cells = {}
        if frame is not None:
            for b, l, n, i in zip(frame["bin_start_s"], frame["link"], frame["bytes"],
                                  frame["mean_intensity_flops_per_s"]):
                cell = self.cells.setdefault((float(b), str(l)), [0.0, 0.0])
                cell[0] += float(n)
                cell[1] += float(n) * float(i)

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
        out = LinkIntensity(self.path)
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
    """The scheduler directories of a trace run directory (or the directory itself).

    :param directory: a scheduler directory (holds summary.json) or a run directory (its
        subdirectories that hold summary.json, in SCHEDULER_ORDER)
    :return: list of :class:`SchedulerRun`
    :raises ResultsError: the directory does not exist or holds no summary.json
    """
    _require_dir(directory)
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
        raise ResultsError(f"{directory}: no {SUMMARY_FILE} in it or in its subdirectories "
                           "(expected the --outputDir of crux-trace-run)")
    return runs


def load_runs(directories, schedulers=None):
    """All scheduler runs of several trace run directories, optionally only some schedulers.

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


def check_same_run(runs, what, ignore=()):
    """Refuse runs compared with each other that are not one experiment.

    :param runs: :class:`SchedulerRun` objects whose numbers are set against each other (e.g.
        the bars of one group of Fig. 23 and their gain over the baseline)
    :param what: what they are, for the message (e.g. "runs of topology 'clos'")
    :param ignore: fields of :data:`RUN_SETTINGS` that may differ (e.g. the placement, for the
        job schedulers of Fig. 25)
    :raises ResultsError: two of them differ in a field of :data:`RUN_SETTINGS` (another seed,
        trace, link rate, window, ...); the message names the field and both summary.json
    """
    for r in runs[1:]:
        key = first_difference(runs[0].summary, r.summary, ignore)
        if key is not None:
            raise ResultsError(
                f"{what} are not one experiment: {runs[0].summary_path} and {r.summary_path} "
                f"differ in '{key}' ({runs[0].summary.get(key)!r} against "
                f"{r.summary.get(key)!r}); plot them in separate calls")


#: summary.json fields of a trace run in :attr:`TraceRun.summary` (column, field, type).
TRACE_SUMMARY = [
    ("total_gpus", "total_gpus", int), ("mean_gpu_utilization_fraction", "mean_gpu_utilization",
                                        float),
    ("utilization_alone_default_fraction", "utilization_alone_default", float),
    ("utilization_alone_installed_fraction", "utilization_alone_installed", float),
    ("busy_gpu_fraction", "busy_gpu_fraction", float), ("sim_end_s", "sim_end_s", float),
    ("window_jobs", "jobs", int), ("jobs_finished", "jobs_finished", int),
    ("jobs_unfinished", "jobs_unfinished", int), ("jobs_unplaceable", "jobs_unplaceable", int),
    ("mean_jct_s", "mean_jct_s", float), ("decisions", "decisions", int),
    ("jobs_zero_duration", "jobs_zero_duration", int),
    ("trace_rows_skipped", "trace_rows_skipped", int), ("events", "events", int),
    ("evaluations", "evaluations", int), ("cache_hits", "cache_hits", int),
    ("fluid_events", "fluid_events", int), ("seed", "seed", int),
    ("placement_seed", "placement_seed", int), ("num_levels", "num_levels", int),
    ("timescale_ratio", "timescale_ratio", float), ("weak_link_bound", "weak_link_bound", float),
    ("horizon_iterations", "horizon_iterations", float), ("drain_s", "drain_s", float),
    ("max_paths", "max_paths", int), ("steady_horizon_limit", "steady_horizon_limit", float),
    ("warmup_fraction", "warmup_fraction", float), ("align_ratio", "align_ratio", float),
    ("bin_s", "bin_s", float),
]
#: nested summary.json fields of a trace run in :attr:`TraceRun.summary` (column, object,
#: field; NaN when absent): the link rates and the generated trace's size, which define the run.
TRACE_SUMMARY_NESTED = [
    ("host_link_bit_per_s", "link_rates_bps", "host"),
    ("tor_agg_link_bit_per_s", "link_rates_bps", "tor_agg"),
    ("agg_core_link_bit_per_s", "link_rates_bps", "agg_core"),
    ("trace_days", "trace", "days"), ("trace_jobs_per_day", "trace", "jobs_per_day"),
]
#: summary.json text fields of a trace run in :attr:`TraceRun.summary` (column = field; "" when
#: absent or null, e.g. the coarse evaluator's options under --evaluator=exact).
TRACE_SUMMARY_TEXT = ["engine", "evaluator", "timeline", "work_model", "priority_classes",
                      "weak_link_rule", "weak_link_classes", "unique_priorities", "topo_csv"]


class TraceRun:
    """A crux-trace-run output directory (or several): ``runs`` (SchedulerRun each);
    ``summary`` one row per scheduler; ``utilization``, ``link_intensity``, ``jobs``: the
    scheduler directories' files concatenated, with topology, placement and scheduler columns."""

    def __init__(self, directories):
        if isinstance(directories, (str, os.PathLike)):
            directories = [os.fspath(directories)]
        self.directories = list(directories)
        self.runs = load_runs(self.directories)

    def _concat(self, frames):
        out = []
        for r, f in zip(self.runs, frames):
            f = f.copy()
            f.insert(0, "scheduler", r.scheduler)
            f.insert(0, "placement", r.placement)
            f.insert(0, "topology", r.topology)
            out.append(f)
        f = pd.concat(out, ignore_index=True)
        return f.astype({"topology": "string", "placement": "string", "scheduler": "string"})

    @property
    def summary(self):
        rows = []
        for r in self.runs:
            row = {"topology": r.topology, "placement": r.placement, "scheduler": r.scheduler}
            w = r.window or (float("nan"), float("nan"))
            row["window_start_s"], row["window_end_s"] = w
            for col, key, kind in TRACE_SUMMARY:
                v = r.summary.get(key)
                row[col] = kind(v) if isinstance(v, (int, float)) and not isinstance(
                    v, bool) else (float("nan") if kind is float else -1)
            for col, obj, key in TRACE_SUMMARY_NESTED:
                o = r.summary.get(obj)
                v = o.get(key) if isinstance(o, dict) else None
                row[col] = float(v) if isinstance(v, (int, float)) and not isinstance(
                    v, bool) else float("nan")
            for key in TRACE_SUMMARY_TEXT:
                v = r.summary.get(key)
                row[key] = "" if v is None else (str(v).lower() if isinstance(v, bool) else
                                                 str(v))
            trace = r.summary.get("trace")
            row["trace_source"] = str(trace.get("source", "")) if isinstance(trace, dict) else ""
            timing = r.summary.get("timing")
            wall = timing.get("wall_seconds") if isinstance(timing, dict) else None
            row["wall_s"] = float(wall) if isinstance(wall, (int, float)) else float("nan")
            row["summary"] = r.summary_path
            rows.append(row)
        text = {c: "string" for c in ["topology", "placement", "scheduler", "summary",
                                       "trace_source"] + TRACE_SUMMARY_TEXT}
        return pd.DataFrame(rows).astype(text)

    @property
    def utilization(self):
        return self._concat([r.utilization() for r in self.runs])

    @property
    def link_intensity(self):
        return self._concat([r.link_intensity_frame() for r in self.runs])

    @property
    def jobs(self):
        return self._concat([r.jobs() for r in self.runs])


def load_trace(directories):
    """One or more crux-trace-run output (or scheduler) directories as a :class:`TraceRun`."""
    return TraceRun(directories)


def step_mean(times, values, start, end):
    """Time-weighted mean over [start, end) of a step function (value i holds from times[i]).

    Before the first sample the function counts as 0. Returns NaN if end <= start.
    """
    times, values = list(times), list(values)
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
    times, values = list(times), list(values)
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


# --------------------------------------------------------------------------------------------
# Sweeps (scripts/sweep.py --out)
# --------------------------------------------------------------------------------------------

#: Columns of a sweep table that are text, whatever they hold.
SWEEP_TEXT_COLUMNS = {"run_id", "program", "run", "output_dir", "status", "error", "scenario",
                      "fabric", "modes", "placement", "workModel", "schedulers",
                      "priority_classes", "topology", "congestionControl"}
#: Sweep table columns renamed in :attr:`Sweep.table` to carry their unit.
SWEEP_RENAME = {"utilization": "utilization_fraction", "drops": "drops_frames",
                "mean_gpu_utilization": "mean_gpu_utilization_fraction",
                "utilization_alone_default": "utilization_alone_default_fraction",
                "utilization_alone_installed": "utilization_alone_installed_fraction",
                "pause_frames": "pause_frames", "simulated_s": "simulated_s"}
#: Unit suffix of a numeric parameter column, by the unit parse_quantity found.
_UNIT_SUFFIX = {"bit/s": "_bit_per_s", "B": "_bytes", "s": "_s"}


class Sweep:
    """A sweep's table.csv: ``table`` (typed: number columns float64, text columns strings; for
    every parameter whose values are all quantities with a unit ("25Gbps", "32MiB") a numeric
    column ``<parameter>_bit_per_s`` / ``_bytes`` / ``_s`` next to the text), ``parameters``
    (the parameter columns, in the sweep file's order), ``quantities`` (parameter -> (numeric
    column, unit)). Result columns without a unit in table.csv get one (SWEEP_RENAME:
    ``utilization`` -> ``utilization_fraction``, ...); :meth:`column` maps a table.csv name."""

    def __init__(self, path):
        if os.path.isdir(path):
            path = os.path.join(path, "table.csv")
            if not os.path.exists(path):
                raise ResultsError(f"{os.path.dirname(path)}: not a sweep directory (no "
                                   "table.csv)")
        else:
            _require_dir(os.path.dirname(os.path.abspath(path)))
        self.path = path
        _check_file(path)
        try:
            raw = pd.read_csv(path, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            raise ResultsError(f"{path}: empty file (no header line)") from None
        except (pd.errors.ParserError, UnicodeDecodeError) as e:
            raise ResultsError(f"{path}: malformed CSV ({' '.join(str(e).split())})") from None
        for c in ("run_id", "program", "status"):
            if c not in raw.columns:
                raise ResultsError(f"{path}: missing column '{c}' (not a sweep table)")
        cols = list(raw.columns)
        try:
            self.parameters = cols[cols.index("program") + 1:cols.index("run")]
        except ValueError:
            raise ResultsError(f"{path}: missing column 'run' (not a sweep table)") from None
        table = {}
        self.quantities = {}
        for c in cols:
            text = raw[c]
            nonempty = text[text != ""]
            numeric = c not in SWEEP_TEXT_COLUMNS and len(nonempty) > 0 and \
                pd.to_numeric(nonempty, errors="coerce").notna().all()
            if numeric:
                table[c] = pd.Series([float(t) if t != "" else float("nan") for t in text],
                                     dtype="float64")
            else:
                table[c] = text.astype("string")
            if c in self.parameters and not numeric and len(nonempty) > 0:
                parsed = [parse_quantity(t) for t in nonempty]
                units = {p[1] for p in parsed if p is not None}
                if all(p is not None for p in parsed) and len(units) == 1 and \
                        units <= set(_UNIT_SUFFIX):
                    unit = units.pop()
                    name = c + _UNIT_SUFFIX[unit]
                    table[name] = pd.Series([parse_quantity(t)[0] if t != "" else float("nan")
                                             for t in text], dtype="float64")
                    self.quantities[c] = (name, unit)
        self.table = pd.DataFrame(table).rename(columns=SWEEP_RENAME)

    @staticmethod
    def column(name):
        """The :attr:`table` column of a table.csv column (renamed ones carry their unit)."""
        return SWEEP_RENAME.get(name, name)

    def ok(self):
        """The rows of runs that succeeded."""
        return self.table[self.table["status"] == "ok"]


def load_sweep(path):
    """A sweep directory (scripts/sweep.py --out) or its table.csv as a :class:`Sweep`."""
    return Sweep(path)


# --------------------------------------------------------------------------------------------
# Any result directory
# --------------------------------------------------------------------------------------------

def kind(directory):
    """"experiment", "trace" or "sweep": what wrote ``directory``; ResultsError if none."""
    _require_dir(directory)
    if os.path.exists(os.path.join(directory, "table.csv")) and \
            os.path.isdir(os.path.join(directory, "runs")):
        return "sweep"
    s = os.path.join(directory, SUMMARY_FILE)
    if os.path.exists(s):
        doc = read_json(s)
        if "runs" in doc and "scenario" in doc:
            return "experiment"
        if "scheduler" in doc:
            return "trace"
        raise ResultsError(f"{s}: neither a crux-experiment nor a crux-trace-run summary")
    subs = sorted(d for d in os.listdir(directory)
                  if os.path.isfile(os.path.join(directory, d, SUMMARY_FILE)))
    for d in subs:
        doc = read_json(os.path.join(directory, d, SUMMARY_FILE))
        if not isinstance(doc, dict) or "scheduler" not in doc:
            raise ResultsError(f"{directory}: not a crux result directory but a directory of "
                               f"them ({os.path.join(directory, d)} is not a crux-trace-run "
                               "scheduler directory): load each one")
    if subs:
        return "trace"
    raise ResultsError(f"{directory}: not a crux result directory (no summary.json, no "
                       "table.csv)")


def load(directory):
    """The result directory as an Experiment, TraceRun or Sweep (by its files)."""
    return {"experiment": load_experiment, "trace": load_trace,
            "sweep": load_sweep}[kind(directory)](directory)
