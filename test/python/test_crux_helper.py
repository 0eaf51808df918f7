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
"""The one pipeline from Python (cppyy): cluster description -> packet fabric -> jobs ->
scheduler decision -> CruxHelper (the one decision installer) -> DltJobApplications -> run.

Two jobs share the ToR-aggregation links of a small Clos (4 hosts per ToR, 2 aggregation
switches, 20 Gbit/s uplinks). After CruxHelper installs Crux's decision, every flow takes the
path the decision names (checked with the fabric's own prediction of the port the job's
messages carry), the DSCP of each job is 8 x its level, and the run completes both jobs with no
drop. A decision with a bad path index raises a Python exception naming job and flow and
changes nothing.

Needs cppyy==2.4.2 (see test_bindings.py); skipped with CRUX_PYTHON_BINDINGS_UNAVAILABLE
without it.
"""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bindings", "python"))

try:
    import cppyy  # noqa: F401
except ImportError as e:
    pytest.skip("CRUX_PYTHON_BINDINGS_UNAVAILABLE: cannot import cppyy (%s)" % e,
                allow_module_level=True)

import crux  # noqa: E402


@pytest.fixture(scope="module")
def ns():
    try:
        return crux.load()
    except crux.BindingsUnavailable as e:
        pytest.fail(str(e))


def build(ns):
    """Fabric, two jobs across the ToRs and their scheduler view."""
    cfg = ns.TestbedClosConfig()
    cfg.tors, cfg.aggs, cfg.hostsPerTor, cfg.nicsPerHost = 2, 2, 4, 1
    cfg.hostLinkBps, cfg.torAggBps = 100e9, 20e9
    helper = ns.CruxTopologyHelper()
    topo = helper.Install(ns.BuildTwoLayerClos(cfg))
    jobs = cppyy.gbl.std.vector[ns.DltJob]()
    for job_id, (model, hosts, per) in enumerate([("gpt", (0, 1, 4, 5), 8),
                                                   ("bert-large", (2, 3, 6, 7), 4)]):
        gpus = cppyy.gbl.std.vector[ns.GpuId]()
        for h in hosts:
            for g in range(per):
                gid = ns.GpuId()
                gid.host, gid.localGpu = h, g
                gpus.push_back(gid)
        job = ns.DltJob.FromModel(job_id, model, gpus)
        job.gradientBytes = 8000000
        job.computeTime = 0.01
        job.iterations = 2
        jobs.push_back(job)
    model = ns.MakeClusterModel(topo, jobs)
    return topo, jobs, model


def test_install_and_run(ns):
    topo, jobs, model = build(ns)
    decision = ns.CreateCommScheduler("crux").Schedule(model, ns.SchedulerConfig())
    steering = ns.CruxTopologySteering(topo)
    report = ns.CruxHelper().Install(model, decision, jobs, steering)
    assert report.size() == 2
    moved = 0
    for j in range(jobs.size()):
        job = jobs[j]
        level = decision.LevelOf(job.id)
        assert job.dscp == 8 * level == ns.CruxHelper.DscpOfLevel(level)
        for f in job.CommunicationPattern():
            key = ns.RdmaQpKey()
            key.jobId, key.flowId, key.src, key.dst = job.id, f.flowId, f.src, f.dst
            want = model.jobs[j].flows[f.flowId].candidatePaths[decision.PathOf(job.id, f.flowId)]
            got = steering.PathOf(key, job.UdpSrcPortOf(f.flowId))
            assert list(got) == list(want)
            moved += job.UdpSrcPortOf(f.flowId) != 0
    assert moved == sum(report[i].rerouted for i in range(2))
    transport = ns.RdmaTransportHelper().Install(topo)
    apps = [ns.DltJobHelper().Install(jobs[j], transport, topo.GetHost(0).node)
            for j in range(jobs.size())]
    ns.Simulator.Run()
    assert all(app.IsComplete() for app in apps)
    assert all(app.GetCompletedIterations() == 2 for app in apps)
    ns.Simulator.Destroy()


def test_bad_decision_changes_nothing(ns):
    topo, jobs, model = build(ns)
    decision = ns.CreateCommScheduler("ecmp").Schedule(model, ns.SchedulerConfig())
    decision.jobs[1].flowPath[0] = 99
    with pytest.raises(Exception, match="job 1 flow 0: path index 99"):
        ns.CruxHelper().Install(model, decision, jobs, ns.CruxTopologySteering(topo))
    assert all(jobs[j].dscp == 0 and jobs[j].udpSrcPorts.size() == 0 for j in range(2))
    ns.Simulator.Destroy()
