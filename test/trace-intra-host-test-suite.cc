/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

// Intra-host links in the trace runs (issue 12 item 2): the epoch engine's model
// (MakeClusterSchedJob + FlowEvaluator on a topology with AddIntraHostLinks) and the flow engine
// (LiveClusterFabric) carry every flow over the PCIe switches and single-host jobs over NVLink.
// Expected values are closed forms of the link rates (IntraHostConfig; PCIe set to 100 Gbit/s
// where it must bind clearly below the NIC) or the other engine.

#include "crux-test-util.h"

#include "ns3/cluster-model.h"
#include "ns3/cluster-run.h"
#include "ns3/cluster-topology.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-evaluator.h"
#include "ns3/live-cluster-fabric.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Two testbed hosts on one ToR (TestbedHostsOnOneTor).
ClusterTopology
TwoHosts(bool intra, const IntraHostConfig& ih = IntraHostConfig())
{
    return TestbedHostsOnOneTor(2, intra, ih);
}

/// A 2-GPU ring job on GPU \p gpu of hosts 0 and 1: compute 0.5 ms, 24 MB of gradients, one
/// bucket, all-reduce after the computation (no overlap), so an iteration is c + S / rate.
DltJob
RingJob(uint32_t id, uint32_t gpu)
{
    DltJob j;
    j.id = id;
    j.modelName = "hand";
    j.gpus = {GpuId{0, gpu}, GpuId{1, gpu}};
    j.computeTime = 0.5e-3;
    j.flopsPerIteration = 1e12;
    j.gradientBytes = 24000000;
    j.overlapStart = 1.0;
    j.numBuckets = 1;
    j.iterations = 0;
    return j;
}

/// The epoch engine's rates: FlowEvaluator on the jobs' MakeClusterSchedJob models, ECMP
/// default paths, the given classes. \return iterations/s per job
std::vector<double>
EpochRates(const ClusterTopology& topo,
           const std::vector<DltJob>& jobs,
           const std::vector<int64_t>& prio)
{
    ClusterModel m;
    m.links = topo.links;
    EvaluationInput in;
    for (const DltJob& j : jobs)
    {
        m.jobs.push_back(MakeClusterSchedJob(j, topo, 1, 64));
        in.paths.push_back(DefaultPathChoice(m.jobs.back()));
    }
    in.priority = prio;
    FlowEvaluatorOptions o;
    o.horizonIterations = 40;
    const FlowEvaluation r = FlowEvaluator(m, o).Evaluate(in);
    std::vector<double> rates;
    for (const auto& e : r.jobs)
    {
        rates.push_back(e.iterationRate);
    }
    return rates;
}

/// The flow engine's rates: the jobs on a LiveClusterFabric for 0.5 s (DSCP = 56 for
/// \p highJob if it is a job index, else 0). \return iterations/s per job (counted iterations
/// over the time)
std::vector<double>
FlowRates(const ClusterTopology& topo, std::vector<DltJob> jobs, int highJob)
{
    Ptr<LiveClusterFabric> fabric = CreateObject<LiveClusterFabric>();
    fabric->Setup(topo);
    for (size_t k = 0; k < jobs.size(); ++k)
    {
        jobs[k].dscp = static_cast<int>(k) == highJob ? 56 : 0;
        fabric->StartJob(jobs[k], Callback<void, uint32_t>());
    }
    const double T = 0.5;
    Simulator::Stop(Seconds(T));
    Simulator::Run();
    std::vector<double> rates;
    for (const DltJob& j : jobs)
    {
        rates.push_back(static_cast<double>(fabric->CompletedIterations(j.id)) / T);
    }
    fabric->Dispose();
    Simulator::Destroy();
    return rates;
}

} // namespace

/**
 * \ingroup crux-tests
 * \brief Two jobs on GPUs 0 and 1 of the same two hosts share PCIe switch 0's uplink (100 Gbit/s
 * here, below the 200 Gbit/s NIC): each gets half its rate when both send (epoch engine: closed
 * form; flow engine within 5 %); the higher class takes the PCIe link first.
 */
class TracePcieSharingTestCase : public TestCase
{
  public:
    TracePcieSharingTestCase()
        : TestCase("two jobs behind one PCIe switch: half its rate each (closed form), flow engine "
                   "within 5 %, the higher level takes the PCIe link")
    {
    }

  private:
    void DoRun() override
    {
        // PCIe at 100 Gbit/s (half the NIC) so that its share (50) is far from the NIC's (100)
        IntraHostConfig ih;
        ih.pcieBps = 100e9;
        const ClusterTopology topo = TwoHosts(true, ih);
        const std::vector<DltJob> jobs = {RingJob(0, 0), RingJob(1, 1)};
        // every flow crosses GPU -> PCIe switch -> NIC: the PCIe uplink binds, not the NIC
        const SchedJob sj = MakeClusterSchedJob(jobs[0], topo, 1, 64);
        NS_TEST_ASSERT_MSG_EQ(sj.flows.size(), 2, "a 2-GPU ring: two flows");
        const double bytes = sj.flows[0].bytesPerIteration;
        NS_TEST_ASSERT_MSG_EQ_TOL(bytes, 24e6, 1, "2 (N-1) / N x S per flow");
        const auto& path = sj.flows[0].candidatePaths.at(0);
        NS_TEST_ASSERT_MSG_EQ(path.front(), topo.gpuPcie[0][0], "starts on GPU 0's PCIe link");
        NS_TEST_ASSERT_MSG_EQ(path.at(1), topo.pcieNic[0][0], "then PCIe switch 0 -> NIC 0");
        const double c = 0.5e-3; // shorter than the transfer: the two jobs cannot interleave
        const double alone = c + bytes * 8 / 100e9;
        const double shared = c + bytes * 8 / 50e9;
        // the epoch engine: alone, both at one level, A above B
        const double a1 = EpochRates(topo, {jobs[0]}, {0}).at(0);
        NS_TEST_EXPECT_MSG_EQ_TOL(1 / a1, alone, 1e-3 * alone, "epoch alone: c + S / PCIe rate");
        const auto both = EpochRates(topo, jobs, {0, 0});
        for (int k = 0; k < 2; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(1 / both[k],
                                      shared,
                                      1e-3 * shared,
                                      "epoch job " << k << ": c + S / half the PCIe rate");
        }
        const auto prio = EpochRates(topo, jobs, {1, 0});
        NS_TEST_EXPECT_MSG_EQ_TOL(1 / prio[0], alone, 1e-3 * alone, "epoch: high level as alone");
        NS_TEST_ASSERT_MSG_LT(prio[1], prio[0], "epoch: the low level is slower");
        // without intra-host links the NIC (200 Gbit/s) is the shared link
        const auto nic = EpochRates(TwoHosts(false), jobs, {0, 0});
        NS_TEST_EXPECT_MSG_EQ_TOL(1 / nic[0],
                                  c + bytes * 8 / 100e9,
                                  1e-3 * (c + bytes * 8 / 100e9),
                                  "epoch without intra-host links: half the NIC");

        // the flow engine (LiveClusterFabric) agrees within 5 %
        const auto fBoth = FlowRates(topo, jobs, -1);
        for (int k = 0; k < 2; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(fBoth[k] / both[k],
                                      1.0,
                                      0.05,
                                      "flow vs epoch, job " << k << ": " << fBoth[k] << " vs "
                                                            << both[k] << " it/s");
        }
        const auto fPrio = FlowRates(topo, jobs, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(fPrio[0] / prio[0], 1.0, 0.05, "flow vs epoch, high level");
        NS_TEST_ASSERT_MSG_LT(fPrio[1], 0.9 * fPrio[0], "flow: the low level is slower");
    }
};

/**
 * \ingroup crux-tests
 * \brief A single-host job all-reduces over NVLink in the trace engines: t_j finite and set by
 * NVLink (closed form; halves with twice the NVLink rate); the flow engine runs its iteration
 * at the epoch engine's rate within 5 %.
 */
class TraceSingleHostTestCase : public TestCase
{
  public:
    TraceSingleHostTestCase()
        : TestCase(
              "single-host job: t_j = 2 (N-1) S over N at the NVLink rate, flow engine within 5 %")
    {
    }

  private:
    void DoRun() override
    {
        DltJob j = RingJob(0, 0);
        j.gpus.clear();
        for (uint32_t g = 0; g < 8; ++g)
        {
            j.gpus.push_back(GpuId{0, g});
        }
        j.gradientBytes = 80000000;
        j.intraHostAllReduce = true; // as the trace engines set it with intra-host links
        const double perGpu = 2.0 * 7 / 8 * 80e6;
        for (double nv : {2400e9, 4800e9})
        {
            IntraHostConfig ih;
            ih.nvlinkBps = nv;
            const ClusterTopology topo = TwoHosts(true, ih);
            ClusterModel m;
            m.links = topo.links;
            m.jobs.push_back(MakeClusterSchedJob(j, topo, 1, 64));
            const double tj = JobCommTime(m, m.jobs[0], DefaultPathChoice(m.jobs[0]));
            NS_TEST_EXPECT_MSG_EQ_TOL(tj,
                                      perGpu * 8 / nv,
                                      1e-9,
                                      "t_j on the NVLink links at " << nv << " bit/s");
        }
        // without intra-host links it has no modelled traffic: t_j = 0
        {
            const ClusterTopology topo = TwoHosts(false);
            ClusterModel m;
            m.links = topo.links;
            m.jobs.push_back(MakeClusterSchedJob(j, topo, 1, 64));
            NS_TEST_EXPECT_MSG_EQ(m.jobs[0].flows.size(), 0, "no flows without intra-host links");
        }
        const ClusterTopology topo = TwoHosts(true);
        const double e = EpochRates(topo, {j}, {0}).at(0);
        NS_TEST_EXPECT_MSG_EQ_TOL(1 / e,
                                  0.5e-3 + perGpu * 8 / 2400e9,
                                  2e-6,
                                  "epoch: c + t_j (no overlap)");
        const double f = FlowRates(topo, {j}, -1).at(0);
        NS_TEST_EXPECT_MSG_EQ_TOL(f / e, 1.0, 0.05, "flow engine vs epoch: " << f << " vs " << e);
    }
};

/**
 * \ingroup crux-tests
 * \brief ClusterRun with intraHost: a hand-built trace with two jobs behind one PCIe switch
 * agrees between the engines; 6 h of a generated trace finish, every job's stand-alone
 * iteration is at least as long as without the links (some longer: PCIe below the NIC rate,
 * NVLink all-reduce of single-host jobs), and summary.json records the links.
 */
class TraceRunIntraHostTestCase : public TestCase
{
  public:
    TraceRunIntraHostTestCase()
        : TestCase("ClusterRun --intraHost: engines agree on a PCIe-sharing trace; a generated "
                   "trace is slower alone and finishes")
    {
    }

  private:
    void DoRun() override
    {
        ClusterRunConfig c;
        c.topology = "clos";
        c.clos.tors = 1;
        c.clos.aggs = 1;
        c.clos.hostsPerTor = 2;
        c.placement = "trace";
        c.windowEnd = 1000;
        c.intraHost.enabled = true;
        TraceJob a;
        a.name = "A";
        a.modelLabel = "gpt";
        a.submit = 0;
        a.start = 0;
        a.end = 60;
        a.gpus = 2;
        a.hosts = {0, 1};
        a.gpusPerHost = {1, 1};
        TraceJob b = a;
        b.name = "B";
        b.submit = 10;
        b.start = 10;
        b.end = 50;
        c.jobs = {a, b};
        double ecmpA = 0;
        for (const std::string sched : {"ecmp", "crux"})
        {
            c.engine = "epoch";
            const ClusterRunResult e = ClusterRun(c).Run(sched);
            c.engine = "flow";
            const ClusterRunResult f = ClusterRun(c).Run(sched);
            NS_TEST_ASSERT_MSG_EQ(e.jobsFinished, 2, sched << ": both finish (epoch)");
            NS_TEST_ASSERT_MSG_EQ(f.jobsFinished, 2, sched << ": both finish (flow)");
            for (uint32_t k = 0; k < 2; ++k)
            {
                const double je = e.jobs[k].end - e.jobs[k].start;
                const double jf = f.jobs[k].end - f.jobs[k].start;
                NS_TEST_EXPECT_MSG_EQ_TOL(jf / je,
                                          1.0,
                                          0.05,
                                          sched << " job " << k << ": flow " << jf << " s vs epoch "
                                                << je << " s");
            }
            // the two jobs share PCIe switch 0 of both hosts: under ECMP (one level) B's arrival
            // slows A; Crux ranks them and gives the PCIe link to one: A as fast as alone
            if (sched == "ecmp")
            {
                ecmpA = e.jobs[0].end - e.jobs[0].start;
                NS_TEST_ASSERT_MSG_GT(ecmpA, (a.end - a.start) * (1 + 1e-3), "ECMP: A slowed");
            }
            else
            {
                NS_TEST_ASSERT_MSG_LT(e.jobs[0].end - e.jobs[0].start,
                                      ecmpA * (1 - 1e-3),
                                      "Crux: A faster than under ECMP");
            }
        }

        // 6 h of a generated trace on 256 GPUs, random placement, ECMP, with and without
        ClusterRunConfig g;
        g.topology = "clos";
        g.clos.tors = 8;
        g.clos.aggs = 2;
        g.clos.hostsPerTor = 4;
        g.traceDays = 1;
        g.windowEnd = 6 * 3600.0;
        g.drainSeconds = 12 * 3600.0;
        g.placement = "random";
        g.schedulers = {"ecmp"};
        // The exact evaluation: intra-host links only add constraints, so no job can be faster
        // with them. The coarse evaluator (the default) approximates fast jobs' timing and
        // gave a mean JCT 0.007 % shorter with the links here (3262.85 s against 3263.09 s).
        g.evaluator = "exact";
        const ClusterRunResult off = ClusterRun(g).Run("ecmp");
        g.intraHost.enabled = true;
        ClusterRun onRun(g);
        NS_TEST_ASSERT_MSG_EQ(onRun.GetTopology().HasIntraHostLinks(), true, "links added");
        const ClusterRunResult on = onRun.Run("ecmp");
        NS_TEST_ASSERT_MSG_EQ(on.jobs.size(), off.jobs.size(), "same window jobs");
        NS_TEST_ASSERT_MSG_EQ(on.jobsFinished, off.jobsFinished, "the same jobs finish");
        uint32_t slower = 0;
        uint32_t singleHostTj = 0;
        for (size_t k = 0; k < on.jobs.size(); ++k)
        {
            const ClusterJobResult& x = off.jobs[k];
            const ClusterJobResult& y = on.jobs[k];
            if (x.unplaceable || x.start < 0)
            {
                continue;
            }
            NS_TEST_EXPECT_MSG_GT_OR_EQ(y.aloneIter,
                                        x.aloneIter * (1 - 1e-9),
                                        "job " << k << " (" << x.model
                                               << "): alone iteration not shorter");
            slower += y.aloneIter > x.aloneIter * (1 + 1e-6) ? 1 : 0;
            if (x.hosts == 1 && x.gpus > 1)
            {
                NS_TEST_EXPECT_MSG_EQ(std::isfinite(x.intensity) && x.intensity > 0,
                                      false,
                                      "single-host job " << k << ": t_j = 0 without the links");
                singleHostTj += std::isfinite(y.intensity) && y.intensity > 0 ? 1 : 0;
            }
        }
        NS_TEST_ASSERT_MSG_GT(slower, 0, "some jobs are slower alone with intra-host links");
        NS_TEST_ASSERT_MSG_GT(singleHostTj, 0, "single-host jobs get a finite t_j (NVLink)");
        NS_TEST_ASSERT_MSG_LT(on.meanUtilAloneDefault,
                              off.meanUtilAloneDefault * (1 + 1e-3),
                              "alone@ECMP not higher with intra-host links");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(on.meanJct, off.meanJct * (1 - 1e-6), "mean JCT not shorter");
    }
};

/**
 * \ingroup crux-tests
 * \brief Intra-host links in the trace-driven cluster runs (issue 12 item 2).
 */
class TraceIntraHostTestSuite : public TestSuite
{
  public:
    TraceIntraHostTestSuite()
        : TestSuite("crux-trace-intra-host", UNIT)
    {
        AddTestCase(new TracePcieSharingTestCase, TestCase::QUICK);
        AddTestCase(new TraceSingleHostTestCase, TestCase::QUICK);
        AddTestCase(new TraceRunIntraHostTestCase, TestCase::QUICK);
    }
};

static TraceIntraHostTestSuite g_traceIntraHostTestSuite; //!< registers the suite
