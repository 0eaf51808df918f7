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
"""The figures of a crux-experiment result directory (its ``--outputDir``), as PNG and PDF.

Plotting only (reads the directory through :mod:`crux.results`); writes into ``--out``
(default ``<dir>/plots``):

* ``iteration-times``: per job, its iteration time alone (alone@ECMP, alone@free) and together
  under each scheduler, 95 % Student-t intervals over the ECMP seeds as error bars, each
  scheduler's bar labelled with its change against alone@ECMP and marked at alone@paths;
* ``utilization``: per scheduler, the cluster GPU utilization as a waterfall of stacked
  segments from the jobs alone under ECMP: + path gain, − inter-job loss, + priority recovery
  = together (the contention decomposition, doc/crux.rst "Measurement methodology"), the
  own-flow loss as the line alone@free;
* ``link-bytes``: the bytes every link carried per traffic class in each scheduler's mix,
  links grouped by topology layer (host–ToR, ToR–agg, ...; the first seed of a seed-dependent
  scheduler);
* ``pfc`` (packet fabric): PAUSE frames sent per link and traffic class, and the deepest queue
  per class, in each scheduler's mix;
* ``iteration-series``: every iteration's duration over time, per job and scheduler (the
  warm-up iterations, never measured, drawn hollow);
* ``link-throughput`` (when the run sampled it, ``--ns3::LinkThroughputSampler::Interval`` > 0):
  the throughput over time of the links that carried the most bytes in each scheduler's mix.

It prints every plotted value first (the tables also go to ``<out>/values.txt``).

Example::

    build/crux-experiment --scenario=scenarios/sec22-gpt-bert.json --fabric=flow --seeds=10
    build/venv/bin/python scripts/plot/experiment_plot.py results/sec22-gpt-bert
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crux_plot as cr  # noqa: E402

FIGURES = ["iteration-times", "utilization", "link-bytes", "pfc", "iteration-series",
           "link-throughput"]
#: Colours of the decomposition terms.
TERM_COLORS = {"alone": "#d9d9d9", "path gain": "#66c2a5", "inter-job loss": "#fc8d62",
               "priority recovery": "#8da0cb"}
TC_COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
             "#8c8c8c", "#ccb974"]


def parse_args(argv):
    p = cr.ArgumentParser(description=__doc__)
    p.add_argument("dir", help="result directory of crux-experiment (its --outputDir)")
    p.add_argument("--out", help="directory for the figures (default <dir>/plots)")
    p.add_argument("--formats", default="png,pdf", help="comma-separated figure formats "
                   "(png, pdf, svg; default png,pdf)")
    p.add_argument("--figures", default=",".join(FIGURES),
                   help=f"comma-separated figures to draw (default all: {','.join(FIGURES)})")
    p.add_argument("--print-only", action="store_true", help="print the tables, draw nothing")
    a = p.parse_args(argv)
    a.formats = [f for f in a.formats.split(",") if f]
    for f in a.formats:
        if f not in ("png", "pdf", "svg"):
            p.error(f"--formats: '{f}' is not png, pdf or svg")
    a.figures = [f for f in a.figures.split(",") if f]
    for f in a.figures:
        if f not in FIGURES:
            p.error(f"--figures: '{f}' is not one of {', '.join(FIGURES)}")
    return a


class Printer:
    """Prints tables and keeps them for values.txt."""

    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        print(text)
        self.lines.append(text)


# ------------------------------------------------------------------------------ the data

def mix_runs(e):
    """[(scheduler, run name, label)]: each scheduler's mix, the first seed of a seed-dependent
    one (label "ecmp, seed 1"), in the summary's scheduler order."""
    runs = e.runs
    out = []
    for s in e.schedulers():
        rows = runs[runs["roles"].str.split().apply(lambda r, s=s: f"mix:{s}" in r)]
        if rows.empty:
            continue
        r = rows.iloc[0]
        seeds = str(r["seeds"]).split()
        label = s if len(seeds) != 1 or e.seeds == 1 else f"{s}, seed {seeds[0]}"
        out.append((s, str(r["run"]), label))
    return out


def error_bar(ci95, n, scale=1.0):
    """The half-width to draw: 0 for none (n < 2, or a zero interval such as one
    deterministic run standing for every seed)."""
    hw = ci95 * scale if n >= 2 and ci95 is not None and math.isfinite(ci95) else 0.0
    return hw if hw > 0 else 0.0


def draw_errors(ax, xs, ys, errs, capsize):
    """Error bars at the bars with an interval only: matplotlib draws a cap for a zero
    half-width, which reads as a tiny interval where there is none."""
    pts = [(x, y, e) for x, y, e in zip(xs, ys, errs) if e > 0]
    if pts:
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts],
                    fmt="none", ecolor="black", elinewidth=0.8, capsize=capsize)


def finite(v):
    """A drawable number (not None, NaN or inf)."""
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def top_of(values, default=1.0):
    """The largest finite value, or ``default`` when there is none above 0 (an axis from 0 to
    it: never the identical limits matplotlib warns about)."""
    vals = [float(v) for v in values if finite(v)]
    top = max(vals, default=0.0)
    return top if top > 0 else default


#: The mark of a job or run that measured no iteration in the window (doc/crux.rst,
#: "Measurement methodology": INCOMPLETE).
NO_WINDOW = "no iteration in window"
INCOMPLETE_COLOR = "#b2182b"


def time_unit(values):
    """(scale, unit) for durations: the unit of the smallest positive value."""
    pos = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return cr.duration_unit(min(pos) if pos else 1.0)


# ------------------------------------------------------------------------------ figures

def iteration_times(e, plt, out, show):
    jt, refs = e.job_times, e.references
    jobs = list(dict.fromkeys(list(refs["job"]) + list(jt["job"])))
    scheds = e.schedulers()
    colors = cr.scheduler_colors(scheds)
    scale, unit = time_unit(list(refs["iteration_s"]) + list(jt["iteration_s"]))
    show(f"iteration time per job ({unit}; mean ± 95 % Student-t interval over {e.seeds} "
         f"ECMP seed(s); change against the same job alone@ECMP, per seed)")
    rows = []
    for j in jobs:
        for _, r in refs[refs["job"] == j].iterrows():
            if r["reference"].startswith("alone@paths"):
                continue
            rows.append([j, r["reference"], cr.format_interval(r["iteration_s"],
                                                                r["iteration_s_ci95"], r["n"],
                                                                scale), "", ""])
        for _, r in jt[jt["job"] == j].iterrows():
            rows.append([j, r["scheduler"], cr.format_interval(r["iteration_s"],
                                                                r["iteration_s_ci95"], r["n"],
                                                                scale),
                         cr.signed_pct(r["vs_alone_ecmp_fraction"],
                                       r["vs_alone_ecmp_fraction_ci95"], r["n"]),
                         cr.signed_pct(r["vs_alone_paths_fraction"],
                                       r["vs_alone_paths_fraction_ci95"], r["n"])])
    show(cr.format_table(["job", "run", f"iteration_{unit}", "vs_alone@ECMP",
                          "vs_alone@paths"], rows))
    missing = {j: [s for s in scheds if any(
        not finite(v) for v in jt[(jt["job"] == j) & (jt["scheduler"] == s)]["iteration_s"])]
        for j in jobs}
    for j, ss in missing.items():
        if ss:
            show(f"INCOMPLETE: job {j}: {NO_WINDOW} under {', '.join(ss)} (no bar; its "
                 "iteration time and change are '–')")
    if plt is None:
        return None
    fig, axes = plt.subplots(1, len(jobs), squeeze=False,
                             figsize=(max(3.4, 0.85 * (2 + len(scheds))) * len(jobs), 3.6))
    for ax, j in zip(axes[0], jobs):
        labels, heights, errs, cols, hatches = [], [], [], [], []
        for name in ("alone@ECMP", "alone@free"):
            r = refs[(refs["job"] == j) & (refs["reference"] == name)]
            if r.empty:
                continue
            r = r.iloc[0]
            labels.append(name.replace("@", "\n@"))
            heights.append(r["iteration_s"] * scale)
            errs.append(error_bar(r["iteration_s_ci95"], r["n"], scale))
            cols.append("#d9d9d9" if name == "alone@ECMP" else "#f0f0f0")
            hatches.append("")
        n_ref = len(labels)
        paths_ref = []
        for s in scheds:
            r = jt[(jt["job"] == j) & (jt["scheduler"] == s)]
            if r.empty:
                continue
            r = r.iloc[0]
            labels.append(f"{s}\n(together)")
            # a job with no iteration in the window (under this scheduler) has no bar: it is
            # marked in its place
            heights.append(r["iteration_s"] * scale if finite(r["iteration_s"]) else 0.0)
            errs.append(error_bar(r["iteration_s_ci95"], r["n"], scale))
            cols.append(colors[s])
            hatches.append("")
            p = refs[(refs["job"] == j) & (refs["reference"] == f"alone@paths({s})")]
            if not p.empty and finite(p.iloc[0]["iteration_s"]):
                paths_ref.append((len(labels) - 1, p.iloc[0]["iteration_s"] * scale))
        x = list(range(len(labels)))
        bars = ax.bar(x, heights, 0.7, color=cols, edgecolor="black", linewidth=0.5)
        draw_errors(ax, x, heights, errs, 3)
        for k, (xi, ref) in enumerate(paths_ref):
            ax.plot([xi - 0.35, xi + 0.35], [ref, ref], color="black", linestyle="--",
                    linewidth=1.0, label="alone@paths (same scheduler)" if k == 0 else None)
        texts = [""] * n_ref
        for s in scheds:
            r = jt[(jt["job"] == j) & (jt["scheduler"] == s)]
            if not r.empty:
                r = r.iloc[0]
                if not finite(r["iteration_s"]):
                    texts.append("")
                    ax.text(len(texts) - 1, 0, NO_WINDOW.replace(" in ", "\nin "),
                            rotation=90, ha="center", va="bottom", fontsize=6.5,
                            color=INCOMPLETE_COLOR)
                    continue
                texts.append(cr.signed_pct(r["vs_alone_ecmp_fraction"],
                                           r["vs_alone_ecmp_fraction_ci95"], r["n"]))
        ax.bar_label(bars, labels=texts, fontsize=6.5, padding=2)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel(f"Iteration time ({unit})")
        ax.set_ylim(0, top_of([h + er for h, er in zip(heights, errs)] +
                              [ref for _, ref in paths_ref]) * 1.4)
        if missing[j]:
            ax.set_title(f"job {j}\nINCOMPLETE: {NO_WINDOW} ({', '.join(missing[j])})",
                         fontsize=8, color=INCOMPLETE_COLOR)
        else:
            ax.set_title(f"job {j}", fontsize=9)
        ax.grid(axis="x", visible=False)
        if paths_ref:
            ax.legend(loc="upper left", fontsize=7)
    fig.suptitle(f"{e.name}: iteration time alone and together (labels: relative change "
                 f"against alone@ECMP, + = slower){interval_note(e)}", fontsize=9)
    return fig


def interval_note(e):
    return (f"\nerror bars: 95 % Student-t interval over {e.seeds} ECMP seeds"
            if e.seeds >= 2 else "")


def incomplete(r):
    """'' for a complete cluster row, else what it lacks ("without small (no iteration in
    window)")."""
    if not bool(r.get("incomplete", False)) and finite(r["alone_ecmp_fraction"]):
        return ""
    jobs = str(r.get("jobs_outside_window") or "").split()
    return (f"without {', '.join(jobs)} ({NO_WINDOW})" if jobs else NO_WINDOW)


def utilization(e, plt, out, show):
    c = e.clusters
    scheds = list(c["scheduler"])
    show("cluster GPU utilization and its contention decomposition (% of the cluster's peak; "
         "terms in percentage points; mean ± 95 % Student-t interval over the seeds)")
    rows = []
    for _, r in c.iterrows():
        n = r["n"]
        rows.append([r["scheduler"], int(r["runs"])] + [
            cr.format_interval(r[col], r[col + "_ci95"], n, 100.0) for col in
            ("utilization_fraction", "alone_ecmp_fraction", "alone_free_fraction",
             "own_flow_loss_fraction", "path_gain_fraction", "inter_job_loss_fraction",
             "priority_recovery_fraction")] + [
            cr.signed_pct(r["vs_alone_ecmp_fraction"], r["vs_alone_ecmp_fraction_ci95"], n)])
    show(cr.format_table(["scheduler", "runs", "utilization_pct", "alone@ECMP_pct",
                          "alone@free_pct", "own_flow_loss_pp", "path_gain_pp",
                          "inter_job_loss_pp", "priority_recovery_pp", "vs_alone@ECMP"], rows))
    for _, r in c.iterrows():
        if incomplete(r):
            show(f"INCOMPLETE: {r['scheduler']}: {incomplete(r)} (the utilization counts the "
                 "other jobs; no decomposition)")
    if plt is None:
        return None
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(max(7.5, 3.5 + 2.4 * len(scheds)), 3.8),
                                  gridspec_kw={"width_ratios": [1.2, 1]})
    colors = cr.scheduler_colors(scheds)
    w = 0.16
    seen = set()
    top = 0.0
    marks = []  # (x, height, text) of the incomplete runs, placed once the axis is known

    def seg(x, lo, hi, color, label, hatch=None):
        lab = label if label not in seen else None
        seen.add(label)
        ax.bar(x, hi - lo, w, bottom=lo, color=color, edgecolor="black", linewidth=0.5,
               hatch=hatch, label=lab)

    for i, (_, r) in enumerate(c.iterrows()):
        if incomplete(r):
            # no alone reference, no decomposition: the together bar (the jobs it counts),
            # hatched, and the mark
            u = r["utilization_fraction"] * 100 if finite(r["utilization_fraction"]) else 0.0
            err = error_bar(r["utilization_fraction_ci95"], r["n"], 100)
            ax.bar(i + 2 * w, u, w, color=colors[r["scheduler"]], edgecolor="black",
                   linewidth=0.5, hatch="xx",
                   label="together, INCOMPLETE (counts the other jobs)"
                   if "inc" not in seen else None)
            seen.add("inc")
            draw_errors(ax, [i + 2 * w], [u], [err], 3)
            marks.append((i, u + err, "INCOMPLETE\n" + incomplete(r).replace(" (", "\n(")))
            top = max(top, u + err)
            continue
        u_ecmp = r["alone_ecmp_fraction"] * 100
        u_paths = u_ecmp + r["path_gain_fraction"] * 100
        u_one = u_paths - r["inter_job_loss_fraction"] * 100
        u_mix = u_one + r["priority_recovery_fraction"] * 100
        xs = [i - 2 * w, i - w, i, i + w, i + 2 * w]
        seg(xs[0], 0, u_ecmp, TERM_COLORS["alone"], "jobs alone (alone@ECMP)")
        seg(xs[1], u_ecmp, u_paths, TERM_COLORS["path gain"], "+ path gain")
        seg(xs[2], u_one, u_paths, TERM_COLORS["inter-job loss"], "− inter-job loss", "///")
        seg(xs[3], u_one, u_mix, TERM_COLORS["priority recovery"], "+ priority recovery")
        err = error_bar(r["utilization_fraction_ci95"], r["n"], 100)
        ax.bar(xs[4], r["utilization_fraction"] * 100, w,
               color=colors[r["scheduler"]], edgecolor="black", linewidth=0.5,
               label="together (the scheduler's colour)" if i == 0 else None)
        draw_errors(ax, [xs[4]], [r["utilization_fraction"] * 100], [err], 3)
        free = r["alone_free_fraction"] * 100
        ax.plot([xs[0] - w / 2, xs[4] + w / 2], [free, free], color="black", linestyle=":",
                linewidth=1.0, label="alone@free (own-flow loss above alone@ECMP)"
                if i == 0 else None)
        peak = max(free, u_paths, r["utilization_fraction"] * 100 + err)
        ax.text(i, peak * 1.03, cr.signed_pct(r["vs_alone_ecmp_fraction"],
                                               r["vs_alone_ecmp_fraction_ci95"], r["n"]) +
                "\nvs alone@ECMP", ha="center", va="bottom", fontsize=7)
        top = max(top, peak)
    ax.set_xticks(range(len(scheds)))
    ax.set_xticklabels(scheds)
    ax.set_xlim(-0.5, len(scheds) - 0.5)
    ax.set_ylabel("Cluster GPU utilization (% of peak)")
    top = top if top > 0 else 1.0  # every run incomplete with nothing counted: 0..1 %
    ax.set_ylim(0, top * (1.6 if marks else 1.25))
    for x, h, text in marks:
        ax.text(x, h + top * 0.03, text, ha="center", va="bottom", fontsize=6.5,
                color=INCOMPLETE_COLOR)
    ax.grid(axis="x", visible=False)
    ax.legend(fontsize=6.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    ax.set_title("together = alone@ECMP + path gain − inter-job loss + priority recovery",
                 fontsize=8)
    # The terms on their own axis (percentage points, with their intervals).
    terms = [("own_flow_loss_fraction", "own-flow loss", "#bdbdbd"),
             ("path_gain_fraction", "path gain", TERM_COLORS["path gain"]),
             ("inter_job_loss_fraction", "inter-job loss", TERM_COLORS["inter-job loss"]),
             ("priority_recovery_fraction", "priority recovery",
              TERM_COLORS["priority recovery"])]
    tw = 0.8 / len(terms)
    for k, (col, label, color) in enumerate(terms):
        xs = [i - 0.4 + tw * (k + 0.5) for i in range(len(scheds))]
        ys = [r[col] * 100 for _, r in c.iterrows()]
        es = [error_bar(r[col + "_ci95"], r["n"], 100) for _, r in c.iterrows()]
        ax2.bar(xs, ys, tw, color=color, edgecolor="black", linewidth=0.5, label=label,
                hatch="///" if label == "inter-job loss" else None)
        draw_errors(ax2, xs, ys, es, 2)
    ax2.axhline(0, color="black", linewidth=0.6)
    ax2.set_xticks(range(len(scheds)))
    ax2.set_xticklabels(scheds)
    ax2.set_xlim(-0.5, len(scheds) - 0.5)
    ax2.set_ylabel("Term (percentage points)")
    # the axis from the terms that exist (an incomplete run has none)
    vals = [r[col] * 100 + sign * error_bar(r[col + "_ci95"], r["n"], 100)
            for _, r in c.iterrows() for col, _, _ in terms for sign in (1, -1)
            if finite(r[col])]
    lo, hi = min(vals + [0.0]), max(vals + [0.0])
    if hi - lo <= 0:
        lo, hi = 0.0, 1.0
    ax2.set_ylim(lo - (0.1 * (hi - lo) if lo < 0 else 0), hi + 0.1 * (hi - lo))
    for i, (_, r) in enumerate(c.iterrows()):
        if incomplete(r):
            ax2.text(i, 0.5, f"INCOMPLETE:\nno decomposition\n({NO_WINDOW})",
                     transform=ax2.get_xaxis_transform(), ha="center", va="center",
                     fontsize=6.5, color=INCOMPLETE_COLOR)
    ax2.grid(axis="x", visible=False)
    ax2.legend(fontsize=6.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    ax2.set_title("the contention decomposition", fontsize=8)
    fig.suptitle(f"{e.name}: cluster GPU utilization per scheduler{interval_note(e)}",
                 fontsize=9)
    return fig


def link_groups(e, run):
    """(links in layer order, {link: layer}, {link: {tc: bytes}}) of one run."""
    layers = e.link_layers
    layer = dict(zip(layers["link"], layers["layer"]))
    direction = dict(zip(layers["link"], layers["direction"]))
    lk = e.links[e.links["run"] == run]
    per = {}
    for l, tc, b in zip(lk["link"], lk["tc"], lk["bytes"]):
        per.setdefault(int(l), {})[int(tc)] = float(b)
    rank = {n: i for i, n in enumerate(cr_layers())}
    updown = {"up": 0, "down": 1}
    links = sorted(per, key=lambda l: (rank.get(layer.get(l), 99),
                                       updown.get(direction.get(l), 2), l))
    return links, {l: f"{layer.get(l, '?')} {direction.get(l, '')}".strip() for l in links}, \
        per


def cr_layers():
    from crux.results import LAYER_NAMES
    return LAYER_NAMES + ["mixed", "unused by any path"]


def layer_axis(ax, links, layer_of):
    """x tick labels l<id>, layer names under their span, separators between layers."""
    ax.set_xticks(range(len(links)))
    ax.set_xticklabels([f"l{l}" for l in links], rotation=90 if len(links) > 12 else 0,
                       fontsize=7 if len(links) <= 32 else 5)
    spans = []
    for i, l in enumerate(links):
        if not spans or spans[-1][0] != layer_of[l]:
            spans.append([layer_of[l], i, i])
        else:
            spans[-1][2] = i
    for k, (name, a, b) in enumerate(spans):
        if k:
            ax.axvline(a - 0.5, color="black", linewidth=0.6)
        if (b - a + 1) < 0.2 * len(links):
            # a narrow span (a few links of a layer): the name on two lines, or the names of
            # two neighbouring spans run into each other ("ToR–agg u|ToR–agg down")
            name = "\n".join(name.rsplit(" ", 1))
        ax.text((a + b) / 2, 1.01, name, transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=7)


def link_bytes(e, plt, out, show):
    runs = mix_runs(e)
    show("bytes per link and traffic class in each scheduler's mix (links.csv; layer from the "
         "link's place on the paths of paths.csv)")
    panels = []
    for s, run, label in runs:
        links, layer_of, per = link_groups(e, run)
        tcs = sorted({tc for d in per.values() for tc in d})
        rows = [[label, f"l{l}", layer_of[l]] + [cr.fmt(per[l].get(tc, 0.0)) for tc in tcs]
                for l in links]
        show(cr.format_table(["run", "link", "layer"] + [f"tc{tc}_bytes" for tc in tcs], rows))
        panels.append((label, links, layer_of, per, tcs))
    if plt is None or not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(max(6.0, 0.14 * max(len(p[1]) for p in panels) + 1.5),
                                      2.4 * len(panels) + 0.6))
    ymax = max((sum(d.values()) for p in panels for d in p[3].values()), default=1.0)
    gb = 1e9
    for ax, (label, links, layer_of, per, tcs) in zip(axes[:, 0], panels):
        bottom = [0.0] * len(links)
        for tc in tcs:
            h = [per[l].get(tc, 0.0) / gb for l in links]
            ax.bar(range(len(links)), h, 0.8, bottom=bottom, color=TC_COLORS[tc % 9],
                   label=f"class {tc}", linewidth=0)
            bottom = [a + b for a, b in zip(bottom, h)]
        layer_axis(ax, links, layer_of)
        ax.set_ylabel("Bytes (GB)")
        ax.set_ylim(0, ymax / gb * 1.1)
        ax.set_title(label, fontsize=8, loc="left", pad=12)
        ax.grid(axis="x", visible=False)
        ax.legend(title="traffic class", fontsize=6, title_fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(f"{e.name}: bytes each link carried per traffic class "
                 f"({'IP bytes' if e.fabric == 'packet' else 'payload bytes'}, whole run)",
                 fontsize=9)
    return fig


def pfc(e, plt, out, show):
    if e.fabric != "packet":
        show("pfc: skipped (flow fabric: no PAUSE frames, no queues)")
        return None
    runs = mix_runs(e)
    pf, mq = e.pfc, e.max_queue
    show("PAUSE frames sent per link and paused traffic class (pfc.csv), deepest queue per "
         "class (summary.json maxQueueBytes), in each scheduler's mix")
    panels = []
    for s, run, label in runs:
        p = pf[pf["run"] == run]
        per = {}
        for l, tc, n in zip(p["link"], p["tc"], p["pause_sent_frames"]):
            per.setdefault(int(l), {})[int(tc)] = int(n)
        q = mq[mq["run"] == run]
        queues = dict(zip(q["tc"], q["max_queue_bytes"]))
        show(cr.format_table(["run", "link", "tc", "pause_frames"],
                             [[label, f"l{l}", tc, n] for l in sorted(per)
                              for tc, n in sorted(per[l].items())]) if per
             else f"{label}: no PAUSE frame")
        show(cr.format_table(["run", "tc", "max_queue_bytes"],
                             [[label, "control" if tc == cr.TC_CONTROL else tc, cr.fmt(b)]
                              for tc, b in sorted(queues.items())]))
        panels.append((label, per, queues))
    if plt is None or not panels:
        return None
    fig, axes = plt.subplots(len(panels), 2, squeeze=False,
                             figsize=(9.0, 2.3 * len(panels) + 0.6),
                             gridspec_kw={"width_ratios": [2.2, 1]})
    layers = e.link_layers
    layer = {int(l): f"{a} {d}".strip() for l, a, d in
             zip(layers["link"], layers["layer"], layers["direction"])}
    pmax = max((n for _, per, _ in panels for d in per.values() for n in d.values()),
               default=1)
    qmax = max((b for _, _, q in panels for b in q.values()), default=1.0)
    for (ax, ax2), (label, per, queues) in zip(axes, panels):
        links = sorted(per, key=lambda l: (layer.get(l, "?"), l))
        tcs = sorted({tc for d in per.values() for tc in d})
        width = 0.8 / max(1, len(tcs))
        for k, tc in enumerate(tcs):
            ax.bar([i - 0.4 + width * (k + 0.5) for i in range(len(links))],
                   [per[l].get(tc, 0) for l in links], width, color=TC_COLORS[tc % 9],
                   label=f"class {tc}", edgecolor="black", linewidth=0.4)
        if links:
            layer_axis(ax, links, {l: layer.get(l, "?") for l in links})
            ax.legend(title="paused class", fontsize=6, title_fontsize=7, loc="upper left",
                      bbox_to_anchor=(1.0, 1.0))
        else:
            ax.text(0.5, 0.5, "no PAUSE frame", transform=ax.transAxes, ha="center")
        ax.set_ylabel("PAUSE frames sent")
        ax.set_xlabel("Link the PAUSE frames were sent on (they stop the class on its reverse)",
                      fontsize=7)
        ax.set_ylim(0, pmax * 1.15)
        ax.set_title(label, fontsize=8, loc="left", pad=12)
        ax.grid(axis="x", visible=False)
        tcs_q = sorted(queues)
        ax2.bar(range(len(tcs_q)), [queues[t] / 1e6 for t in tcs_q],
                color=[TC_COLORS[t % 9] if t != cr.TC_CONTROL else "#444444" for t in tcs_q],
                edgecolor="black", linewidth=0.4)
        ax2.set_xticks(range(len(tcs_q)))
        ax2.set_xticklabels(["ctl" if t == cr.TC_CONTROL else str(t) for t in tcs_q])
        ax2.set_xlabel("Traffic class")
        ax2.set_ylabel("Deepest queue (MB)")
        ax2.set_ylim(0, qmax / 1e6 * 1.15)
        ax2.grid(axis="x", visible=False)
    fig.suptitle(f"{e.name}: PFC PAUSE frames per link and class (left) and the deepest queue "
                 f"any device held per class (right)", fontsize=9)
    return fig


def iteration_series(e, plt, out, show):
    it = e.iterations
    runs = mix_runs(e)
    warm = int(e.scenario.get("warmupIterations", 1))
    jobs = list(dict.fromkeys(it["job"]))
    scale, unit = time_unit(list(it["duration_s"]))
    show(f"iterations over time in each scheduler's mix (iterations.csv; the first {warm} of "
         f"each job are warm-up, never measured)")
    rows = []
    series = []
    for s, run, label in runs:
        for j in jobs:
            d = it[(it["run"] == run) & (it["job"] == j)].sort_values("iteration")
            if d.empty:
                continue
            series.append((s, label, j, d))
            rows.append([label, j, len(d), cr.format_duration(float(d["duration_s"].min())),
                         cr.format_duration(float(d["duration_s"].max())),
                         cr.format_duration(float(d["duration_s"].iloc[0]))])
    show(cr.format_table(["run", "job", "iterations", "shortest", "longest", "first"], rows))
    if plt is None or not series:
        return None
    fig, axes = plt.subplots(1, len(jobs), squeeze=False, figsize=(4.2 * len(jobs), 3.2))
    colors = cr.scheduler_colors([s for s, _, _ in runs])
    tscale, tunit = time_unit([float(it["end_s"].max())])
    for ax, j in zip(axes[0], jobs):
        for s, label, jj, d in series:
            if jj != j:
                continue
            x = [v * tscale for v in d["end_s"]]
            y = [v * scale for v in d["duration_s"]]
            ax.plot(x, y, "-", color=colors[s], linewidth=1.0, label=label)
            meas = d["iteration"] >= warm
            ax.plot([a for a, m in zip(x, meas) if m], [b for b, m in zip(y, meas) if m], "o",
                    color=colors[s], markersize=3)
            ax.plot([a for a, m in zip(x, meas) if not m], [b for b, m in zip(y, meas) if not m],
                    "o", markerfacecolor="white", color=colors[s], markersize=4)
        ax.plot([], [], "o", markerfacecolor="white", color="black", markersize=4,
                label="warm-up (not measured)")
        ax.set_xlabel(f"Time at the iteration's end ({tunit})")
        ax.set_ylabel(f"Iteration time ({unit})")
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
        ax.set_title(f"job {j}", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{e.name}: every iteration's duration over the run", fontsize=9)
    return fig


#: links drawn per run in link-throughput (the ones that carried the most bytes)
THROUGHPUT_LINKS = 6


def throughput_steps(times, intervals, rates, t_end):
    """(xs, ys) of a link's throughput as steps, in pairs of points (start, end) of one level:
    a sample's rate is its mean over (t − interval, t]; link_throughput.csv keeps only the
    non-zero samples, so where there is none (before the first, between two that do not
    touch, after the last until ``t_end``) the link was idle and the level is 0, not a ramp
    between its neighbours."""
    xs, ys = [], []
    at = 0.0
    for t, w, v in sorted(zip(times, intervals, rates)):
        start = t - w
        if abs(start - at) <= 1e-6 * w:
            start = at  # the previous sample's end (t − interval rounds: 0.052 − 0.001)
        elif start > at:
            xs += [at, start]
            ys += [0.0, 0.0]
        xs += [start, t]
        ys += [v, v]
        at = t
    if t_end > at:
        xs += [at, t_end]
        ys += [0.0, 0.0]
    return xs, ys


def link_throughput(e, plt, out, show):
    lt = e.link_throughput
    if lt.empty:
        show("link-throughput: skipped (the run did not sample it: run crux-experiment with "
             "--ns3::LinkThroughputSampler::Interval=1ms, for example)")
        return None
    runs = mix_runs(e)
    layers = e.link_layers
    layer = dict(zip(layers["link"], layers["layer"]))
    interval = float(lt["interval_s"].max())
    show(f"throughput over time of the {THROUGHPUT_LINKS} links that carried the most bytes in "
         f"each scheduler's mix (link_throughput.csv, all traffic classes, "
         f"{cr.format_duration(interval)} samples)")
    panels = []
    rows = []
    for s, run, label in runs:
        d = lt[lt["run"] == run]
        if d.empty:
            continue
        total = d.groupby("link")["bytes"].sum().sort_values(ascending=False, kind="stable")
        top = [int(l) for l in total.index[:THROUGHPUT_LINKS]]
        series = []
        for l in top:
            dl = d[d["link"] == l].groupby(["time_s", "interval_s"], as_index=False)["bytes"].sum()
            gbps = dl["bytes"] * 8 / dl["interval_s"] / 1e9
            series.append((l, list(dl["time_s"]), list(dl["interval_s"]), list(gbps)))
            rows.append([label, f"l{l}", layer.get(l, "?"), cr.fmt(float(total[l])),
                         cr.format_significant(float(gbps.max()), 4),
                         cr.format_significant(float(total[l]) * 8 / 1e9 /
                                               max(float(d["time_s"].max()), interval), 4)])
        # the run's last sample ends at its end (the sampler's Finish adds the partial one)
        panels.append((label, series, float(d["time_s"].max())))
    show(cr.format_table(["run", "link", "layer", "bytes", "peak_gbit_per_s",
                          "mean_gbit_per_s_over_run"], rows))
    if plt is None or not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(7.0, 2.3 * len(panels) + 0.7))
    tmax = float(lt["time_s"].max())
    tscale, tunit = time_unit([tmax])
    for ax, (label, series, run_end) in zip(axes[:, 0], panels):
        for l, t, dt, g in series:
            xs, ys = throughput_steps(t, dt, g, run_end)
            ax.plot([x * tscale for x in xs], ys, linewidth=0.9,
                    label=f"l{l} ({layer.get(l, '?')})")
        ax.set_xlabel(f"Time ({tunit})")
        ax.set_ylabel("Throughput (Gbit/s)")
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
        ax.set_title(label, fontsize=8, loc="left")
        ax.legend(title="link", fontsize=6, title_fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(f"{e.name}: throughput of the busiest links over time "
                 f"({cr.format_duration(interval)} samples, "
                 f"{'IP bytes' if e.fabric == 'packet' else 'payload bytes'}, all classes)",
                 fontsize=9)
    return fig


DRAW = {"iteration-times": iteration_times, "utilization": utilization,
        "link-bytes": link_bytes, "pfc": pfc, "iteration-series": iteration_series,
        "link-throughput": link_throughput}


def main(argv=None):
    args = parse_args(argv)
    e = cr.load_experiment(args.dir)
    out = args.out or os.path.join(args.dir, "plots")
    plt = None
    created = False
    if not args.print_only:
        plt = cr.pyplot()
        try:
            created = not os.path.isdir(out)
            os.makedirs(out, exist_ok=True)
        except OSError as err:
            raise cr.ResultsError(f"--out: cannot create '{out}' ({err.strerror})") from None
    written = []
    show = Printer()
    try:
        show(f"{e.directory}: scenario {e.name}, {e.fabric} fabric, {e.seeds} ECMP seed(s)")
        for name in args.figures:
            show()
            try:
                fig = DRAW[name](e, plt, out, show)
            except cr.ResultsError:
                raise
            except Exception as err:  # a directory the figure cannot handle: one line
                raise cr.ResultsError(f"{e.directory}: figure {name}: cannot draw it "
                                      f"({type(err).__name__}: {' '.join(str(err).split())})"
                                      ) from None
            if fig is not None:
                fig.tight_layout()
                for ext in args.formats:
                    path = os.path.join(out, f"{name}.{ext}")
                    cr.save_keep(fig, path)
                    written.append(path)
                plt.close(fig)
        if not args.print_only:
            path = os.path.join(out, "values.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(show.lines) + "\n")
            print(f"wrote {path}")
    except (cr.ResultsError, OSError):
        # nothing half-written: the figures of this call go, and --out if this call made it
        for path in written:
            try:
                os.remove(path)
            except OSError:
                pass
        if created:
            try:
                os.rmdir(out)
            except OSError:
                pass
        raise


if __name__ == "__main__":
    cr.run_main(main)
