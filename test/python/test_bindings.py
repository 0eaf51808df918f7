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
"""Tests of the cppyy Python bindings (bindings/python/crux) and examples/crux-experiment.py.

* The Python example, running ns3::CruxExperiment in this process, gives the same per-job
  numbers as the C++ program build/crux-experiment on the same scenario (summary.json: equal
  to 1e-12 relative, in practice bit for bit; jobs.csv: to its 9 printed digits), on the flow
  fabric (ECMP and Crux) and on the packet-level fabric (Crux).
* The scenario built field by field in Python equals the JSON one.
* The example script run as a program writes the same summary.json as the C++ program.
* The scheduling layer is usable from Python: a ClusterModel built by hand, scheduled by
  CreateCommScheduler("ecmp") and ("crux"), gives the decision crux-scheduler.h specifies;
  Crux's stage objects are chosen by name, their knobs set on the objects, and a path selection
  written in Python runs inside ns3::CruxScheduler.
* C++ input errors arrive as Python exceptions naming the field.

Needs cppyy==2.4.2 (scripts/setup.sh installs it into build/venv): without cppyy every test is
skipped with a message containing CRUX_PYTHON_BINDINGS_UNAVAILABLE. CRUX_BUILD_DIR names the
build directory (default <clone>/build) holding lib/libns3-crux.so and crux-experiment.
Run: CRUX_BUILD_DIR=build build/venv/bin/python -m pytest -q test/python

In-tree mode (scripts/intree.sh runs it): CRUX_NS3_DIR=<ns-3.37 tree with contrib/crux> and
CRUX_EXPERIMENT_PROGRAM=<the tree's crux-experiment binary>, CRUX_BUILD_DIR unset: the bindings
then load the tree's libraries (test_loader_mode checks which build was loaded).
"""

import csv
import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bindings", "python"))

try:
    import cppyy  # noqa: F401
except ImportError as e:
    pytest.skip("CRUX_PYTHON_BINDINGS_UNAVAILABLE: cannot import cppyy (%s); install "
                "cppyy==2.4.2 with scripts/setup.sh and run pytest with build/venv/bin/python"
                % e, allow_module_level=True)

import crux  # noqa: E402

BUILD = os.path.abspath(os.environ.get("CRUX_BUILD_DIR") or os.path.join(REPO, "build"))
#: In-tree mode: the bindings load the ns-3 tree named by CRUX_NS3_DIR (see the module docstring).
INTREE = bool(os.environ.get("CRUX_NS3_DIR")) and not os.environ.get("CRUX_BUILD_DIR")
PROGRAM = os.environ.get("CRUX_EXPERIMENT_PROGRAM") or os.path.join(BUILD, "crux-experiment")
EXAMPLE = os.path.join(REPO, "examples", "crux-experiment.py")
REL = 1e-12


def small_scenario_json(fabric, output_dir, seed=1):
    """The SmallScenario of test/crux-experiment-test-suite.cc as JSON text."""
    return json.dumps({
        "name": "small-contention",
        "topology": {"type": "clos", "tors": 2, "aggs": 2, "hostsPerTor": 4, "gpusPerHost": 8,
                     "nicsPerHost": 1, "hostLinkRate": "100Gbps",
                     "fabricLinkRate": "20Gbps"},
        "jobs": [
            {"name": "big", "model": "gpt", "hosts": [0, 1, 4, 5], "gpusPerHost": 8,
             "gradientBytes": 48000000, "computeTime": 0.05, "iterations": 4},
            {"name": "small", "model": "bert-large", "hosts": [2, 3, 6, 7], "gpusPerHost": 4,
             "gradientBytes": 8000000, "computeTime": 0.01, "iterations": 3,
             "background": True},
        ],
        "scheduler": "crux", "priorityLevels": 8, "profileIterations": 1,
        "seed": seed, "fabric": fabric, "outputDir": output_dir,
    }, indent=2)


@pytest.fixture(scope="module")
def ns():
    try:
        return crux.load()
    except crux.BindingsUnavailable as e:
        pytest.fail(str(e))


@pytest.fixture(scope="module")
def example(ns):
    """examples/crux-experiment.py imported as a module (its file name has a hyphen)."""
    spec = importlib.util.spec_from_file_location("crux_experiment_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_program(tmp_path, fabric, modes):
    """Run the C++ program on the small scenario; return (summary.json dict, jobs.csv rows)."""
    if not os.access(PROGRAM, os.X_OK):
        pytest.fail("%s not found: build the crux-experiment target (CRUX_BUILD_DIR=%s, "
                    "CRUX_EXPERIMENT_PROGRAM=%s)"
                    % (PROGRAM, BUILD, os.environ.get("CRUX_EXPERIMENT_PROGRAM")))
    out = tmp_path / ("cpp-" + fabric)
    scenario = tmp_path / ("small-%s.json" % fabric)
    scenario.write_text(small_scenario_json(fabric, str(out)))
    proc = subprocess.run([PROGRAM, "--scenario=%s" % scenario, "--modes=%s" % ",".join(modes),
                           "--quiet"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with open(out / "summary.json") as f:
        summary = json.load(f)
    with open(out / "jobs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return summary, rows


def assert_runs_equal(py_runs, summary, rows):
    """The Python results equal the program's summary.json (1e-12) and jobs.csv (9 digits)."""
    cpp_runs = summary["runs"]
    assert [r["run"] for r in py_runs] == [r["run"] for r in cpp_runs]
    for py, cpp in zip(py_runs, cpp_runs):
        for key in ("scheduler", "complete", "pauseFrames"):
            assert py[key] == cpp[key], (py["run"], key)
        for key in ("utilization", "windowStart", "windowEnd", "simulatedTime"):
            assert py[key] == pytest.approx(cpp[key], rel=REL, abs=0), (py["run"], key)
        assert [j["name"] for j in py["jobs"]] == [j["name"] for j in cpp["jobs"]]
        for pj, cj in zip(py["jobs"], cpp["jobs"]):
            for key in ("model", "gpus", "hosts", "level", "dscp", "reroutedFlows",
                        "measuredIterations"):
                assert pj[key] == cj[key], (py["run"], pj["name"], key)
            for key in ("meanIterationTime", "throughput", "meanCommTime", "jct", "intensity",
                        "schedulerCommTime", "k"):
                assert pj[key] == pytest.approx(cj[key], rel=REL, abs=0), \
                    (py["run"], pj["name"], key)
            row = [r for r in rows if r["run"] == py["run"] and r["job"] == pj["name"]]
            assert len(row) == 1
            # jobs.csv prints 9 significant digits.
            assert pj["meanIterationTime"] == pytest.approx(
                float(row[0]["mean_iteration_s"]), rel=1e-8)
    # Real measurements, not zeros: every measured job completed iterations in every run.
    for py in py_runs:
        assert py["utilization"] > 0
        for j in py["jobs"]:
            assert j["measuredIterations"] >= 1 and j["meanIterationTime"] > 0


def example_env():
    """Environment for running the example script: the same build as this process loads."""
    return dict(os.environ) if INTREE else dict(os.environ, CRUX_BUILD_DIR=BUILD)


def test_loader_mode(ns):
    """The bindings loaded the build this run is meant to test (standalone or in-tree)."""
    layout = crux.layout()
    if INTREE:
        assert layout["mode"] == "in-tree"
        tree = os.path.realpath(os.environ["CRUX_NS3_DIR"])
        assert os.path.realpath(layout["crux_lib"]).startswith(tree + os.sep), layout["crux_lib"]
    else:
        assert layout["mode"] == "standalone"
        assert os.path.realpath(layout["crux_lib"]) == os.path.realpath(
            os.path.join(BUILD, "lib", "libns3-crux.so"))
    # The C++ objects really come from that library: a crux class is usable.
    assert "crux" in [str(n) for n in ns.KnownCommSchedulers()]


def test_python_scenario_equals_json(ns, example, tmp_path):
    built = example.small_scenario(fabric="flow", output_dir=str(tmp_path))
    parsed = ns.Scenario.Parse(small_scenario_json("flow", str(tmp_path)), "small.json")
    assert str(built.ToJson()) == str(parsed.ToJson())
    assert built.jobs.size() == 2 and list(built.jobs[0].hosts) == [0, 1, 4, 5]


def test_flow_fabric_same_numbers_as_cpp_program(ns, example, tmp_path):
    summary, rows = run_program(tmp_path, "flow", ["ecmp", "crux"])
    scenario = example.small_scenario(fabric="flow", output_dir=str(tmp_path / "py"))
    _, runs = example.run_experiment(scenario, ["ecmp", "crux"])
    py_runs = example.runs_as_dicts(runs)
    assert_runs_equal(py_runs, summary, rows)
    # Read straight from the C++ objects too (not only through runs_as_dicts).
    assert runs.size() == 2
    assert runs[1].jobs[0].meanIterationTime == summary["runs"][1]["jobs"][0][
        "meanIterationTime"]
    # The scenario's point (Crux §2.2): under ECMP the GPT job is slowed by the contention,
    # Crux gives the cluster a higher GPU utilization.
    ecmp, crux_run = py_runs
    assert crux_run["jobs"][0]["meanIterationTime"] < ecmp["jobs"][0]["meanIterationTime"]
    assert crux_run["utilization"] > ecmp["utilization"]


def test_packet_fabric_same_numbers_as_cpp_program(ns, example, tmp_path):
    summary, rows = run_program(tmp_path, "packet", ["crux"])
    scenario = ns.Scenario.Parse(small_scenario_json("packet", str(tmp_path / "py")),
                                 "small.json")
    _, runs = example.run_experiment(scenario, ["crux"])
    assert_runs_equal(example.runs_as_dicts(runs), summary, rows)
    assert summary["measuredCommTime"]["big"] > 0


def test_example_program_writes_same_summary(tmp_path):
    summary, _ = run_program(tmp_path, "flow", ["ecmp", "crux"])
    out = tmp_path / "example-out"
    env = example_env()
    proc = subprocess.run([sys.executable, EXAMPLE, "--outputDir=%s" % out],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    with open(out / "summary.json") as f:
        py_summary = json.load(f)
    for s in (summary, py_summary):
        s["scenario"].pop("outputDir")
    assert py_summary == summary
    # The printed table carries the same numbers.
    big_crux = summary["runs"][1]["jobs"][0]["meanIterationTime"]
    assert ("%.9f" % big_crux) in proc.stdout


def test_example_bad_mode_is_one_clear_error():
    env = example_env()
    proc = subprocess.run([sys.executable, EXAMPLE, "--modes=ecmp,nope"], capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown scheduler 'nope'" in lines[0], proc.stderr


def test_cpp_errors_become_python_exceptions(ns):
    with pytest.raises(ns.ScenarioError, match="jobs"):
        ns.Scenario.Parse('{"jobs": []}', "bad.json")
    s = ns.Scenario.Parse(small_scenario_json("flow", "unused"), "small.json")
    s.jobs[0].model = "no-such-model"
    with pytest.raises(Exception, match="no-such-model"):
        ns.CruxExperiment(s)
    with pytest.raises(Exception, match="unknown scheduler 'nope'"):
        ns.CreateCommScheduler("nope")
    # found by a breaker helper: a Scenario built in code without jobs segfaulted the interpreter
    # (cppyy reports it among the constructor overloads it tried, as the model error above)
    with pytest.raises(Exception, match="jobs: must be a non-empty array"):
        ns.CruxExperiment(ns.Scenario())
    # issue 29: no runs is an error, not ten empty result files
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "crux-writeresults-empty-%d" % os.getpid())
    s = ns.Scenario.Parse(small_scenario_json("flow", out), "small.json")
    with pytest.raises(Exception, match="WriteResults: no runs to write"):
        ns.CruxExperiment(s).WriteResults([])
    assert not os.path.exists(out)


def _job(ns, job_id, flops, paths):
    """A SchedJob with one 1 GB/iteration flow over the given candidate paths (default 0)."""
    std = ns.cppyy.gbl.std
    j = ns.SchedJob()
    j.id = job_id
    j.flopsPerIteration = flops
    j.computeTime = 0.1
    j.numGpus = 8
    f = ns.SchedFlow()
    f.id = 0
    f.bytesPerIteration = 1e9
    for p in paths:
        f.candidatePaths.push_back(std.vector["uint32_t"](p))
    f.defaultPath = 0
    j.flows.push_back(f)
    return j


def test_scheduler_layer(ns):
    # Three 100 Gbit/s links. Job 0 (1e15 FLOPs/iteration) can only use link 0; job 1 (1e14)
    # may use link 0 (its ECMP default) or link 1.
    model = ns.ClusterModel()
    for i in range(3):
        link = ns.SchedLink()
        link.bandwidth = 100e9
        link.name = "l%d" % i
        model.links.push_back(link)
    model.jobs.push_back(_job(ns, 0, 1e15, [[0]]))
    model.jobs.push_back(_job(ns, 1, 1e14, [[0], [1]]))
    config = ns.SchedulerConfig()
    assert config.numLevels == 8
    assert "crux" in [str(n) for n in ns.KnownCommSchedulers()]

    t = 1e9 * 8 / 100e9  # analytic t_j = bytes × 8 / bandwidth, seconds
    assert ns.JobCommTime(model, model.jobs[0], ns.DefaultPathChoice(model.jobs[0])) == \
        pytest.approx(t, rel=REL)

    ecmp = ns.CreateCommScheduler("ecmp").Schedule(model, config)
    assert str(ecmp.scheduler) == "ecmp"
    assert ecmp.PathOf(1, 0) == 0  # ECMP keeps the default path: both jobs on link 0
    assert ecmp.LevelOf(0) == ecmp.LevelOf(1) == 0

    scheduler = ns.CreateCommScheduler("crux")
    assert str(scheduler.GetName()) == "crux"
    d = scheduler.Schedule(model, config)
    # §3: I_j = W_j / t_j.
    assert d.jobs[0].intensity == pytest.approx(1e15 / t, rel=REL)
    assert d.jobs[1].intensity == pytest.approx(1e14 / t, rel=REL)
    # §4.1 [D1]: the more intensive job 0 is placed first on link 0, so job 1's least
    # congested candidate is link 1: max((0+1e9)·8/B) < (1e9+1e9)·8/B.
    assert d.PathOf(0, 0) == 0 and d.PathOf(1, 0) == 1
    # §4.2/§4.3 [D6][D8]: job 0 has the higher P_j; with n <= K every job gets its own level
    # in P order from K-1 down.
    assert list(d.PriorityOrder()) == [0, 1]
    assert d.LevelOf(0) == config.numLevels - 1 and d.LevelOf(1) == config.numLevels - 2
    assert not d.uniquePriorities

    config.numLevels = 0
    with pytest.raises(Exception, match="numLevels"):
        scheduler.Schedule(model, config)


def test_crux_stage_objects(ns):
    # Crux's stages are TypeId-valued Attributes of ns3::CruxScheduler (crux-scheduler.h): set by
    # name from Python, their knobs on the stage objects, and a stage written in Python
    # installed as an object. Same model as test_scheduler_layer.
    model = ns.ClusterModel()
    for i in range(3):
        link = ns.SchedLink()
        link.bandwidth = 100e9
        link.name = "l%d" % i
        model.links.push_back(link)
    model.jobs.push_back(_job(ns, 0, 1e15, [[0]]))
    model.jobs.push_back(_job(ns, 1, 1e14, [[0], [1]]))
    config = ns.SchedulerConfig()

    attributes = ns.CommSchedulerAttributes()
    attributes["PathSelection"] = "ns3::CruxDefaultPaths"
    attributes["Compression"] = "ns3::CruxUniquePriorities"
    d = ns.CreateCommScheduler("crux", attributes).Schedule(model, config)
    pa = ns.CreateCommScheduler("crux-pa").Schedule(model, config)
    assert d.PathOf(1, 0) == pa.PathOf(1, 0) == 0  # the ECMP default path
    assert d.uniquePriorities and pa.uniquePriorities
    assert [d.LevelOf(j) for j in (0, 1)] == [pa.LevelOf(j) for j in (0, 1)]
    bad = ns.CommSchedulerAttributes()
    bad["PathSelection"] = "false"  # the boolean Attributes the stage objects replaced
    with pytest.raises(Exception, match="derived from ns3::CruxPathSelection"):
        ns.CreateCommScheduler("crux", bad)

    crux = ns.DynamicCast[ns.CruxScheduler](ns.CreateCommScheduler("crux"))
    crux.GetCompression().SetAttribute("TopoOrderSamples", ns.UintegerValue(0))
    samples = ns.UintegerValue()
    crux.GetCompression().GetAttribute("TopoOrderSamples", samples)
    assert samples.Get() == 0

    class FirstCandidatePaths(ns.CruxPathSelection):
        """Every flow on its candidate 0 (here: job 1 stays on link 0 with job 0)."""

        def SelectPaths(self, model, config, decision):
            for job in model.jobs:
                for flow in job.flows:
                    decision.jobs[job.id].flowPath[flow.id] = 0
            ns.UpdateIntensities(model, decision)

    stage = FirstCandidatePaths()
    stage.__python_owns__ = False  # held by the scheduler's Ptr (and by this test)
    crux.SetPathSelection(ns.Ptr[ns.CruxPathSelection](stage))
    d = crux.Schedule(model, config)
    assert d.PathOf(0, 0) == 0 and d.PathOf(1, 0) == 0
    # The other stages still run: P = k I on the shared link, max K-cut levels (n <= K).
    assert list(d.PriorityOrder()) == [0, 1]
    assert d.LevelOf(0) == config.numLevels - 1 and d.LevelOf(1) == config.numLevels - 2
    assert d.jobs[1].commTime == pytest.approx(1e9 * 8 / 100e9, rel=REL)
