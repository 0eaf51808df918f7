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
"""The figures of scripts/plot/experiment_plot.py, sweep_plot.py and fig23_utilization.py, and
crux.results, on real small runs: crux-experiment on scenarios/smoke.json (flow fabric, 3 ECMP
seeds; packet fabric, 1 seed), scripts/sweep.py on sweeps/smoke-flow.yaml (1 worker) and
crux-trace-run (fig23 and fig25 refuse runs of two experiments).

Each figure is rendered (PNG and PDF written, non-empty) and its artists inspected: axis labels
with their units, the number of bars / lines, bar heights and error bars against the run's
files read here with the standard library (csv, json), no NaN anywhere; crux.results' frames
against the same files; bad input: one line naming the path, exit status 1.
Exit 77 (ctest SKIP_RETURN_CODE) if this Python cannot import matplotlib and pandas.

Usage: check-figures.py <dir holding crux-experiment and crux-trace-run> <module root>
"""

import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout

try:
    import matplotlib
    matplotlib.use("Agg")
    import pandas  # noqa: F401
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import matplotlib/pandas ({e}); scripts/setup.sh "
          "installs them into build/venv")
    sys.exit(77)

BIN, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "scripts", "plot"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import crux_plot as cr  # noqa: E402
import experiment_plot as ep  # noqa: E402
import sweep_plot as sp  # noqa: E402
from crux import results  # noqa: E402

fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def run(argv, what):
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        print(f"FAIL {what}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        sys.exit(1)
    return p


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def finite(values):
    try:
        return all(math.isfinite(float(v)) for v in values)
    except (TypeError, ValueError):
        return False


def bars(ax):
    """The bar rectangles of an axes (not the legend's)."""
    from matplotlib.patches import Rectangle
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def no_nan(fig, what):
    vals = []
    for ax in fig.axes:
        for p in bars(ax):
            vals += [p.get_height(), p.get_y(), p.get_x()]
        for line in ax.get_lines():
            vals += [float(v) for v in line.get_ydata()]
    check(finite(vals), f"{what}: no NaN or inf among {len(vals)} plotted values")


def labels_with_units(fig, what, want):
    ys = [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()]
    check(ys and all(any(u in y for u in want) for y in ys),
          f"{what}: y labels {sorted(set(ys))} carry a unit {want}")


tmp = tempfile.mkdtemp(prefix="crux-figures-")
exp = os.path.join(BIN, "crux-experiment")
flow, pkt = os.path.join(tmp, "flow"), os.path.join(tmp, "packet")
run([exp, "--scenario=scenarios/smoke.json", "--fabric=flow", "--seeds=3", "--quiet",
     f"--outputDir={flow}"], "crux-experiment flow")
run([exp, "--scenario=scenarios/smoke.json", "--seeds=1", "--quiet", f"--outputDir={pkt}",
     "--ns3::LinkThroughputSampler::Interval=1ms"], "crux-experiment packet")

# ------------------------------------------------------------------ crux.results
e = results.load(flow)
summary = json.load(open(os.path.join(flow, "summary.json")))
jt = e.job_times
for j in summary["summary"]["jobs"]:
    r = jt[(jt["scheduler"] == j["scheduler"]) & (jt["job"] == j["job"])].iloc[0]
    check(r["iteration_s"] == j["iterationTime"]["mean"] and
          r["iteration_s_ci95"] == j["iterationTime"]["ci95"] and r["n"] == 3,
          f"results.job_times {j['scheduler']}/{j['job']} = summary.json "
          f"({r['iteration_s']} ± {r['iteration_s_ci95']})")
one = results.load(pkt).job_times
check(len(one) > 0 and bool((one["n"] == 1).all()) and bool(one["iteration_s_ci95"].isna().all()),
      "results.job_times of one seed: n 1, no interval (NaN, not 0)")
links = rows(os.path.join(flow, "links.csv"))
check(len(e.links) == len(links) and
      all(float(a["bytes"]) == b for a, b in zip(links, e.links["bytes"])),
      f"results.links: {len(links)} rows, bytes exactly those of links.csv")
check(str(e.links["bytes"].dtype) == "float64" and str(e.links["link"].dtype) == "int64" and
      "flop_utilization_fraction" in e.utilization.columns,
      "results: typed columns, units in the names")
layers = e.link_layers
first = {int(p["links"].split()[0][1:]) for p in rows(os.path.join(flow, "paths.csv"))}
check(all(layers[layers["link"] == l]["layer"].iloc[0] == "host–ToR" for l in first),
      f"results.link_layers: the {len(first)} links that start a path are host–ToR")
check(results.kind(flow) == "experiment", "results.kind: experiment")

# ------------------------------------------------------------------ experiment_plot figures
ncl = len(summary["summary"]["clusters"])
scheds = [c["scheduler"] for c in summary["summary"]["clusters"]]
jobs = [r["job"] for r in summary["summary"]["references"]]
plt = cr.pyplot()
quiet = io.StringIO()


def draw(name, exp_):
    with redirect_stdout(quiet):
        return ep.DRAW[name](exp_, plt, tmp, ep.Printer())


fig = draw("iteration-times", e)
check(len(fig.axes) == len(jobs), f"iteration-times: {len(jobs)} panels, one per job")
for ax, j in zip(fig.axes, jobs):
    b = bars(ax)
    check(len(b) == 2 + ncl, f"iteration-times {j}: {len(b)} bars (alone@ECMP, alone@free, "
          f"{ncl} schedulers)")
    ref = next(r for r in summary["summary"]["references"] if r["job"] == j)
    check(math.isclose(b[0].get_height(), ref["aloneEcmp"]["mean"] * 1e3, rel_tol=1e-12),
          f"iteration-times {j}: alone@ECMP bar = summary.json in ms")
    # an error bar at every bar with an interval and at no other (a zero interval, one run
    # standing for every seed, drew a cap that read as a tiny interval: found by a new-user
    # helper)
    from matplotlib.container import ErrorbarContainer
    drawn = sum(len(c.lines[2][0].get_segments()) for c in ax.containers
                if isinstance(c, ErrorbarContainer))
    values = [ref["aloneEcmp"], ref["aloneFree"]] + \
        [r["iterationTime"] for r in summary["summary"]["jobs"] if r["job"] == j]
    want = sum(1 for v in values if v["n"] >= 2 and v["ci95"] > 0)
    check(drawn == want and 0 < want < len(values),
          f"iteration-times {j}: {drawn} error bars, one per bar with an interval ({want} of "
          f"{len(values)})")
check(all("(ms)" in ax.get_ylabel() for ax in fig.axes), "iteration-times: y label in ms")
no_nan(fig, "iteration-times")
fig.savefig(os.path.join(tmp, "it.png"))
check(os.path.getsize(os.path.join(tmp, "it.png")) > 1000, "iteration-times: PNG written")
plt.close(fig)

fig = draw("utilization", e)
ax, ax2 = fig.axes[:2]
check(len(bars(ax)) == 5 * ncl and len(bars(ax2)) == 4 * ncl,
      f"utilization: {5 * ncl} waterfall bars, {4 * ncl} term bars")
for k, c in enumerate(summary["summary"]["clusters"]):
    together = bars(ax)[5 * k + 4]
    check(math.isclose(together.get_height(), c["utilization"]["mean"] * 100, rel_tol=1e-12),
          f"utilization {c['scheduler']}: together bar = summary.json utilization")
    top = bars(ax)[5 * k + 3]
    want = (c["aloneEcmp"]["mean"] + c["pathGain"]["mean"] - c["interJobLoss"]["mean"] +
            c["priorityRecovery"]["mean"]) * 100
    check(math.isclose(top.get_y() + top.get_height(), want, rel_tol=1e-9) and
          math.isclose(want, together.get_height(), rel_tol=1e-6),
          f"utilization {c['scheduler']}: the waterfall ends at together "
          f"({want:.4f} %)")
labels_with_units(fig, "utilization", ["(% of peak)", "(percentage points)"])
check(ax.get_ylim()[0] == 0, "utilization: y from zero")
no_nan(fig, "utilization")
plt.close(fig)

fig = draw("link-bytes", e)
check(len(fig.axes) == ncl, f"link-bytes: {ncl} panels, one per scheduler")
for ax, (s, run_name, label) in zip(fig.axes, ep.mix_runs(e)):
    want = sum(float(r["bytes"]) for r in links if r["run"] == run_name) / 1e9
    got = sum(p.get_height() for p in bars(ax))
    check(math.isclose(got, want, rel_tol=1e-9), f"link-bytes {label}: bars sum to "
          f"links.csv's {want:.4f} GB")
    check("host–ToR up" in [t.get_text() for t in ax.texts], f"link-bytes {label}: layer "
          "names on the axis")
labels_with_units(fig, "link-bytes", ["(GB)"])
no_nan(fig, "link-bytes")
plt.close(fig)

fig = draw("iteration-series", e)
its = rows(os.path.join(flow, "iterations.csv"))
for ax, j in zip(fig.axes, jobs):
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    check(len(lines) == ncl, f"iteration-series {j}: {ncl} lines")
    ln = lines[0]
    run_name = ep.mix_runs(e)[0][1]
    want = [float(r["duration_s"]) * 1e3 for r in its if r["run"] == run_name and
            r["job"] == j]
    check(len(ln.get_ydata()) == len(want) and
          all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(ln.get_ydata(), want)),
          f"iteration-series {j}: {len(want)} points = iterations.csv")
    check("(ms)" in ax.get_xlabel() and "(ms)" in ax.get_ylabel(),
          f"iteration-series {j}: axes in ms")
no_nan(fig, "iteration-series")
plt.close(fig)

check(draw("pfc", e) is None, "pfc: none on the flow fabric")
ep_ = results.load(pkt)
fig = draw("pfc", ep_)
pfc = rows(os.path.join(pkt, "pfc.csv"))
mixes = ep.mix_runs(ep_)
check(len(fig.axes) == 2 * len(mixes), f"pfc: {len(mixes)} rows of 2 panels")
for k, (s, run_name, label) in enumerate(mixes):
    want = sum(int(r["pause_frames_sent"]) for r in pfc if r["run"] == run_name)
    got = sum(p.get_height() for p in bars(fig.axes[2 * k]))
    check(got == want, f"pfc {label}: PAUSE bars sum to pfc.csv's {want}")
    q = next(r for r in json.load(open(os.path.join(pkt, "summary.json")))["runs"]
             if r["run"] == run_name)["maxQueueBytes"]
    got = [p.get_height() * 1e6 for p in bars(fig.axes[2 * k + 1])]
    check(len(got) == len(q) and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
                                     for a, b in zip(got, q)),
          f"pfc {label}: {len(q)} queue bars = maxQueueBytes")
labels_with_units(fig, "pfc", ["PAUSE frames", "(MB)"])
no_nan(fig, "pfc")
plt.close(fig)

check(draw("link-throughput", e) is None and e.link_throughput.empty and
      "throughput_gbit_per_s" in e.link_throughput.columns,
      "link-throughput: none without sampling (an empty typed frame)")
fig = draw("link-throughput", ep_)
lt = ep_.link_throughput
check(len(fig.axes) == len(mixes), f"link-throughput: {len(mixes)} panels, one per scheduler")
plinks = rows(os.path.join(pkt, "links.csv"))
lt_rows = rows(os.path.join(pkt, "link_throughput.csv"))
interval_s = max(float(r["interval_s"]) for r in lt_rows)
idle = 0
for ax, (s_, run_name, label) in zip(fig.axes, mixes):
    lines = ax.get_lines()
    check(0 < len(lines) <= ep.THROUGHPUT_LINKS, f"link-throughput {label}: {len(lines)} links")
    for ln in lines:
        link = int(ln.get_label().split()[0][1:])
        x, y = ln.get_xdata(), ln.get_ydata()
        # steps of (start, end) pairs in ms: the area under them is the link's bytes
        area = sum((x[i + 1] - x[i]) / 1e3 * y[i] * 1e9 / 8 for i in range(0, len(x), 2))
        want = sum(float(r["bytes"]) for r in plinks if r["run"] == run_name and
                   int(r["link"]) == link)
        check(math.isclose(area, want, rel_tol=1e-6), f"link-throughput {label} l{link}: the "
              f"area under the steps = links.csv's {want:.0f} bytes")
        check(max(y) <= 100.0, f"link-throughput {label} l{link}: at most the 100 Gbit/s rate")
        # steps, never ramps: every segment is level or vertical, so that an idle period
        # between two samples (link_throughput.csv keeps non-zero samples only) is drawn at 0
        # (found by a tester: neighbouring samples were joined across the gap)
        ramps = [i for i in range(len(x) - 1) if x[i] != x[i + 1] and y[i] != y[i + 1]]
        end_ms = max(float(r["time_s"]) for r in lt_rows if r["run"] == run_name) * 1e3
        check(not ramps and x[0] == 0 and math.isclose(x[-1], end_ms, rel_tol=1e-12),
              f"link-throughput {label} l{link}: steps from 0 to the run's last sample "
              f"({end_ms:.4g} ms), no ramp ({len(ramps)} found)")
        samples = sorted(float(r["time_s"]) for r in lt_rows if r["run"] == run_name and
                         int(r["link"]) == link)
        gaps = sum(1 for a, b in zip(samples, samples[1:]) if b - a > interval_s * 1.5)
        zero = sum(1 for i in range(0, len(x) - 1, 2) if y[i] == 0 and x[i + 1] > x[i])
        idle += gaps
        check(zero >= gaps, f"link-throughput {label} l{link}: {gaps} gap(s) between "
              f"samples, {zero} level(s) at 0")
check(idle > 0, f"link-throughput: the busiest links have {idle} idle gap(s) between samples "
      "(the steps at 0 are exercised)")
labels_with_units(fig, "link-throughput", ["(Gbit/s)", "(ms)"])
no_nan(fig, "link-throughput")
plt.close(fig)

# Incomplete runs (found by a tester): a job with no iteration in the measurement window gave
# a utilization axis of -0.05..0.05 % (matplotlib: "identical low and high ylims") with the bars
# running off, no INCOMPLETE mark, and no bar nor word for the job in iteration-times; a run
# whose every job has none crashed with a traceback (NaN axis limits).
import shutil  # noqa: E402
import warnings  # noqa: E402
smoke = json.load(open(os.path.join(ROOT, "scenarios", "smoke.json")))
inc_dirs = {}
# (a run whose every job has no window, iterations = warmupIterations, is refused by
# crux-experiment since; the NaN guards of the figures stay)
for tag, change in (("one", {1: {"computeTime": 1.0, "iterations": 2, "background": False}}),):
    sc = json.loads(json.dumps(smoke))
    for k, v in change.items():
        sc["jobs"][k].update(v)
    path = os.path.join(tmp, f"incomplete-{tag}.json")
    json.dump(sc, open(path, "w"))
    inc_dirs[tag] = os.path.join(tmp, f"incomplete-{tag}")
    run([exp, f"--scenario={path}", "--fabric=flow", "--quiet", f"--outputDir={inc_dirs[tag]}"],
        f"crux-experiment incomplete ({tag})")
ei = results.load(inc_dirs["one"])
isum = json.load(open(os.path.join(inc_dirs["one"], "summary.json")))
check([c["jobsOutsideWindow"] for c in isum["summary"]["clusters"]] == [["small"]] * 2,
      "incomplete run: the small job has no iteration in the window under both schedulers")
with warnings.catch_warnings():
    warnings.simplefilter("error")  # "identical low and high ylims" is a failure
    fig = draw("utilization", ei)
    ax, ax2 = fig.axes[:2]
    heights = [p.get_height() for p in bars(ax)]
    want = [c["utilization"]["mean"] * 100 for c in isum["summary"]["clusters"]]
    lo, hi = ax.get_ylim()
    marks = [t.get_text() for t in ax.texts if t.get_text().startswith("INCOMPLETE")]
    check(lo == 0 and hi >= max(want) * 1.2 and
          sorted(round(h, 9) for h in heights) == sorted(round(u, 9) for u in want),
          f"utilization, incomplete: y axis 0..{hi:.3g} % holds the together bars {want}")
    check(len(marks) == 2 and all("without small" in m and "no iteration in window" in m
                                  for m in marks), f"utilization, incomplete: marks {marks}")
    check(len([t for t in ax2.texts if "no decomposition" in t.get_text()]) == 2,
          "utilization, incomplete: the decomposition panel says there is none")
    plt.close(fig)
    fig = draw("iteration-times", ei)
    small = fig.axes[1]
    nowin = [t for t in small.texts if t.get_text() == "no iteration\nin window"]
    alone = next(r for r in isum["summary"]["references"] if r["job"] == "small")
    check("INCOMPLETE: no iteration in window (ecmp, crux)" in small.get_title() and
          len(nowin) == 2 and small.get_ylim()[1] >= alone["aloneEcmp"]["mean"] * 1e3,
          f"iteration-times, incomplete: job small marked under both schedulers "
          f"('{small.get_title()}', {len(nowin)} marks), its alone bars on the axis")
    plt.close(fig)
for tag in ("one",):
    out_i = os.path.join(tmp, f"incomplete-{tag}-plots")
    p = subprocess.run([sys.executable, "-W", "error::UserWarning",
                        os.path.join(ROOT, "scripts/plot/experiment_plot.py"), inc_dirs[tag],
                        "--out", out_i], capture_output=True, text=True)
    check(p.returncode == 0 and "Traceback" not in p.stderr and
          all(os.path.getsize(os.path.join(out_i, f"{n}.png")) > 1000
              for n in ("iteration-times", "utilization", "link-bytes", "iteration-series")),
          f"experiment_plot.py on a run with {tag} job(s) outside the window: exit "
          f"{p.returncode}, figures written, no warning{p.stderr[-500:]}")
# an unusable directory: one line, exit 1, no plots/ directory left behind
bad_dir = os.path.join(tmp, "incomplete-broken")
shutil.copytree(inc_dirs["one"], bad_dir)
os.remove(os.path.join(bad_dir, "iterations.csv"))
p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/plot/experiment_plot.py"),
                    bad_dir], capture_output=True, text=True)
check(p.returncode == 1 and p.stderr.strip().count("\n") == 0 and
      "iterations.csv: no such file" in p.stderr and
      not os.path.exists(os.path.join(bad_dir, "plots")),
      f"experiment_plot.py on a directory without iterations.csv: exit {p.returncode}, one "
      f"line ({p.stderr.strip()}), no plots/ left")

# The command: every figure as PNG and PDF.
out = os.path.join(tmp, "plots")
run([sys.executable, os.path.join(ROOT, "scripts/plot/experiment_plot.py"), pkt, "--out", out],
    "experiment_plot.py")
for name in ep.FIGURES:
    for ext in ("png", "pdf"):
        f = os.path.join(out, f"{name}.{ext}")
        check(os.path.exists(f) and os.path.getsize(f) > 1000, f"experiment_plot.py wrote "
              f"{name}.{ext}")

# ------------------------------------------------------------------ sweep plots
sweep = os.path.join(tmp, "sweep")
run([sys.executable, os.path.join(ROOT, "scripts/sweep.py"), "sweeps/smoke-flow.yaml",
     f"--out={sweep}", f"--bin={BIN}", "--workers=1", "--quiet"], "sweep.py")
s = results.load(sweep)
check(results.kind(sweep) == "sweep" and "torAggRate_bit_per_s" in s.table.columns and
      "utilization_fraction" in s.table.columns, "results.Sweep: numeric rate column, units")
table = rows(os.path.join(sweep, "table.csv"))
header = list(table[0])
captured = {}
real_save = cr.save


def keep(fig, path):
    captured["fig"] = fig
    real_save(fig, path)


cr.save = keep
spec = {"x": "scenario.topology.fabricLinkRate", "y": "utilization", "by": "run",
        "where": {"program": "crux-experiment"}}
with redirect_stdout(quiet):
    sp.plot(header, table, spec, os.path.join(tmp, "sweep-util"))
ax = captured["fig"].axes[0]
check("(Gbit/s)" in ax.get_xlabel() and "(%)" in ax.get_ylabel(),
      f"sweep plot: labels '{ax.get_xlabel()}', '{ax.get_ylabel()}'")
check(ax.get_xscale() == "log" and ax.get_ylim()[0] == 0, "sweep plot: log x (a rate), y "
      "from zero")
check(ax.get_legend().get_title().get_text() == "scheduler", "sweep plot: legend titled "
      "'scheduler'")
conts = {c.get_label(): c for c in ax.containers}
check(sorted(conts) == ["crux", "ecmp"], f"sweep plot: 2 lines {sorted(conts)}")
ecmp = conts["ecmp"].lines[0]
check(sorted(float(x) for x in ecmp.get_xdata()) == [20.0, 40.0],
      "sweep plot: x at 20 and 40 Gbit/s")
# the error bar at 20 Gbit/s: mean ± t(0.975, 1) s / sqrt(2), t = 12.706204736174698
u = [float(r["utilization"]) * 100 for r in table if r["run"] == "ecmp" and
     r["scenario.topology.fabricLinkRate"] == "20Gbps"]
m = sum(u) / 2
hw = 12.706204736174698 * math.sqrt(sum((x - m) ** 2 for x in u)) / math.sqrt(2)
segs = conts["ecmp"].lines[2][0].get_segments()
seg = next(sg for sg in segs if math.isclose(sg[0][0], 20.0))
check(math.isclose(seg[0][1], m - hw, rel_tol=1e-9) and math.isclose(seg[1][1], m + hw,
                                                                       rel_tol=1e-9),
      f"sweep plot: ecmp at 20 Gbit/s is {m:.3f} ± {hw:.3f} % (Student t, n = 2)")
txt = open(os.path.join(tmp, "sweep-util.txt")).read()
check("±" in txt and "0.1498413592395403" not in txt and "e-" not in txt,
      "sweep table: rounded to its intervals (no 16-digit floats)")
plt.close(captured["fig"])

# ------------------------------------------------------------------ Fig. 23 labels
trace = os.path.join(tmp, "trace")
run([os.path.join(BIN, "crux-trace-run"), "--windowEnd=6h", "--schedulers=ecmp,crux",
     "--quiet=1", f"--outputDir={trace}"], "crux-trace-run")
import fig23_utilization as f23  # noqa: E402
with redirect_stdout(quiet):
    f23.main([trace, "--output", os.path.join(tmp, "fig23.png"), "--baseline", "ecmp"])
ax = captured["fig"].axes[0]
labels = [t.get_text() for t in ax.texts]
se = json.load(open(os.path.join(trace, "ecmp", "summary.json")))["mean_gpu_utilization"]
sc = json.load(open(os.path.join(trace, "crux", "summary.json")))["mean_gpu_utilization"]
gain = round((sc / se - 1) * 100, 3)
check(len(labels) == 2 and labels[1].startswith("+" if gain >= 0 else "-") and
      math.isclose(float(labels[1].split()[0]), gain, rel_tol=0.05, abs_tol=0.0005),
      f"fig23: crux labelled with its change against ecmp ({labels}, gain {gain} %)")
check(ax.get_ylim()[1] < 100 and ax.get_ylim()[0] == 0, "fig23: y from zero, scaled to the data")
cr.save = real_save

# ------------------------------------------------------------------ trace run as data frames
t = results.load(trace)
ts = t.summary.set_index("scheduler")
for sched in ("ecmp", "crux"):
    doc = json.load(open(os.path.join(trace, sched, "summary.json")))
    row = ts.loc[sched]
    check(row["fluid_events"] == doc["fluid_events"] and row["evaluator"] == doc["evaluator"]
          and row["work_model"] == doc["work_model"] and row["window_jobs"] == doc["jobs"]
          and row["mean_gpu_utilization_fraction"] == doc["mean_gpu_utilization"],
          f"trace summary frame of {sched} = its summary.json")
    check(row["tor_agg_link_bit_per_s"] == doc["link_rates_bps"]["tor_agg"] and
          row["host_link_bit_per_s"] == doc["link_rates_bps"]["host"] and
          math.isnan(row["agg_core_link_bit_per_s"]) and row["trace_source"] == "generated" and
          row["trace_days"] == doc["trace"]["days"] and row["max_paths"] == doc["max_paths"] and
          row["bin_s"] == doc["bin_s"] and
          row["unique_priorities"] == str(doc["unique_priorities"]).lower(),
          f"trace summary frame of {sched}: the settings that define the run (link rates, "
          "trace, max paths, bin, unique priorities)")
u = t.utilization
check({"utilization_alone_default_fraction", "utilization_alone_installed_fraction"} <=
      set(u.columns), f"trace utilization frame keeps the alone columns ({list(u.columns)})")
tj = t.jobs
one_host = tj[(tj["hosts"] == 1) & (tj["flops_per_iter"] > 0)]
check("intensity_flops_per_s" in tj.columns and len(one_host) > 0 and
      bool((one_host["intensity_flops_per_s"] == math.inf).all()) and
      bool((tj[tj["hosts"] > 1]["intensity_flops_per_s"] < math.inf).all()),
      f"trace jobs: intensity in FLOP/s, +inf for the {len(one_host)} single-host jobs")

# ------------------------------------------------------------------ one experiment per comparison
# the same run with another job scheduler (Fig. 25 compares them) and with another seed (another
# trace and ECMP draw: a gain over it would compare two experiments)
random_ = os.path.join(tmp, "trace-random")  # the default placement is locality
reseeded = os.path.join(tmp, "trace-seed2")
run([os.path.join(BIN, "crux-trace-run"), "--windowEnd=6h", "--schedulers=ecmp",
     "--placement=random", "--quiet=1", f"--outputDir={random_}"], "crux-trace-run random")
run([os.path.join(BIN, "crux-trace-run"), "--windowEnd=6h", "--schedulers=crux", "--seed=2",
     "--quiet=1", f"--outputDir={reseeded}"], "crux-trace-run seed 2")
plot_dir = os.path.join(ROOT, "scripts", "plot")
p = subprocess.run([sys.executable, os.path.join(plot_dir, "fig25_job_schedulers.py"), trace,
                    random_, "--schedulers=ecmp", "--print-only"], capture_output=True,
                   text=True)
check(p.returncode == 0 and "random" in p.stdout and "locality" in p.stdout,
      f"fig25 of random and locality placement of one run: exit {p.returncode}, {p.stderr}")
for script, dirs in (("fig23_utilization.py", [os.path.join(trace, "ecmp"),
                                               os.path.join(reseeded, "crux")]),
                     ("fig25_job_schedulers.py", [random_, reseeded])):
    p = subprocess.run([sys.executable, os.path.join(plot_dir, script)] + dirs +
                       ["--print-only"], capture_output=True, text=True)
    err = p.stderr.strip().splitlines()
    check(p.returncode == 1 and len(err) == 1 and "not one experiment" in err[0] and
          "differ in 'seed' (1 against 2)" in err[0],
          f"{script} of two seeds: exit {p.returncode}, {err}")

# ------------------------------------------------------------------ one number format
# the cases of test/gtest/sample-statistics-test.cc (FormatInterval): Python prints the same text
for args, want in (((0.27471, 0.01234, 5), "0.275 ± 0.012"),
                   ((0.27471, 0.01234, 5, 100.0), "27.5 ± 1.2"),
                   ((0.27471, 0.0000123, 5), "0.2747 ± <0.0001"),
                   ((12345.6, 0.3, 5), "12346 ± <1"),
                   ((-8.9e-17, 8.2e-17, 5, 100.0), "0.000"), ((0.5, 0.0, 1), "0.5000")):
    got = results.format_interval(*args)
    check(got == want, f"format_interval{args} = '{got}', FormatInterval gives '{want}'")

# ------------------------------------------------------------------ a damaged jobs.csv
# (found by a breaker helper: it was read without checks, a short row as NaN)
import shutil  # noqa: E402
damaged = os.path.join(tmp, "trace-damaged")
shutil.copytree(trace, damaged)
jobs_csv = os.path.join(damaged, "crux", "jobs.csv")
with open(jobs_csv, "a") as f:
    f.write("0,jobA,resnet50,16\n")
line = sum(1 for _ in open(jobs_csv))
try:
    results.load(damaged).jobs
    check(False, "a short row of jobs.csv: no error")
except results.ResultsError as err:
    check(f"jobs.csv:{line}: column 'hosts': no value" in str(err),
          f"a short row of jobs.csv names its line and column: {err}")

# ------------------------------------------------------------------ bad input
try:
    results.load(tmp)  # holds result directories of both kinds (flow, packet, trace, ...)
    check(False, "results.load of a directory of result directories: no error")
except results.ResultsError as err:
    check("a directory of them" in str(err) and "load each one" in str(err),
          f"results.load of a directory of result directories: {err}")
for args, want in (([os.path.join(tmp, "none")], f"{os.path.join(tmp, 'none')}: no such "
                    "directory"),
                   ([trace], f"{trace}: not a crux-experiment result directory")):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/plot/experiment_plot.py")] +
                       args, capture_output=True, text=True)
    err = p.stderr.strip().splitlines()
    check(p.returncode == 1 and len(err) == 1 and want in err[0],
          f"experiment_plot.py {args[0]}: exit {p.returncode}, {err}")

if fails:
    print(f"{len(fails)} figure check(s) failed")
    sys.exit(1)
print(f"all figure checks passed ({tmp} removed)")
shutil.rmtree(tmp)
