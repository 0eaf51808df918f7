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
"""Run a sweep of crux simulations (a grid of crux-experiment / crux-trace-run invocations) on
Dask: locally on all cores, or on a SLURM/PBS/SGE/LSF cluster through dask-jobqueue, or on any
running Dask scheduler; collect one table of every run's summary numbers and draw its plots.

A sweep file (YAML, JSON, or a Python file defining a dict ``SWEEP``; doc/crux.rst, "Sweeps")::

    name: smoke-flow
    runs:                                   # blocks; each block is one grid
      - name: smoke                         # run ids smoke-000, smoke-001, ...
        program: crux-experiment            # or crux-trace-run
        options: {scenario: ../scenarios/smoke.json, fabric: flow}   # every run of the block
        grid:                               # cartesian product, first key outermost
          modes: [[alone, ecmp], [alone, crux]]
          seed: [1, 2]
          scenario.topology.fabricLinkRate: [20Gbps, 40Gbps]   # a scenario-file field
    plots:
      - {name: util, x: scenario.topology.fabricLinkRate, y: utilization, by: run}

Each run is one invocation of the program with ``--<option>=<value>`` for its options and grid
values and ``--outputDir`` set by the sweep; Dask only places the invocations on workers. The
table ``<out>/table.csv`` has one row per simulated run (per mode of crux-experiment, per
scheduler of crux-trace-run), rows in the order of the sweep file (blocks, then the grid), so it
is byte-identical whatever the number of workers; every number is copied from the run's
summary.json. A failed run gets a row with its error line; the sweep then exits 1 naming it.

Usage::

    sweep.py SWEEP_FILE --out=DIR [--workers=N]            # local cluster, N workers (all cores)
    sweep.py SWEEP_FILE --out=DIR --cluster=slurm [--cluster-jobs=N] [--cluster-option=K=V ...]
    sweep.py SWEEP_FILE --out=DIR --scheduler-file=FILE | --scheduler-address=tcp://HOST:PORT
    sweep.py SWEEP_FILE --out=DIR --list                   # print the runs' command lines only

Exit status: 0 every run and plot succeeded; 1 a run or a plot failed (the table is written);
2 bad sweep file or options (nothing is run or written); 130 interrupted (Ctrl-C: the runs that
completed are kept for --resume). --resume reuses a run when its command line and the content of
the files it names (the scenario, trace CSVs) are those of the earlier call.
"""

import argparse
import copy
import csv
import hashlib
import itertools
import json
import logging
import math
import os
import re
import runpy
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "plot"))

#: The programs a sweep can run, and which of their options name input files (resolved against
#: the sweep file's directory when relative).
PROGRAMS = {
    "crux-experiment": {"paths": {"scenario"}},
    "crux-trace-run": {"paths": {"topoCsv", "jobCsv", "workerCsv"}},
}
#: Options the sweep sets itself.
RESERVED = {"outputDir": "the sweep sets it (runs/<run id>, or the block's 'output')"}
#: Prefix of grid/option keys that set a field of crux-experiment's scenario file.
SCENARIO_PREFIX = "scenario."
#: options that change what a program prints, not what it simulates: on the command line, not
#: parameter columns of the table
OUTPUT_ONLY_OPTIONS = ("quiet", "progress")

#: Table columns of a crux-experiment run (one row per entry of summary.json "runs"):
#: (column, key in the run object; a function of the run object for derived totals).
EXPERIMENT_COLUMNS = [
    # the ECMP seeds the run stands for (its run column is the mode without "@<seed>")
    ("ecmp_seeds", lambda r: " ".join(str(x) for x in r.get("seeds") or []) or None),
    ("complete", "complete"),
    ("utilization", "utilization"),
    ("simulated_s", "simulatedTime"),
    ("window_start_s", "windowStart"),
    ("window_end_s", "windowEnd"),
    ("pause_frames", "pauseFrames"),
    ("retransmitted_packets", "retransmittedPackets"),
    ("timeouts", "timeouts"),
    ("drops", lambda r: sum(r["drops"].values()) if isinstance(r.get("drops"), dict) else None),
]
#: Per-job columns of a crux-experiment run, named job.<job name>.<column>.
EXPERIMENT_JOB_COLUMNS = [
    ("level", "level"),
    ("k", "k"),
    ("rerouted_flows", "reroutedFlows"),
    ("iterations", "measuredIterations"),
    ("iteration_s", "meanIterationTime"),
    ("throughput", "throughput"),
    ("comm_s", "meanCommTime"),
    ("jct_s", "jct"),
]
#: Table columns of a crux-trace-run run (one row per scheduler): (column, summary.json key;
#: "a.b" = nested). The summary's "timing" (wall clock) is left out: not deterministic.
TRACE_COLUMNS = [
    ("total_gpus", "total_gpus"),
    ("priority_classes", "priority_classes"),
    ("window_start_s", "window.start_s"),
    ("window_end_s", "window.end_s"),
    ("sim_end_s", "sim_end_s"),
    ("mean_gpu_utilization", "mean_gpu_utilization"),
    ("utilization_alone_default", "utilization_alone_default"),
    ("utilization_alone_installed", "utilization_alone_installed"),
    ("busy_gpu_fraction", "busy_gpu_fraction"),
    ("window_jobs", "jobs"),
    ("jobs_finished", "jobs_finished"),
    ("jobs_unfinished", "jobs_unfinished"),
    ("jobs_unplaceable", "jobs_unplaceable"),
    ("jobs_zero_duration", "jobs_zero_duration"),
    ("trace_rows_skipped", "trace_rows_skipped"),
    ("mean_jct_s", "mean_jct_s"),
    ("events", "events"),
    ("decisions", "decisions"),
    ("evaluations", "evaluations"),
    ("cache_hits", "cache_hits"),
    ("evaluator", "evaluator"),
    ("fluid_events", "fluid_events"),
]
#: Columns every row starts with (the parameters follow run_id/program) and after them.
LEAD_COLUMNS = ["run_id", "program"]
RUN_COLUMNS = ["run", "output_dir", "status", "error"]

#: --cluster choices: dask-jobqueue cluster classes. "local-jobs" is dask-jobqueue's own test
#: cluster: the same job scripts and scaling, the "batch jobs" started as local processes.
JOBQUEUE_CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster",
                     "lsf": "LSFCluster", "htcondor": "HTCondorCluster", "oar": "OARCluster",
                     "moab": "MoabCluster", "local-jobs": "local.LocalCluster"}
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
#: What the sweep itself writes in --out (a block's 'output' may not name or be inside them).
SWEEP_FILES = ("table.csv", "table.csv.partial", "timing.csv", "timing.csv.partial", "logs",
               "scenarios", "plots")


class SweepError(Exception):
    """A bad sweep file or option: one line naming the file and the field."""


# --------------------------------------------------------------------------------------------
# Values and the sweep file
# --------------------------------------------------------------------------------------------

def cell(value):
    """Text of a value in a command line and in the table: booleans true/false (ns-3's
    CommandLine), floats in shortest round-trip form (``repr``: the table parses back to exactly
    the number in summary.json), lists comma-joined, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)) and all(not isinstance(v, (list, dict)) for v in value):
        return ",".join(cell(v) for v in value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True)  # a structured scenario field
    return str(value)


def result_cell(value):
    """Text of a summary.json value in the table (booleans 1/0, else as :func:`cell`)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return cell(value)


def _is_scalar(v):
    return isinstance(v, (str, int, float, bool))


def _check_value(v, where):
    if _is_scalar(v):
        return
    if isinstance(v, list) and v and all(_is_scalar(x) for x in v):
        return
    raise SweepError(f"{where}: expected a number, string, boolean or a non-empty list of them, "
                     f"got {json.dumps(v)}")


def _check_tree(node, path, where=""):
    """Every key a string and every value one that JSON and a command line can carry: a YAML
    date (``2023-01-01``), a non-finite number (``.nan``, ``.inf``), an integer key or a Python
    object is refused here, naming the file and where in it, instead of failing later."""
    at = f"{path}: {where}" if where else path
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str):
                raise SweepError(f"{at}: key {k!r} is not text (quote it: '{k}')")
            _check_tree(v, path, f"{where}.{k}" if where else k)
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            _check_tree(v, path, f"{where}[{i}]")
    elif isinstance(node, float) and not math.isfinite(node):
        raise SweepError(f"{at}: {node!r} is not a finite number")
    elif node is not None and not isinstance(node, (str, int, float, bool)):
        raise SweepError(f"{at}: {node!s} is a {type(node).__name__}, not a number, string or "
                         "boolean (quote it to pass it as text)")


def read_sweep_file(path):
    """The sweep as a dict: YAML/JSON file, or a Python file defining ``SWEEP``."""
    if not os.path.isfile(path):
        raise SweepError(f"{path}: no such sweep file")
    if path.endswith(".py"):
        try:
            ns = runpy.run_path(path)
        except (Exception, SystemExit) as e:  # the user's script: report whatever it raised
            raise SweepError(f"{path}: {type(e).__name__}: {e}") from None
        if not isinstance(ns.get("SWEEP"), dict):
            raise SweepError(f"{path}: defines no dict SWEEP")
        _check_tree(ns["SWEEP"], path)
        return ns["SWEEP"]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SweepError(f"{path}: line {e.lineno}: {e.msg}") from None
    else:
        try:
            import yaml
        except ImportError:
            raise SweepError(f"{path}: PyYAML is not installed (scripts/setup.sh installs it "
                             "into build/venv); or write the sweep as .json") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise SweepError(f"{path}: {' '.join(str(e).split())}") from None
    if not isinstance(data, dict):
        raise SweepError(f"{path}: expected a mapping with 'runs'")
    _check_tree(data, path)
    return data


def _keys(d, allowed, where):
    for k in d:
        if k not in allowed:
            raise SweepError(f"{where}.{k}: unknown key (known here: {', '.join(allowed)})")


def program_options(bindir, program, cache={}):
    """{option: default text or None} of a crux program, read from its --PrintHelp."""
    if program in cache:
        return cache[program]
    exe = os.path.join(bindir, program)
    if not os.access(exe, os.X_OK):
        raise SweepError(f"--bin: {exe} not found (build it: cmake --build build)")
    p = subprocess.run([exe, "--PrintHelp"], capture_output=True, text=True)
    opts = {}
    section = False
    for line in p.stdout.splitlines():
        if line.startswith("Program Options:"):
            section = True
        elif line.startswith("General Arguments:"):
            break
        elif section:
            m = re.match(r"^\s+--(\w+):\s.*?(?:\[(.*)\])?\s*$", line)
            if m:
                opts[m.group(1)] = m.group(2)
    if not opts:
        raise SweepError(f"{exe} --PrintHelp listed no program options")
    cache[program] = opts
    return opts


class Run:
    """One invocation of a program: its id, parameters (column -> cell text), command line and
    where its summary.json files will be."""

    def __init__(self, run_id, order, program, params, options, scenario_fields, out_rel):
        self.run_id = run_id
        self.order = order            # position in the sweep file's expansion (table order)
        self.program = program
        self.params = params          # {column: cell text} in the file's key order
        self.options = options        # {option: value} (paths resolved)
        self.scenario_fields = scenario_fields  # {dotted path: JSON value}
        self.out_rel = out_rel        # output directory relative to --out
        self.argv = None
        self.summaries = None         # [(run name or None, path)]
        self.scenario_doc = None      # derived scenario file content, if any


def _set_field(doc, dotted, value, where):
    """Set a dotted path (object keys, list indices) of a JSON document; its parent must exist."""
    parts = dotted.split(".")
    node = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise SweepError(f"{where}: '{'.'.join(parts[:i + 1])}': no such list element "
                                 f"(the list has {len(node)})")
            part = int(part)
        elif isinstance(node, dict):
            if not last and part not in node:
                raise SweepError(f"{where}: '{'.'.join(parts[:i + 1])}' is not in the scenario")
        else:
            raise SweepError(f"{where}: '{'.'.join(parts[:i])}' is not an object or a list")
        if last:
            node[part] = value
        else:
            node = node[part]


#: Scenario fields that name files relative to the scenario file's directory (Scenario::Load):
#: a job's Chakra trace prefix, ``jobs[i].chakra``.
SCENARIO_PATH_FIELDS = ("chakra",)


def _absolute_job_paths(job, base):
    """Make a scenario job's file fields (:data:`SCENARIO_PATH_FIELDS`) absolute against
    ``base``, in place (a job that is not an object, or a field that is not text, is left for
    the program to refuse)."""
    if not isinstance(job, dict):
        return
    for key in SCENARIO_PATH_FIELDS:
        v = job.get(key)
        if isinstance(v, str) and v and not os.path.isabs(v):
            job[key] = os.path.normpath(os.path.join(base, v))


def absolute_scenario_paths(doc, base):
    """The derived scenario is written to <out>/scenarios/, another directory than the file it
    comes from: a relative path in it (a Chakra prefix) would resolve against the copy's
    directory. Make every such path absolute against ``base``, the original's directory."""
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    for job in jobs if isinstance(jobs, list) else []:
        _absolute_job_paths(job, base)


def absolute_field_paths(dotted, value, base):
    """A ``scenario.*`` value that holds a file path (``jobs.0.chakra``, or a whole job or jobs
    list with ``chakra`` in it), relative paths made absolute against ``base`` (the sweep
    file's directory, as for the options that name files); other values unchanged."""
    parts = dotted.split(".")
    if len(parts) == 3 and parts[0] == "jobs" and parts[2] in SCENARIO_PATH_FIELDS:
        if isinstance(value, str) and value and not os.path.isabs(value):
            return os.path.normpath(os.path.join(base, value))
    elif len(parts) == 2 and parts[0] == "jobs":
        value = copy.deepcopy(value)
        _absolute_job_paths(value, base)
    elif dotted == "jobs" and isinstance(value, list):
        value = copy.deepcopy(value)
        for job in value:
            _absolute_job_paths(job, base)
    return value


def expand(sweep, path, bindir):
    """Check the sweep and expand it into Runs (blocks in file order, each block's grid as a
    cartesian product with its first key outermost). Raises SweepError, writes nothing."""
    _keys(sweep, ["name", "runs", "plots"], path)
    base = os.path.dirname(os.path.abspath(path))
    blocks = sweep.get("runs")
    if not isinstance(blocks, list) or not blocks:
        raise SweepError(f"{path}: runs: expected a non-empty list of run blocks")
    runs = []
    names = set()
    scenarios = {}
    for b, block in enumerate(blocks):
        where = f"{path}: runs[{b}]"
        if not isinstance(block, dict):
            raise SweepError(f"{where}: expected a mapping")
        _keys(block, ["name", "program", "options", "grid", "output"], where)
        program = block.get("program")
        if program not in PROGRAMS:
            raise SweepError(f"{where}.program: {json.dumps(program)} (expected one of "
                             f"{', '.join(PROGRAMS)})")
        name = block.get("name", program)
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise SweepError(f"{where}.name: {json.dumps(name)} (letters, digits, '_.-')")
        if name in names:
            raise SweepError(f"{where}.name: '{name}' is used by an earlier block (give each "
                             "block of the same program its own name)")
        names.add(name)
        known = program_options(bindir, program)
        options = block.get("options") or {}
        grid = block.get("grid") or {}
        for what, d in (("options", options), ("grid", grid)):
            if not isinstance(d, dict):
                raise SweepError(f"{where}.{what}: expected a mapping of option: value")
            for k, v in d.items():
                w = f"{where}.{what}.{k}"
                if k in RESERVED:
                    raise SweepError(f"{w}: {RESERVED[k]}")
                if k.startswith(SCENARIO_PREFIX):
                    if program != "crux-experiment":
                        raise SweepError(f"{w}: scenario fields are options of crux-experiment")
                elif k not in known:
                    raise SweepError(f"{w}: not an option of {program} (its options: "
                                     f"{', '.join(sorted(known))})")
                if what == "grid":
                    if not isinstance(v, list) or not v:
                        raise SweepError(f"{w}: expected a non-empty list of values")
                    for i, x in enumerate(v):
                        if k.startswith(SCENARIO_PREFIX):
                            json.dumps(x)  # any JSON value
                        else:
                            _check_value(x, f"{w}[{i}]")
                elif not k.startswith(SCENARIO_PREFIX):
                    _check_value(v, w)
        both = set(options) & set(grid)
        if both:
            raise SweepError(f"{where}: '{sorted(both)[0]}' is in both options and grid")
        out_tpl = block.get("output")
        if out_tpl is not None and not isinstance(out_tpl, str):
            raise SweepError(f"{where}.output: expected a path template like 'fig23/{{topology}}'")
        axes = list(grid.items())
        combos = list(itertools.product(*[vals for _, vals in axes])) if axes else [()]
        width = max(3, len(str(len(combos) - 1)))
        for i, combo in enumerate(combos):
            values = dict(options)
            values.update({k: v for (k, _), v in zip(axes, combo)})
            # what the program prints is no parameter of the run: no table column
            params = {k: cell(v) for k, v in values.items() if k not in OUTPUT_ONLY_OPTIONS}
            run_id = f"{name}-{i:0{width}d}"
            opts = {}
            fields = {}
            for k, v in values.items():
                if k.startswith(SCENARIO_PREFIX):
                    fields[k[len(SCENARIO_PREFIX):]] = v
                elif k in PROGRAMS[program]["paths"]:
                    opts[k] = os.path.normpath(os.path.join(base, cell(v)))
                else:
                    opts[k] = v
            if out_tpl is None:
                out_rel = os.path.join("runs", run_id)
            else:
                def sub(m):
                    if m.group(1) not in params:
                        raise SweepError(f"{where}.output: '{{{m.group(1)}}}' is not an option "
                                         "or grid key of this block")
                    return params[m.group(1)].replace("/", "_")
                out_rel = os.path.normpath(re.sub(r"\{([^{}]+)\}", sub, out_tpl))
                if os.path.isabs(out_rel) or out_rel.split(os.sep)[0] in ("..", "."):
                    raise SweepError(f"{where}.output: '{out_tpl}' must be a path inside --out")
                top = out_rel.split(os.sep)[0]
                if top in SWEEP_FILES:
                    what = "names" if top == out_rel else f"({out_rel}) is inside"
                    raise SweepError(f"{where}.output: '{out_tpl}' {what} the sweep's own "
                                     f"'{top}' (the sweep writes {', '.join(SWEEP_FILES)} in "
                                     "--out; write runs elsewhere, e.g. 'runs/...')")
            run = Run(run_id, len(runs), program, params, opts, fields, out_rel)
            if fields:
                if "scenario" not in opts:
                    raise SweepError(f"{where}: scenario fields need the option 'scenario'")
                src = opts["scenario"]
                if src not in scenarios:
                    try:
                        with open(src, encoding="utf-8") as f:
                            scenarios[src] = json.load(f)
                    except (OSError, json.JSONDecodeError) as e:
                        raise SweepError(f"{where}: scenario {src}: {e}") from None
                doc = copy.deepcopy(scenarios[src])
                # the copy lives in <out>/scenarios/: its relative paths are made absolute,
                # against the original's directory (theirs) and the sweep file's (the sweep's)
                absolute_scenario_paths(doc, os.path.dirname(src))
                for dotted, v in fields.items():
                    _set_field(doc, dotted, absolute_field_paths(dotted, v, base),
                               f"{where}: {SCENARIO_PREFIX}{dotted}")
                run.scenario_doc = doc
            runs.append(run)
    return runs


def check_plots(sweep, path, param_columns, programs):
    """The plots list, checked against the columns the table will have (job.* columns are known
    only after the runs and are checked then)."""
    plots = sweep.get("plots") or []
    if not isinstance(plots, list):
        raise SweepError(f"{path}: plots: expected a list")
    columns = set(LEAD_COLUMNS + RUN_COLUMNS) | set(param_columns)
    if "crux-experiment" in programs:
        columns |= {c for c, _ in EXPERIMENT_COLUMNS}
    if "crux-trace-run" in programs:
        columns |= {c for c, _ in TRACE_COLUMNS}
    names = set()
    for i, p in enumerate(plots):
        where = f"{path}: plots[{i}]"
        if not isinstance(p, dict):
            raise SweepError(f"{where}: expected a mapping")
        _keys(p, ["name", "x", "y", "by", "where", "title", "y_from_zero", "log_x"], where)
        for k in ("y_from_zero", "log_x"):
            if k in p and not isinstance(p[k], bool):
                raise SweepError(f"{where}.{k}: expected true or false")
        if not isinstance(p.get("name"), str) or not NAME_RE.match(p["name"]):
            raise SweepError(f"{where}.name: required (letters, digits, '_.-')")
        if p["name"] in names:
            raise SweepError(f"{where}.name: '{p['name']}' used twice")
        names.add(p["name"])
        for k in ("x", "y", "by"):
            v = p.get(k)
            if v is None and k == "by":
                continue
            if not isinstance(v, str):
                raise SweepError(f"{where}.{k}: expected a column name")
            if v not in columns and not v.startswith("job."):
                raise SweepError(f"{where}.{k}: '{v}' is not a column of the table (columns: "
                                 f"{', '.join(sorted(columns))}, job.<name>.<field>)")
        w = p.get("where") or {}
        if not isinstance(w, dict):
            raise SweepError(f"{where}.where: expected a mapping of column: value(s)")
        for k, v in w.items():
            if k not in columns:
                raise SweepError(f"{where}.where.{k}: not a column of the table")
            _check_value(v, f"{where}.where.{k}")
    return plots


def prepare(runs, out, bindir):
    """Command lines and summary paths of every run; checks that no two runs write the same
    result directory (SweepError)."""
    out = os.path.abspath(out)
    owners = {}
    for r in runs:
        known = program_options(bindir, r.program)
        run_dir = os.path.join(out, r.out_rel)
        argv = [os.path.join(bindir, r.program)]
        for k, v in r.options.items():
            argv.append(f"--{k}={cell(v)}")
        if r.scenario_doc is not None:
            argv = [a for a in argv if not a.startswith("--scenario=")]
            argv.append(f"--scenario={os.path.join(out, 'scenarios', r.run_id + '.json')}")
        # One core per run: a program that runs its own simulations in parallel is kept to one
        # worker slot (its outputs do not depend on --jobs).
        if "jobs" in known and "jobs" not in r.options:
            argv.append("--jobs=1")
        argv.append(f"--outputDir={run_dir}")
        r.argv = argv
        if r.program == "crux-trace-run":
            scheds = cell(r.options.get("schedulers", known.get("schedulers") or "crux,ecmp"))
            names = [s.strip() for s in scheds.split(",") if s.strip()]  # as crux-trace-run
            for s in names:
                if names.count(s) > 1:
                    raise SweepError(f"run {r.run_id}: schedulers: '{s}' is listed twice")
            r.summaries = [(s, os.path.join(run_dir, s, "summary.json")) for s in names]
        else:
            r.summaries = [(None, os.path.join(run_dir, "summary.json"))]
        for _, p in r.summaries:
            d = os.path.dirname(p)
            if d in owners:
                raise SweepError(f"runs {owners[d]} and {r.run_id} would both write {d} (give "
                                 "the blocks different 'output' templates)")
            owners[d] = r.run_id
    dirs = sorted(owners)
    for a, b in zip(dirs, dirs[1:]):
        if b.startswith(a + os.sep):
            raise SweepError(f"runs {owners[a]} and {owners[b]} write nested directories {a} "
                             f"and {b}")


# --------------------------------------------------------------------------------------------
# Executing one run (on a Dask worker)
# --------------------------------------------------------------------------------------------

def error_line(stderr_text, returncode):
    """The one line that says why a run failed: the program's last 'error:' line, else the first
    line it wrote on stderr, else the exit status."""
    lines = [ln.strip() for ln in stderr_text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": error:" in ln]
    line = errors[-1] if errors else (lines[0] if lines else "")
    if returncode is not None and returncode < 0:
        status = f"killed by signal {-returncode}"
    else:
        status = f"exit status {returncode}"
    return (line[:400] + f" ({status})") if line else status


def _die_with_parent():
    """In the child, before exec: on Linux, ask for SIGTERM when the worker thread that started
    it goes away (e.g. the sweep is stopped and its worker processes end), so that no
    simulation is left running on its own. The thread waits for the child, so it outlives it
    otherwise."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except (OSError, AttributeError):
        pass
    # the local cluster's workers ignore SIGINT (make_cluster); a simulation stops on Ctrl-C
    # as any program does
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sha256(paths):
    """Hex SHA-256 of the files' contents in order (each preceded by its name), or None if one
    cannot be read."""
    h = hashlib.sha256()
    try:
        for path in paths:
            h.update(os.path.basename(path).encode() + b"\0")
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def scenario_trace_files(path):
    """{"jobs[i].chakra": [rank files]} of a scenario's Chakra jobs: ``<prefix>.<rank>.et``,
    a relative prefix against the scenario file's directory (as Scenario::Load); {} for a file
    that is not a readable scenario (the program reports it)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    out = {}
    for i, job in enumerate(jobs if isinstance(jobs, list) else []):
        prefix = job.get("chakra") if isinstance(job, dict) else None
        if not isinstance(prefix, str) or not prefix:
            continue
        prefix = os.path.join(os.path.dirname(os.path.abspath(path)), prefix)
        d, stem = os.path.split(prefix)
        try:
            names = os.listdir(d or ".")
        except OSError:
            names = []
        ranks = sorted((int(m.group(1)), n) for n in names
                       for m in [re.fullmatch(re.escape(stem) + r"\.(\d+)\.et", n)] if m)
        out[f"jobs[{i}].chakra"] = [os.path.join(d, n) for _, n in ranks]
    return out


def input_digests(argv, cwd):
    """{option: sha256} of every file an option of the command line names (``--scenario=``,
    ``--jobCsv=``, ...), and of the Chakra trace files a scenario names
    (``--scenario:jobs[i].chakra``: all its rank files): with the command line they identify a
    run for --resume, since a scenario-file grid value or an edited input changes a file, not
    the line."""
    out = {}
    for a in argv[1:]:
        if not a.startswith("--") or "=" not in a:
            continue
        key, value = a.split("=", 1)
        path = value if os.path.isabs(value) else os.path.join(cwd, value)
        if value and os.path.isfile(path):
            digest = _sha256([path])
            if digest is None:
                continue
            out[key] = digest
            if key == "--scenario":
                for field, files in scenario_trace_files(path).items():
                    out[f"{key}:{field}"] = _sha256(files) if files else None
    return out


def execute(task):
    """Run one program invocation (on a worker) and read its summary.json files.

    ``task``: run_id, argv, cwd, stdout, stderr (log paths), status (status file path),
    summaries [(name, path)]. Returns a dict with run_id, returncode, error ('' if it
    succeeded), wall_s, host and summaries [(name, parsed JSON)]."""
    t0 = time.monotonic()
    os.makedirs(os.path.dirname(task["stdout"]), exist_ok=True)
    inputs = input_digests(task["argv"], task["cwd"])
    returncode = None
    error = ""
    with open(task["stdout"], "wb") as so, open(task["stderr"], "wb") as se:
        try:
            returncode = subprocess.run(task["argv"], cwd=task["cwd"], stdout=so, stderr=se,
                                        stdin=subprocess.DEVNULL,
                                        preexec_fn=_die_with_parent).returncode
        except OSError as e:
            error = f"cannot start {task['argv'][0]}: {e.strerror}"
    wall = time.monotonic() - t0
    with open(task["stderr"], encoding="utf-8", errors="replace") as f:
        stderr_text = f.read()
    if not error and returncode != 0:
        error = error_line(stderr_text, returncode)
    # the program's warnings (skipped trace rows, a window that misses the work, ...): the
    # sweep's own lines name them, so that an "ok" run does not hide them in its log
    warnings = [ln.strip() for ln in stderr_text.splitlines() if ": warning: " in ln]
    summaries = []
    if not error:
        for name, path in task["summaries"]:
            try:
                with open(path, encoding="utf-8") as f:
                    summaries.append((name, json.load(f)))
            except (OSError, json.JSONDecodeError) as e:
                error = f"{path}: cannot read ({getattr(e, 'strerror', None) or e})"
                break
    result = {"run_id": task["run_id"], "returncode": returncode, "error": error,
              "warnings": warnings, "wall_s": wall, "host": socket.gethostname(),
              "summaries": summaries if not error else []}
    with open(task["status"], "w", encoding="utf-8") as f:
        json.dump({"argv": task["argv"], "inputs": inputs, "returncode": returncode,
                   "error": error, "wall_s": wall, "host": result["host"]}, f, indent=1)
    return result


def reuse(task):
    """The result of a run completed by an earlier call with the same command line and the
    same content of the files it names (input_digests; --resume), or None."""
    try:
        with open(task["status"], encoding="utf-8") as f:
            st = json.load(f)
        if st.get("argv") != task["argv"] or st.get("returncode") != 0 or st.get("error"):
            return None
        if st.get("inputs") != input_digests(task["argv"], task["cwd"]):
            return None
        summaries = []
        for name, path in task["summaries"]:
            with open(path, encoding="utf-8") as f:
                summaries.append((name, json.load(f)))
    except (OSError, ValueError):
        return None
    return {"run_id": task["run_id"], "returncode": 0, "error": "", "wall_s": st.get("wall_s", 0.0),
            "host": st.get("host", ""), "summaries": summaries, "reused": True}


# --------------------------------------------------------------------------------------------
# The engine: Dask
# --------------------------------------------------------------------------------------------

def default_workers():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def make_cluster(args):
    """(client, cluster or None, description) for the chosen Dask deployment."""
    from distributed import Client, LocalCluster
    if args.scheduler_address:
        return Client(args.scheduler_address), None, f"Dask scheduler {args.scheduler_address}"
    if args.scheduler_file:
        return (Client(scheduler_file=args.scheduler_file), None,
                f"Dask scheduler of {args.scheduler_file}")
    if args.cluster:
        cluster = make_jobqueue_cluster(args)
        # Adaptive: jobs are submitted while runs wait (at most --cluster-jobs at a time),
        # replaced when they end (e.g. at their walltime), released when nothing is left.
        cluster.adapt(minimum_jobs=0, maximum_jobs=args.cluster_jobs)
        return (Client(cluster), cluster,
                f"dask-jobqueue {JOBQUEUE_CLUSTERS[args.cluster]}, at most "
                f"{args.cluster_jobs} batch job(s)")
    import warnings
    # The scheduler's HTTP server moves to a free port when 8787 is taken; say nothing about it.
    warnings.filterwarnings("ignore", message="Port .* is already in use")
    # Ctrl-C reaches every process of the terminal's process group: the worker processes
    # would each print a traceback of their own (CancelledError, KeyboardInterrupt). They are
    # started with SIGINT ignored (inherited through exec; Python then installs no handler),
    # and end when the sweep closes the cluster; the simulations they start restore it.
    with sigint_ignored():
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR,
                               memory_limit=0)
    return Client(cluster), cluster, f"local Dask cluster, {args.workers} worker(s)"


class sigint_ignored:
    """Context: SIGINT ignored inside (the processes started inside inherit "ignored" through
    exec, a Python handler would be reset), the earlier handler restored after. A Ctrl-C in
    the second or two the cluster takes to start is lost; in the main thread only."""

    def __enter__(self):
        try:
            self.old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:  # not the main thread: nothing changes
            self.old = None
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)
        return False


def quiet_interrupt():
    """After Ctrl-C: no further SIGINT, and nothing from Dask's loggers while the cluster
    closes (its tasks are cancelled, its workers go away), so that the sweep's own line is
    all that is printed."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        pass
    for name in ("distributed", "dask", "dask_jobqueue", "tornado", "asyncio"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL + 1)
        logger.propagate = False
    logging.raiseExceptions = False


def make_jobqueue_cluster(args):
    """A dask-jobqueue cluster object (nothing submitted yet) from Dask's configuration
    (~/.config/dask/jobqueue.yaml) and --cluster-option overrides."""
    # dask_jobqueue.runner sets SIGINT to sys.exit() when it is imported: Ctrl-C would then end
    # the sweep with exit status 0 and no word; keep the sweep's own handling (one line, 130)
    handler = signal.getsignal(signal.SIGINT)
    try:
        import dask_jobqueue  # noqa: F401
        try:
            import dask_jobqueue.runner  # noqa: F401  (now: the handler is restored below)
        except ImportError:
            pass
        signal.signal(signal.SIGINT, handler)
    except ImportError:
        raise SweepError("--cluster: dask-jobqueue is not installed (scripts/setup.sh installs "
                         "it into build/venv)") from None
    import yaml
    kwargs = {}
    for opt in args.cluster_option:
        if "=" not in opt:
            raise SweepError(f"--cluster-option: '{opt}' is not KEY=VALUE")
        k, v = opt.split("=", 1)
        kwargs[k.strip()] = yaml.safe_load(v)
    import importlib
    import warnings
    # The scheduler's HTTP server moves to a free port when 8787 is taken; say nothing about it.
    warnings.filterwarnings("ignore", message="Port .* is already in use")
    module, _, name = ("dask_jobqueue." + JOBQUEUE_CLUSTERS[args.cluster]).rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as e:
        raise SweepError(f"--cluster={args.cluster}: {' '.join(str(e).split())}") from None


def last_line(path, limit=4096):
    """The last non-empty line of a text file (its last ``limit`` bytes), '' if none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            tail = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in tail.replace("\r", "\n").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


class Heartbeat:
    """While runs are going: a progress line at most every ``interval`` seconds of silence
    (the finished-run lines count), naming the runs under way, how long each has been going
    and the last line its program wrote on stderr (crux-experiment's and crux-trace-run's own
    progress lines go to logs/<run id>.stderr). A run is under way once the worker has opened
    that log in this call (its modification time is after the sweep's start) until its result
    is in. Only stderr: no file of the sweep changes."""

    SHOWN = 3  # runs named in a line; the rest are counted

    def __init__(self, todo, results, interval, progress):
        import threading
        self.todo, self.results, self.interval, self.progress = todo, results, interval, progress
        self.start_wall = time.time()
        self.seen = {}                    # run id -> monotonic time first seen under way
        self.last = time.monotonic()      # last progress line (any)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="sweep-heartbeat", daemon=True)

    def __enter__(self):
        if self.interval > 0:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(timeout=2)
        return False

    def printed(self):
        """A finished-run line was printed: the next heartbeat waits a full interval."""
        self.last = time.monotonic()

    def running(self):
        now = time.monotonic()
        out = []
        for t in self.todo:
            rid = t["run_id"]
            if rid in self.results:
                continue
            try:
                if os.path.getmtime(t["stderr"]) < self.start_wall - 1:
                    continue  # a log of an earlier call
            except OSError:
                continue      # not started
            first = self.seen.setdefault(rid, now)
            out.append((rid, now - first, last_line(t["stderr"])))
        return out

    def _loop(self):
        while not self.stop_event.wait(1.0):
            runs = self.running()  # every second: when each run was first seen
            if not runs or time.monotonic() - self.last < self.interval:
                continue
            parts = []
            for rid, age, line in runs[:self.SHOWN]:
                line = line if len(line) <= 110 else line[:107] + "..."
                parts.append(f"{rid} {age:.0f} s" + (f" [{line}]" if line else ""))
            more = f"; {len(runs) - self.SHOWN} more" if len(runs) > self.SHOWN else ""
            done = sum(1 for t in self.todo if t["run_id"] in self.results)
            self.progress(f"{done}/{len(self.todo)} done, {len(runs)} under way: "
                          + "; ".join(parts) + more)
            self.last = time.monotonic()


def run_all(tasks, args, progress):
    """Execute the tasks (skipping those --resume can reuse); returns {run_id: result}."""
    results = {}
    todo = []
    for t in tasks:
        r = reuse(t) if args.resume else None
        if r is not None:
            results[t["run_id"]] = r
        else:
            todo.append(t)
    if args.resume and results:
        progress(f"{len(results)} run(s) reused from an earlier call (--resume)")
    if not todo:
        return results
    total = len(todo)
    t0 = [time.monotonic()]

    def report(res):
        done = len(results) - (len(tasks) - total)
        elapsed = time.monotonic() - t0[0]
        left = elapsed / done * (total - done)
        state = "ok" if not res["error"] else "FAILED: " + res["error"]
        warns = res.get("warnings") or []
        if warns and not res["error"]:
            state += (f", {len(warns)} warning(s), the first: {warns[0]}"
                      if len(warns) > 1 else f", warning: {warns[0]}")
        progress(f"[{done}/{total}] {res['run_id']} {state} ({res['wall_s']:.1f} s); "
                 f"elapsed {elapsed:.0f} s, about {left:.0f} s left")
        beat.printed()

    beat = Heartbeat(todo, results, 0 if args.quiet else args.progress_every, progress)

    try:
        import distributed  # noqa: F401
    except ImportError:
        if args.cluster or args.scheduler_address or args.scheduler_file or args.workers > 1:
            raise SweepError("Dask (distributed) is not installed: scripts/setup.sh installs it "
                             "into build/venv; run with build/venv/bin/python (or --workers=1)"
                             ) from None
        progress(f"Dask is not installed: running the {total} run(s) one after another")
        with beat:
            for t in todo:
                results[t["run_id"]] = execute(t)
                report(results[t["run_id"]])
        return results

    from distributed import as_completed
    import cloudpickle
    # Workers receive execute() by value, so they need neither this file nor its directory.
    if __name__ != "__main__":
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    client, cluster, what = make_cluster(args)
    try:
        progress(f"{total} run(s) on {what}")
        t0[0] = time.monotonic()
        token = f"{os.getpid()}-{int(time.time())}"
        futures = client.map(execute, todo, key=[f"{t['run_id']}-{token}" for t in todo],
                             pure=False, retries=0)
        by_key = {f.key: t for f, t in zip(futures, todo)}
        with beat:
            for fut in as_completed(futures):
                t = by_key[fut.key]
                try:
                    res = fut.result()
                except Exception as e:  # the worker died (e.g. batch job killed): report it
                    res = {"run_id": t["run_id"], "returncode": None, "wall_s": 0.0,
                           "host": "", "summaries": [],
                           "error": f"Dask: {type(e).__name__}: "
                                    f"{' '.join(str(e).split())}"[:400]}
                results[t["run_id"]] = res
                report(res)
    except KeyboardInterrupt:
        quiet_interrupt()
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return results


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------

def _get(doc, key):
    if callable(key):
        return key(doc)
    node = doc
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def result_rows(run, result):
    """Rows (dicts column -> text) of one run, in its summary's order."""
    base = {"run_id": run.run_id, "program": run.program, **run.params}
    if result["error"]:
        return [{**base, "output_dir": run.out_rel, "status": "failed",
                 "error": result["error"]}]
    rows = []
    for name, doc in result["summaries"]:
        if run.program == "crux-trace-run":
            row = {**base, "run": name, "output_dir": os.path.join(run.out_rel, name),
                   "status": "ok", "error": ""}
            for col, key in TRACE_COLUMNS:
                row[col] = result_cell(_get(doc, key))
            rows.append(row)
        else:
            for r in doc.get("runs", []):
                label, seeds = r.get("run", ""), r.get("seeds") or []
                # a run of one of several ECMP seeds is labelled "<mode>@<its first seed>": the
                # mode is the run column, its seeds a column of their own, so that the rows of
                # the seeds of one point make one line (drawn as their mean and interval)
                suffix = f"@{seeds[0]}" if seeds else None
                if suffix and label.endswith(suffix):
                    label = label[:-len(suffix)]
                row = {**base, "run": label, "output_dir": run.out_rel, "status": "ok",
                       "error": ""}
                for col, key in EXPERIMENT_COLUMNS:
                    row[col] = result_cell(_get(r, key))
                for job in r.get("jobs", []):
                    for col, key in EXPERIMENT_JOB_COLUMNS:
                        row[f"job.{job.get('name')}.{col}"] = result_cell(job.get(key))
                rows.append(row)
    return rows


def build_table(runs, results):
    """(header, rows) of the sweep table; rows in run order (the sweep file's order), never in
    completion order."""
    params = []
    for r in runs:
        for k in r.params:
            if k not in params:
                params.append(k)
    header = LEAD_COLUMNS + params + RUN_COLUMNS
    programs = {r.program for r in runs}
    if "crux-experiment" in programs:
        header += [c for c, _ in EXPERIMENT_COLUMNS]
    if "crux-trace-run" in programs:
        header += [c for c, _ in TRACE_COLUMNS if c not in header]
    rows = []
    for r in sorted(runs, key=lambda r: r.order):
        rows += result_rows(r, results[r.run_id])
    jobcols = []
    for row in rows:
        for k in row:
            if k.startswith("job.") and k not in jobcols:
                jobcols.append(k)
    return header + jobcols, rows


def write_csv(path, header, rows):
    """Write the table all or nothing (temporary file renamed into place)."""
    tmp = path + ".partial"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for row in rows:
            w.writerow([row.get(c, "") for c in header])
    os.replace(tmp, path)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="sweep.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", help="sweep file (.yaml, .json, or .py defining SWEEP)")
    p.add_argument("--out", required=True, help="output directory: runs/, logs/, table.csv, "
                   "plots/")
    p.add_argument("--bin", default=os.path.join(REPO, "build"),
                   help="directory holding crux-experiment and crux-trace-run (default: "
                   "<clone>/build)")
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="local cluster: worker processes, one run each at a time (default: all "
                   "cores, here %(default)s)")
    p.add_argument("--cluster", choices=sorted(JOBQUEUE_CLUSTERS),
                   help="run on a batch system through dask-jobqueue, configured by Dask's "
                   "configuration (~/.config/dask/jobqueue.yaml) and --cluster-option")
    p.add_argument("--cluster-jobs", type=int, default=1,
                   help="--cluster: at most this many batch jobs at a time (each runs the "
                   "workers of one job script; submitted while runs wait; default 1)")
    p.add_argument("--cluster-option", action="append", default=[], metavar="KEY=VALUE",
                   help="--cluster: keyword of the dask-jobqueue cluster class (repeatable), "
                   "e.g. queue=compute, cores=32, memory=64GB, walltime=04:00:00")
    p.add_argument("--print-job-script", action="store_true",
                   help="--cluster: print the batch script dask-jobqueue would submit, then stop")
    p.add_argument("--scheduler-address", help="run on this running Dask scheduler "
                   "(tcp://host:port)")
    p.add_argument("--scheduler-file", help="run on the Dask scheduler described by this file "
                   "(dask scheduler --scheduler-file, dask-mpi)")
    p.add_argument("--resume", action="store_true",
                   help="reuse runs that an earlier call with the same --out completed with the "
                   "same command line and the same content of the files it names (scenario, "
                   "trace CSVs)")
    p.add_argument("--list", action="store_true", help="print the runs' command lines, run "
                   "nothing")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--progress-every", type=float, default=15.0, metavar="SECONDS",
                   help="while runs are going, a line naming them with the last line each "
                   "wrote on stderr after this many seconds without a progress line (default "
                   "%(default)g; 0: none)")
    a = p.parse_args(argv)
    engines = [x for x in (a.cluster, a.scheduler_address, a.scheduler_file) if x]
    if len(engines) > 1:
        p.error("give at most one of --cluster, --scheduler-address, --scheduler-file")
    if a.workers < 1:
        p.error("--workers must be >= 1")
    if not a.progress_every >= 0:
        p.error("--progress-every must be >= 0 seconds")
    if a.cluster_jobs < 1:
        p.error("--cluster-jobs must be >= 1")
    if (a.print_job_script or a.cluster_option) and not a.cluster:
        p.error("--print-job-script and --cluster-option need --cluster")
    return a


def check_out(out):
    """--out must be, or be creatable as, a directory."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise SweepError(f"--out: '{out}' exists and is not a directory")
    parent = os.path.abspath(out)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.access(parent, os.W_OK):
        raise SweepError(f"--out: '{out}': {parent} is not writable")


def main(argv=None):
    args = parse_args(argv)

    def progress(msg):
        if not args.quiet:
            print(f"sweep: {msg}", file=sys.stderr, flush=True)

    try:
        sweep = read_sweep_file(args.sweep)
        bindir = os.path.abspath(args.bin)
        runs = expand(sweep, args.sweep, bindir)
        params = []
        for r in runs:
            params += [k for k in r.params if k not in params]
        plots = check_plots(sweep, args.sweep, params, {r.program for r in runs})
        check_out(args.out)
        prepare(runs, args.out, bindir)
        if args.print_job_script:
            cluster = make_jobqueue_cluster(args)
            try:
                print(cluster.job_script())
            finally:
                cluster.close()
            return 0
    except SweepError as e:
        print(f"sweep.py: error: {e}", file=sys.stderr)
        return 2
    if args.list:
        import shlex
        for r in runs:
            print(f"{r.run_id}: {shlex.join(r.argv)}")
        return 0

    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    if any(r.scenario_doc is not None for r in runs):
        os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
    tasks = []
    for r in runs:
        if r.scenario_doc is not None:
            dest = os.path.join(out, "scenarios", r.run_id + ".json")
            with open(dest + ".tmp", "w", encoding="utf-8") as f:  # never half-written
                json.dump(r.scenario_doc, f, indent=2, allow_nan=False)
                f.write("\n")
            os.replace(dest + ".tmp", dest)
        log = os.path.join(out, "logs", r.run_id)
        tasks.append({"run_id": r.run_id, "argv": r.argv, "cwd": out, "stdout": log + ".stdout",
                      "stderr": log + ".stderr", "status": log + ".status.json",
                      "summaries": r.summaries})
    try:
        results = run_all(tasks, args, progress)
    except SweepError as e:
        print(f"sweep.py: error: {e}", file=sys.stderr)
        return 2

    header, rows = build_table(runs, results)
    table = os.path.join(out, "table.csv")
    write_csv(table, header, rows)
    # Wall times and hosts: not part of the table (they differ from call to call).
    write_csv(os.path.join(out, "timing.csv"), ["run_id", "wall_s", "host", "reused"],
              [{"run_id": r.run_id, "wall_s": f"{results[r.run_id]['wall_s']:.3f}",
                "host": results[r.run_id]["host"],
                "reused": "1" if results[r.run_id].get("reused") else "0"} for r in runs])
    print(f"sweep: {len(rows)} row(s) of {len(runs)} run(s) in {table}")

    status = 0
    if plots:
        import sweep_plot
        os.makedirs(os.path.join(out, "plots"), exist_ok=True)
        for p in plots:
            try:
                sweep_plot.plot(header, rows, p, os.path.join(out, "plots", p["name"]))
            except sweep_plot.PlotError as e:
                print(f"sweep.py: error: plots: {p['name']}: {e}", file=sys.stderr)
                status = 1
    failed = [r for r in runs if results[r.run_id]["error"]]
    if failed:
        print(f"sweep.py: {len(failed)} of {len(runs)} run(s) failed (rows with status 'failed' "
              f"in {table}; logs in {os.path.join(out, 'logs')}):", file=sys.stderr)
        for r in failed:
            print(f"  {r.run_id}: {results[r.run_id]['error']}", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("sweep.py: interrupted; the runs that completed are kept (--resume reuses them)",
              file=sys.stderr)
        sys.exit(130)
