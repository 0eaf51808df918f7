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

// Suite "crux-evaluator-crosscheck": the pure FlowEvaluator (model/scheduling/flow-evaluator.h,
// the fabric the `optimal` scheduler and the §4.4 microbenchmark judge decisions on) against the
// ns-3 FlowTransport running real DltJobApplications (ring all-reduce, one bucket).
//
// Cluster: a Clos with 2 ToRs x 3 hosts (1 GPU, 1 NIC each) and one aggregation switch, so
// every host pair (h, h + 3) has exactly one path and all ring flows of the jobs cross the same
// ToR0 -> agg -> ToR1 links (and the reverse ones). Each job is a 2-host ring (the two flows
// of a job see the same contention, so the ring's step dependencies do not add waiting). The
// ClusterModel is built from the topology and the jobs' CommunicationPattern() exactly as
// CruxExperiment builds it (links in topology order, equal-cost candidates, the ECMP default
// path of the flow's connection), and the evaluator gets the same horizon H and the same
// steady-rate statistic (completions after 0.25 H) as is computed from the ns-3 run.
//
// Two fabric settings:
//  - exact: FlowTransport with PacketPayload = 0 (pure fluid, W(B) = B) and zero link delays.
//    The two models then describe the same system (strict priority, max-min inside a class,
//    recomputation on flow-set changes); the only difference is that ns-3 rounds every transfer
//    end up to the next nanosecond and the ring sends each iteration as 2(N-1) = 2 messages per
//    connection (at most ~2 ns per step). Tolerance 1e-4 relative (~0.4 us per ~5 ms
//    iteration, two orders of magnitude above the rounding, far below any modelling effect).
//  - default: FlowTransport's defaults (4096-byte packets with 62 + 20 bytes of framing each,
//    store-and-forward pipeline latency) and 1 us link delays. Against the evaluator on payload
//    bytes this shows the systematic gap (framing ~2 % of the transfer time plus alpha per ring
//    step); the evaluator with the framed wire bytes W(B) and the per-iteration alpha latency
//    2(N-1) alpha folded into the computation time must agree within 0.5 % (folding alpha
//    into the computation is exact for a job alone; under contention the other jobs' rates
//    differ while a job waits out alpha between its two ring steps, not at the iteration end).
//  Measured when this was written: exact max |gap| 7e-9; default 0.5-3.0 % (payload-only
//  evaluator faster), 0.07 % with framing and alpha.

#include "crux-test-util.h"

#include "ns3/crux-helper.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-evaluator.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// One job of a cross-check case.
struct CrossJob
{
    uint32_t srcHost{0};   //!< first host of the 2-host ring (ToR 0)
    double computeTime{0}; //!< c_j, seconds
    uint64_t gradient{0};  //!< gradient bytes all-reduced per iteration
    uint32_t level{0};     //!< priority level (DSCP 8 x level -> TC level)
};

/// Steady iterations per second from iteration end times, the statistic of
/// JobEvaluation::iterationRate: completions t_a..t_b in [warm, horizon] give
/// (count - 1) / (t_b - t_a); 0 if fewer than two.
double
SteadyRate(const std::vector<double>& ends, double warm, double horizon)
{
    std::vector<double> in;
    for (double e : ends)
    {
        if (e >= warm && e <= horizon * (1 + 1e-9))
        {
            in.push_back(e);
        }
    }
    if (in.size() < 2)
    {
        return 0;
    }
    return static_cast<double>(in.size() - 1) / (in.back() - in.front());
}

/// Wire bytes FlowTransport charges for a message of \p bytes payload bytes with packets of
/// \p payload bytes (its documented W(B); payload 0 = pure fluid).
double
WireBytes(uint64_t bytes, uint32_t payload)
{
    if (payload == 0)
    {
        return static_cast<double>(bytes);
    }
    double wire = 0;
    for (uint64_t left = bytes; left > 0;)
    {
        const uint64_t p = std::min<uint64_t>(left, payload);
        wire += static_cast<double>(std::max<uint64_t>(p + 62, 64) + 20);
        left -= p;
    }
    return wire;
}

/// Per-job steady iteration times (seconds) of one case on both models.
struct CrossResult
{
    std::vector<double> ns3;       //!< FlowTransport + DltJobApplication
    std::vector<double> evaluator; //!< FlowEvaluator on payload bytes
    std::vector<double> corrected; //!< FlowEvaluator on wire bytes, alpha folded into c_j
};

/**
 * Run one case on both models.
 * \param jobs the jobs \param payload FlowTransport PacketPayload (0 = fluid)
 * \param delay link delay \param horizon H, seconds
 * \return steady iteration times
 */
CrossResult
RunCase(const std::vector<CrossJob>& jobs, uint32_t payload, Time delay, double horizon)
{
    const double warmFraction = 0.25;
    ClosConfig cfg = SmallClosConfig();
    cfg.tors = 2;
    cfg.hostsPerTor = 3;
    cfg.aggs = 1;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = 1;
    cfg.delay = delay.GetSeconds();
    CruxTopologyHelper th;
    Ptr<CruxTopology> topo = th.BuildClos(cfg);
    FlowTransportHelper fh;
    fh.SetTransportAttribute("PacketPayload", UintegerValue(payload));
    Ptr<FlowTransport> flow = fh.Install(topo);

    // the jobs and the ClusterModel, as CruxExperiment builds them
    ClusterModel cm;
    ClusterModel framed;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        SchedLink sl;
        sl.bandwidth = static_cast<double>(topo->GetLink(l).rate.GetBitRate());
        sl.name = "l" + std::to_string(l);
        cm.links.push_back(sl);
    }
    framed.links = cm.links;
    EvaluationInput input;
    std::vector<DltJob> dlt;
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        DltJob job;
        job.id = j;
        job.modelName = "synthetic";
        job.gpus = {GpuId{jobs[j].srcHost, 0}, GpuId{jobs[j].srcHost + cfg.hostsPerTor, 0}};
        job.computeTime = jobs[j].computeTime;
        job.flopsPerIteration = 1e12;
        job.gradientBytes = jobs[j].gradient;
        job.overlapStart = 0.5;
        job.numBuckets = 1;
        job.iterations = 0; // until Simulator::Stop
        job.dscp = static_cast<uint8_t>(8 * jobs[j].level);
        dlt.push_back(job);

        SchedJob sj;
        sj.id = j;
        sj.flopsPerIteration = job.flopsPerIteration;
        sj.computeTime = job.computeTime;
        sj.overlapStart = job.overlapStart + (1.0 - job.overlapStart) / job.numBuckets;
        sj.numGpus = job.NumGpus();
        SchedJob fj = sj;
        PathChoice choice;
        double alpha = 0; // per ring step, the slowest connection's
        const uint32_t n = job.DataParallel();
        for (const DltCommFlow& f : job.CommunicationPattern())
        {
            RdmaQpKey key;
            key.jobId = j;
            key.flowId = f.flowId;
            key.src = f.src;
            key.dst = f.dst;
            const uint32_t sn = topo->GpuToNic(f.src.host, f.src.localGpu);
            const uint32_t dn = topo->GpuToNic(f.dst.host, f.dst.localGpu);
            const std::vector<CruxPath> cands =
                topo->GetEqualCostPaths(f.src.host, sn, f.dst.host, dn);
            const CruxPath ecmp = CruxTopologySteering(topo).PathOf(key, 0);
            SchedFlow sf;
            sf.id = f.flowId;
            sf.bytesPerIteration = f.bytesPerIteration;
            sf.candidatePaths.assign(cands.begin(), cands.end());
            sf.defaultPath =
                static_cast<uint32_t>(std::find(cands.begin(), cands.end(), ecmp) - cands.begin());
            choice.push_back(sf.defaultPath);
            sj.flows.push_back(sf);
            // framed: each of the 2(N-1) messages of a connection is a chunk of RailBytes / N
            const uint64_t chunk = job.RailBytes(f.rail) / n;
            sf.bytesPerIteration = 2.0 * (n - 1) * WireBytes(chunk, payload);
            fj.flows.push_back(sf);
            // alpha of a message on this path: link delays + store-and-forward pipeline
            double a = 0;
            double maxSer = 0;
            double sumSer = 0;
            const double w =
                payload > 0 ? WireBytes(std::min<uint64_t>(chunk, payload), payload) : 0.0;
            for (uint32_t l : ecmp)
            {
                a += topo->GetLink(l).delay.GetSeconds();
                const double ser = w * 8 / static_cast<double>(topo->GetLink(l).rate.GetBitRate());
                sumSer += ser;
                maxSer = std::max(maxSer, ser);
            }
            alpha = std::max(alpha, a + sumSer - maxSer);
        }
        // The communication of an iteration is 2(N-1) dependent steps, each delivered alpha
        // after its transfer ends; the job's flows are idle meanwhile, as during computation.
        fj.computeTime = sj.computeTime + 2.0 * (n - 1) * alpha;
        cm.jobs.push_back(sj);
        framed.jobs.push_back(fj);
        input.paths.push_back(choice);
        input.priority.push_back(jobs[j].level);
    }

    // ns-3: one DltJobApplication per job on the FlowTransport
    std::vector<Ptr<DltJobApplication>> apps;
    for (const DltJob& job : dlt)
    {
        Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
        app->SetJob(job);
        app->SetTransport(flow);
        topo->GetHost(job.Hosts().front()).node->AddApplication(app);
        apps.push_back(app);
    }
    Simulator::Stop(Seconds(horizon));
    Simulator::Run();
    CrossResult r;
    for (const auto& app : apps)
    {
        std::vector<double> ends;
        const auto& st = app->GetIterationStarts();
        const auto& du = app->GetIterationTimes();
        for (size_t i = 0; i < st.size(); ++i)
        {
            ends.push_back(st[i] + du[i]);
        }
        const double rate = SteadyRate(ends, warmFraction * horizon, horizon);
        r.ns3.push_back(rate > 0 ? 1 / rate : 0);
    }
    Simulator::Destroy();

    FlowEvaluatorOptions opt;
    opt.horizon = horizon;
    opt.warmupFraction = warmFraction;
    for (const auto* model : {&cm, &framed})
    {
        const FlowEvaluation ev = FlowEvaluator(*model, opt).Evaluate(input);
        for (const JobEvaluation& je : ev.jobs)
        {
            (model == &cm ? r.evaluator : r.corrected)
                .push_back(je.iterationRate > 0 ? 1 / je.iterationRate : 0);
        }
    }
    return r;
}

/// One case: the jobs and a label.
struct CrossCase
{
    std::string name;           //!< label
    std::vector<CrossJob> jobs; //!< the jobs
};

/// The cases: three and two jobs on the shared ToR0 <-> agg <-> ToR1 links.
std::vector<CrossCase>
Cases()
{
    // alone: comm = 2 x grad/2 x 8 / 100 Gbit/s = grad x 8e-11 s
    return {
        {"3 jobs, levels 2/1/0",
         {{0, 2e-3, 25000000, 2}, {1, 3e-3, 20000000, 1}, {2, 5e-3, 40000000, 0}}},
        {"3 jobs, equal levels",
         {{0, 2e-3, 25000000, 0}, {1, 3e-3, 20000000, 0}, {2, 5e-3, 40000000, 0}}},
        {"2 jobs, heavy one low", {{0, 1.5e-3, 30000000, 0}, {1, 4e-3, 10000000, 1}}},
        {"3 jobs, two share the top level",
         {{0, 2e-3, 25000000, 1}, {1, 3e-3, 20000000, 1}, {2, 2.5e-3, 30000000, 0}}},
    };
}

/// Exact fluid setting: FlowEvaluator == FlowTransport up to nanosecond rounding.
class ExactCrossCheckTestCase : public TestCase
{
  public:
    ExactCrossCheckTestCase()
        : TestCase("FlowEvaluator == FlowTransport (fluid, zero delay), 2-3 jobs on one link")
    {
    }

  private:
    void DoRun() override
    {
        const double horizon = 0.2;
        for (const CrossCase& c : Cases())
        {
            const CrossResult r = RunCase(c.jobs, 0, Seconds(0), horizon);
            for (size_t j = 0; j < c.jobs.size(); ++j)
            {
                const double gap = (r.evaluator[j] - r.ns3[j]) / r.ns3[j];
                std::cout << "[crux-evaluator-crosscheck] exact, " << c.name << ", job " << j
                          << ": ns-3 " << std::setprecision(7) << r.ns3[j] * 1e3
                          << " ms, evaluator " << r.evaluator[j] * 1e3 << " ms, gap "
                          << std::setprecision(3) << 100 * gap << " %" << std::endl;
                NS_TEST_ASSERT_MSG_GT(r.ns3[j], 0, c.name << ": job " << j << " iterated");
                NS_TEST_ASSERT_MSG_LT(std::abs(gap),
                                      1e-4,
                                      c.name << ": job " << j << " steady iteration time");
            }
        }
    }
};

/// Default FlowTransport (framing, store-and-forward, 1 us links): the systematic gap, and
/// agreement once framing and alpha are given to the evaluator.
class DefaultCrossCheckTestCase : public TestCase
{
  public:
    DefaultCrossCheckTestCase()
        : TestCase("FlowEvaluator vs FlowTransport defaults: framing + alpha gap explained")
    {
    }

  private:
    void DoRun() override
    {
        const double horizon = 0.2;
        for (const CrossCase& c : Cases())
        {
            const CrossResult r = RunCase(c.jobs, 4096, MicroSeconds(1), horizon);
            for (size_t j = 0; j < c.jobs.size(); ++j)
            {
                const double gap = (r.evaluator[j] - r.ns3[j]) / r.ns3[j];
                const double gapCorr = (r.corrected[j] - r.ns3[j]) / r.ns3[j];
                std::cout << "[crux-evaluator-crosscheck] default, " << c.name << ", job " << j
                          << ": ns-3 " << std::setprecision(7) << r.ns3[j] * 1e3
                          << " ms, evaluator " << r.evaluator[j] * 1e3 << " ms (gap "
                          << std::setprecision(3) << 100 * gap << " %), with framing+alpha "
                          << std::setprecision(7) << r.corrected[j] * 1e3 << " ms (gap "
                          << std::setprecision(3) << 100 * gapCorr << " %)" << std::endl;
                NS_TEST_ASSERT_MSG_LT(gap, 0, c.name << ": payload-only evaluator is faster");
                NS_TEST_ASSERT_MSG_LT(std::abs(gapCorr),
                                      0.005,
                                      c.name << ": job " << j << " with framing and alpha");
            }
        }
    }
};

/// The crux-evaluator-crosscheck test suite.
class FlowEvaluatorCrossCheckTestSuite : public TestSuite
{
  public:
    FlowEvaluatorCrossCheckTestSuite()
        : TestSuite("crux-evaluator-crosscheck", UNIT)
    {
        AddTestCase(new ExactCrossCheckTestCase, TestCase::QUICK);
        AddTestCase(new DefaultCrossCheckTestCase, TestCase::QUICK);
    }
};

/// Registers the suite.
static FlowEvaluatorCrossCheckTestSuite g_flowEvaluatorCrossCheckTestSuite;

} // namespace
