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

// Unit tests of the trace runs' event engine (EpochEngine) and its exact epoch evaluation
// (ExactEpochRateModel), constructed directly on a tiny cluster with hand-made jobs whose
// iteration times have closed forms: compute c, then one flow of b bytes over one link of rate
// B (t = 8 b / B alone). A job alone iterates in c + t; two jobs of the same class sharing the
// link from a common start communicate together at B / 2 each (c + 2 t); under strict priority
// with c = t they interleave and both keep c + t. The engine's arrival, placement, completion
// times, work, utilization rows and link bytes follow from these rates.

#include "crux-test-util.h"

#include "ns3/crux-compat.h"
#include "ns3/epoch-engine.h"
#include "ns3/epoch-rate-model.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Compute and stand-alone communication time of a hand-made job, seconds.
struct JobSpec
{
    double compute{1}; //!< c, seconds
    double comm{1};    //!< t alone on the link, seconds (0: no flow)
};

/// 2 ToRs x 2 hosts x 1 GPU, one aggregation switch, 100 Gbit/s everywhere: 4 GPUs.
ClusterTopology
TinyCluster()
{
    ClosConfig c;
    c.tors = 2;
    c.aggs = 1;
    c.hostsPerTor = 2;
    c.gpusPerHost = 1;
    c.nicsPerHost = 1;
    c.hostLinkBps = 100e9;
    c.torAggBps = 100e9;
    return BuildTwoLayerClos(c);
}

/// The link every hand-made flow crosses.
const uint32_t kLink = 0;

/// W_j of every hand-made job, FLOPs per iteration.
const double kFlops = 1e15;

/**
 * A builder of hand-made jobs: job id i gets specs[i] (compute c, one flow of t × B / 8 bytes on
 * kLink, communication after the whole computation), on the GPUs it was given.
 */
EpochEngine::JobBuilder
HandMadeJobs(const ClusterTopology& topo, std::map<uint32_t, JobSpec> specs)
{
    const double bandwidth = topo.links.at(kLink).bandwidth;
    return [bandwidth, specs](uint32_t id, const std::string&, const std::vector<GpuId>& gpus) {
        const JobSpec& s = specs.at(id);
        EpochPlacedJob p;
        p.sched.id = id;
        p.sched.flopsPerIteration = kFlops;
        p.sched.computeTime = s.compute;
        p.sched.overlapStart = 1;
        p.sched.numGpus = static_cast<uint32_t>(gpus.size());
        if (s.comm > 0)
        {
            SchedFlow f;
            f.id = 0;
            f.bytesPerIteration = s.comm * bandwidth / 8;
            f.candidatePaths = {{kLink}};
            f.defaultPath = 0;
            p.sched.flows.push_back(f);
        }
        return p;
    };
}

/// A trace job of \p gpus GPUs arriving at \p arrival for \p duration seconds (trace clock).
TraceJob
Job(const std::string& name, uint32_t gpus, double arrival, double duration)
{
    TraceJob j;
    j.name = name;
    j.modelLabel = "resnet50"; // a zoo key: used as is (the builder ignores it)
    j.gpus = gpus;
    j.submit = arrival;
    j.start = arrival;
    j.end = arrival + duration;
    return j;
}

/// The trace runner's evaluator options (horizon 4 stand-alone iterations).
FlowEvaluatorOptions
RunnerOptions()
{
    FlowEvaluatorOptions o;
    o.horizonIterations = 4;
    o.steadyHorizonLimit = 16;
    o.warmupFraction = 0.25;
    return o;
}

/// Construct, Start(), Simulator::Run(), Finish() over the window [0, windowEnd].
ClusterRunResult
RunEngine(const EpochEngineConfig& config,
          const ClusterTopology& topo,
          const std::vector<TraceJob>& window,
          double windowEnd,
          const std::string& scheduler,
          const EpochEngine::JobBuilder& builder,
          std::unique_ptr<EpochEngineFabric> fabric = nullptr,
          std::vector<EpochProgress>* progress = nullptr)
{
    EpochEngine engine(config,
                       topo,
                       window,
                       0.0,
                       0.0,
                       windowEnd,
                       scheduler,
                       builder,
                       std::make_unique<ExactEpochRateModel>(topo.links, RunnerOptions()),
                       std::move(fabric));
    if (progress)
    {
        engine.SetProgressHook([progress](const EpochProgress& p) { progress->push_back(p); });
    }
    engine.Start();
    Simulator::Run();
    ClusterRunResult r = engine.Finish();
    Simulator::Destroy();
    return r;
}

/// \return the bytes the run carried on \p link, summed over the bins
double
LinkBytes(const ClusterRunResult& r, uint32_t link)
{
    double sum = 0;
    for (const auto& [key, v] : r.linkBins)
    {
        sum += key.second == link ? v.first : 0.0;
    }
    return sum;
}

/**
 * A live fabric stand-in: every job iterates in a fixed time from its start; it finishes after
 * DltJob::iterations (0: until stopped). Records the calls.
 */
class FakeFabric : public EpochEngineFabric
{
  public:
    /// \param iteration seconds per iteration of every job
    explicit FakeFabric(double iteration)
        : m_iteration(iteration)
    {
    }

    void StartJob(const DltJob& job, Callback<void, uint32_t> onFinish) override
    {
        started[job.id] = job.iterations;
        m_start[job.id] = Simulator::Now().GetSeconds();
        if (job.iterations > 0 && !onFinish.IsNull())
        {
            crux::Schedule(Seconds(job.iterations * m_iteration),
                           [onFinish, id = job.id]() { onFinish(id); });
        }
    }

    void StopJob(uint32_t jobId) override
    {
        m_stopped[jobId] = CompletedIterations(jobId);
    }

    void ApplyDecision(const ClusterModel& model, const Decision&) override
    {
        ++decisions;
        lastRunning = static_cast<uint32_t>(model.jobs.size());
    }

    uint64_t CompletedIterations(uint32_t jobId) const override
    {
        auto s = m_stopped.find(jobId);
        if (s != m_stopped.end())
        {
            return s->second;
        }
        const double n = (Simulator::Now().GetSeconds() - m_start.at(jobId)) / m_iteration;
        const uint64_t whole = static_cast<uint64_t>(std::floor(n + 1e-9));
        const uint32_t cap = started.at(jobId);
        return cap > 0 ? std::min<uint64_t>(whole, cap) : whole;
    }

    std::map<uint32_t, uint32_t> started; //!< job -> iterations it was started with
    uint32_t decisions{0};                //!< ApplyDecision() calls
    uint32_t lastRunning{0};              //!< jobs of the last decision's model

  private:
    double m_iteration;                     //!< seconds per iteration
    std::map<uint32_t, double> m_start;     //!< job -> start time, s
    std::map<uint32_t, uint64_t> m_stopped; //!< job -> iterations when stopped
};

/// \return the utilization row at \p time (NaN if none)
double
UtilAt(const ClusterRunResult& r, double time)
{
    for (const ClusterUtilSample& s : r.util)
    {
        if (std::abs(s.time - time) < 1e-6)
        {
            return s.utilization;
        }
    }
    return std::nan("");
}

const double kTol = 1e-6; //!< seconds, iterations: the closed forms hold to rounding

/**
 * \ingroup crux-tests
 * \brief One job alone: iteration c + t, work = duration / (c + t), completion at arrival +
 * duration, utilization n c / ((c + t) G), link bytes = iterations × b, intensity W / t; a job
 * without a flow iterates in c.
 */
class EpochEngineAloneTestCase : public TestCase
{
  public:
    EpochEngineAloneTestCase()
        : TestCase("one job alone on an idle link: c + t per iteration, completion at its "
                   "duration, utilization and link bytes")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const double bandwidth = topo.links.at(kLink).bandwidth;
        NS_TEST_ASSERT_MSG_EQ(topo.NumGpus(), 4, "tiny cluster of 4 GPUs");
        EpochEngineConfig cfg;
        // c = 1.5 s, t = 0.5 s: 2 s per iteration; 100 s of trace duration = 50 iterations
        const std::vector<TraceJob> window = {Job("a", 2, 0, 100)};
        const ClusterRunResult r =
            RunEngine(cfg, topo, window, 200, "ecmp", HandMadeJobs(topo, {{0, {1.5, 0.5}}}));
        NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), 1, "one job");
        const ClusterJobResult& j = r.jobs[0];
        NS_TEST_EXPECT_MSG_EQ_TOL(j.aloneIter, 2.0, kTol, "alone: c + t");
        NS_TEST_EXPECT_MSG_EQ_TOL(j.work, 50.0, kTol, "work = duration / (c + t)");
        NS_TEST_EXPECT_MSG_EQ_TOL(j.done, 50.0, kTol, "all its work done");
        NS_TEST_EXPECT_MSG_EQ_TOL(j.start, 0.0, kTol, "placed at its arrival");
        NS_TEST_EXPECT_MSG_EQ_TOL(j.end, 100.0, kTol, "alone, it ends after its duration");
        NS_TEST_EXPECT_MSG_EQ_TOL(j.intensity, kFlops / 0.5, 1e-3, "I = W / t");
        NS_TEST_EXPECT_MSG_EQ(j.hosts, 2, "two hosts of one GPU");
        NS_TEST_EXPECT_MSG_EQ(r.jobsFinished, 1, "finished");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanJct, 100.0, kTol, "mean JCT");
        // utilization while running: n c rate / G = 2 x 1.5 x 0.5 / 4
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 0), 0.375, kTol, "utilization row at the arrival");
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 100), 0.0, kTol, "idle after the completion");
        // the window [0, 200]: busy half of it
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanUtilization, 0.375 / 2, kTol, "time-weighted mean");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanUtilAloneDefault, 0.375 / 2, kTol, "alone = real");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanBusyFraction, 0.5 / 2, kTol, "2 of 4 GPUs half the time");
        NS_TEST_EXPECT_MSG_EQ_TOL(LinkBytes(r, kLink) / (0.5 * bandwidth / 8),
                                  50.0,
                                  kTol,
                                  "the link carried b bytes per iteration");
        NS_TEST_EXPECT_MSG_EQ(r.decisions.size(), 1, "one decision (the arrival)");

        // a job without a flow iterates in c
        const ClusterRunResult q = RunEngine(cfg,
                                             topo,
                                             {Job("c", 1, 0, 30)},
                                             60,
                                             "ecmp",
                                             HandMadeJobs(topo, {{0, {3.0, 0.0}}}));
        NS_TEST_EXPECT_MSG_EQ_TOL(q.jobs.at(0).aloneIter, 3.0, kTol, "compute only: c");
        NS_TEST_EXPECT_MSG_EQ_TOL(q.jobs.at(0).end, 30.0, kTol, "ends after its duration");
        NS_TEST_EXPECT_MSG_EQ(LinkBytes(q, kLink), 0.0, "no traffic");
    }
};

/**
 * \ingroup crux-tests
 * \brief Two jobs of one class sharing the link (ECMP: one level): max-min halves, each
 * iteration c + 2 t. A (arrival 0) and B (arrival 10), c = t = 1 s, 100 s of duration each =
 * 50 iterations alone: A does 5 alone, the rest at 1/3 → ends at 10 + 45 × 3 = 145; B does 45
 * by then and its last 5 alone → ends at 155. Work model "duration": both end after 100 s with
 * 5 + 90 / 3 = 35 iterations.
 */
class EpochEngineSharedLinkTestCase : public TestCase
{
  public:
    EpochEngineSharedLinkTestCase()
        : TestCase("two jobs sharing one link: max-min halves (c + 2t), arrival and completion "
                   "times, both work models")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const double bandwidth = topo.links.at(kLink).bandwidth;
        const std::vector<TraceJob> window = {Job("a", 1, 0, 100), Job("b", 1, 10, 100)};
        const auto builder = HandMadeJobs(topo, {{0, {1, 1}}, {1, {1, 1}}});
        EpochEngineConfig cfg;
        const ClusterRunResult r = RunEngine(cfg, topo, window, 200, "ecmp", builder);
        NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), 2, "two jobs");
        for (const ClusterJobResult& j : r.jobs)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(j.aloneIter, 2.0, kTol, j.name << ": alone c + t");
            NS_TEST_EXPECT_MSG_EQ_TOL(j.work, 50.0, kTol, j.name << ": work");
            NS_TEST_EXPECT_MSG_EQ_TOL(j.done, 50.0, kTol, j.name << ": done");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[0].end, 145.0, kTol, "A: 5 alone + 45 at 1/3");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].start, 10.0, kTol, "B placed at its arrival");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].end, 155.0, kTol, "B: 45 at 1/3 + 5 alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanJct, 145.0, kTol, "both JCTs 145 s");
        // rows: A alone 1 x 1 x 1/2 / 4; both 2 x 1 x 1/3 / 4; B alone again
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 0), 0.125, kTol, "A alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 10), 2.0 / 12, kTol, "sharing: 1/3 each");
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 145), 0.125, kTol, "B alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.util.at(1).aloneDefault,
                                  0.25,
                                  kTol,
                                  "row at 10 s: both at alone rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(LinkBytes(r, kLink) / (bandwidth / 8),
                                  100.0,
                                  1e-4,
                                  "b bytes per iteration of either job");
        NS_TEST_EXPECT_MSG_EQ(r.events, 4, "two arrivals, two completions");
        NS_TEST_EXPECT_MSG_EQ(r.decisionsMade, 3, "a decision per event with jobs running");
        NS_TEST_EXPECT_MSG_EQ(r.decisions.size(), 4, "rows: A; A, B; B");

        EpochEngineConfig dur;
        dur.workModel = "duration";
        const ClusterRunResult d = RunEngine(dur, topo, window, 200, "ecmp", builder);
        NS_TEST_EXPECT_MSG_EQ_TOL(d.jobs[0].end, 100.0, kTol, "A ends after its duration");
        NS_TEST_EXPECT_MSG_EQ_TOL(d.jobs[1].end, 110.0, kTol, "B ends after its duration");
        NS_TEST_EXPECT_MSG_EQ_TOL(d.jobs[0].done, 35.0, kTol, "A: 5 + 90 / 3");
        NS_TEST_EXPECT_MSG_EQ_TOL(d.jobs[1].done, 35.0, kTol, "B: 90 / 3 + 5");
    }
};

/**
 * \ingroup crux-tests
 * \brief Events of one instant share one decision (EpochEngine::RequestReschedule()). A arrives
 * at 0, B and C at 10, all c = t = 1 s on one link, 100 s of duration = 50 iterations alone: A
 * does 5 alone, then the three share the link, aligned, in c + 3t = 4 s per iteration, so A
 * ends at 10 + 45 x 4 = 190; B and C have done 45 by then and do their last 5 in c + 2t = 3 s,
 * ending together at 205. Decisions at 0 (A), 10 (A, B, C) and 190 (B, C): 3, of 6 rows; one
 * decision per event would make 5 of 9 (a second at 10 with A, B and at 205 with C).
 */
class EpochEngineSameInstantTestCase : public TestCase
{
  public:
    EpochEngineSameInstantTestCase()
        : TestCase("arrivals and completions of one instant share one decision")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const std::vector<TraceJob> window = {Job("a", 1, 0, 100),
                                              Job("b", 1, 10, 100),
                                              Job("c", 1, 10, 100)};
        const auto builder = HandMadeJobs(topo, {{0, {1, 1}}, {1, {1, 1}}, {2, {1, 1}}});
        EpochEngineConfig cfg;
        const ClusterRunResult r = RunEngine(cfg, topo, window, 300, "ecmp", builder);
        NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), 3, "three jobs");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[0].end, 190.0, kTol, "A: 5 alone + 45 at 1/4");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].end, 205.0, kTol, "B: 45 at 1/4 + 5 at 1/3");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[2].end, 205.0, kTol, "C: as B");
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 10), 3.0 / 16, kTol, "three at 1/4 on 4 GPUs");
        NS_TEST_EXPECT_MSG_EQ(r.events, 6, "three arrivals, three completions");
        NS_TEST_EXPECT_MSG_EQ(r.decisionsMade, 3, "one decision per instant with jobs running");
        NS_TEST_ASSERT_MSG_EQ(r.decisions.size(), 6, "rows: A; A, B, C; B, C");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.decisions[1].time, 10.0, kTol, "the decision at 10 s");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.decisions[3].time, 10.0, kTol, "holds all three jobs");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.decisions[4].time, 190.0, kTol, "then at A's end");
    }
};

/**
 * \ingroup crux-tests
 * \brief Strict priority: Crux gives the two jobs of the shared link different levels; with
 * c = t they interleave (one communicates while the other computes) and both keep their
 * stand-alone rate, so each ends after its duration; crux-pa with unique priorities evaluates
 * them by rank (rankClasses).
 */
class EpochEnginePriorityTestCase : public TestCase
{
  public:
    EpochEnginePriorityTestCase()
        : TestCase("two jobs on one link under strict priority interleave: no slowdown")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const std::vector<TraceJob> window = {Job("a", 1, 0, 100), Job("b", 1, 10, 100)};
        const auto builder = HandMadeJobs(topo, {{0, {1, 1}}, {1, {1, 1}}});
        EpochEngineConfig cfg;
        const ClusterRunResult r = RunEngine(cfg, topo, window, 200, "crux", builder);
        NS_TEST_ASSERT_MSG_EQ(r.decisions.size(), 4, "rows: A; A, B; B");
        NS_TEST_EXPECT_MSG_NE(r.decisions[1].level,
                              r.decisions[2].level,
                              "different levels while they share the link");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[0].end, 100.0, kTol, "A at its alone rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].end, 110.0, kTol, "B at its alone rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 10), 0.25, kTol, "both at 1/2");
        NS_TEST_EXPECT_MSG_EQ(r.rankClasses, false, "crux: levels");

        const ClusterRunResult pa = RunEngine(cfg, topo, window, 200, "crux-pa", builder);
        NS_TEST_EXPECT_MSG_EQ(pa.rankClasses, true, "crux-pa: one class per job");
        EpochEngineConfig levels;
        levels.uniquePriorities = false;
        const ClusterRunResult paLevels = RunEngine(levels, topo, window, 200, "crux-pa", builder);
        NS_TEST_EXPECT_MSG_EQ(paLevels.rankClasses, false, "crux-pa on its K levels");
        NS_TEST_EXPECT_MSG_EQ_TOL(pa.jobs[1].end, 110.0, kTol, "B at its alone rate");
    }
};

/**
 * \ingroup crux-tests
 * \brief Placement and queue: a job of all 4 GPUs blocks a later 1-GPU job (strict FIFO) until it
 * completes; a job larger than the cluster is unplaceable and does not block; the run stops at
 * the window end + drain with unfinished jobs.
 */
class EpochEngineQueueTestCase : public TestCase
{
  public:
    EpochEngineQueueTestCase()
        : TestCase("FIFO placement: a waiting job starts at the completion that frees its GPUs; "
                   "unplaceable and unfinished jobs")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const std::vector<TraceJob> window = {Job("big", 4, 0, 40),
                                              Job("huge", 8, 5, 10),
                                              Job("small", 1, 10, 20)};
        const auto builder = HandMadeJobs(topo, {{0, {1, 1}}, {1, {1, 1}}, {2, {1, 1}}});
        EpochEngineConfig cfg;
        std::vector<EpochProgress> progress;
        const ClusterRunResult r =
            RunEngine(cfg, topo, window, 100, "ecmp", builder, nullptr, &progress);
        NS_TEST_EXPECT_MSG_EQ(r.jobs[1].unplaceable, true, "8 GPUs never fit 4");
        // the progress estimate's share: arrivals and completions of 2 x 3 jobs, less the
        // completion the unplaceable one never has (counted once it is found, at its arrival)
        const std::vector<double> share = {1.0 / 6, 2.0 / 6, 3.0 / 5, 4.0 / 5, 1.0};
        NS_TEST_ASSERT_MSG_EQ(progress.size(), share.size(), "one line per arrival, completion");
        for (size_t i = 0; i < share.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(progress[i].done, share[i], kTol, "share " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(r.jobsUnplaceable, 1, "counted");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[0].end, 40.0, kTol, "big alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[2].start, 40.0, kTol, "small waits for big's GPUs");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[2].end, 60.0, kTol, "then its duration alone");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.meanJct, (40.0 + 50.0) / 2, kTol, "JCT includes queueing");
        bool queuedRow = false;
        for (const ClusterUtilSample& s : r.util)
        {
            queuedRow = queuedRow || (std::abs(s.time - 10) < kTol && s.queued == 1);
        }
        NS_TEST_EXPECT_MSG_EQ(queuedRow, true, "small is queued at 10 s");

        // the stop: window end 10 s + drain 5 s: a job of 100 s is cut at 15 s
        EpochEngineConfig shortCfg;
        shortCfg.drainSeconds = 5;
        const ClusterRunResult s = RunEngine(shortCfg,
                                             topo,
                                             {Job("long", 1, 0, 100)},
                                             10,
                                             "ecmp",
                                             HandMadeJobs(topo, {{0, {1, 1}}}));
        NS_TEST_EXPECT_MSG_EQ(s.jobsUnfinished, 1, "still running at the stop");
        NS_TEST_EXPECT_MSG_EQ_TOL(s.simEnd, 15.0, kTol, "window end + drain");
        NS_TEST_EXPECT_MSG_EQ_TOL(s.jobs[0].done, 7.5, kTol, "15 s at 1/2");
    }
};

/**
 * \ingroup crux-tests
 * \brief With an EpochEngineFabric (engine "flow") the engine starts each job on it with its
 * whole work (round(duration × alone rate) iterations), installs every decision on it, takes
 * the completion from the fabric's callback and fills each epoch's utilization row from the
 * iterations the fabric reports. A fabric stand-in iterating in 4 s (twice the stand-alone
 * 2 s): the job of 100 s = 50 iterations ends at 200 s, its epoch at rate 1/4.
 */
class EpochEngineFabricTestCase : public TestCase
{
  public:
    EpochEngineFabricTestCase()
        : TestCase("with a live fabric: work in whole iterations, decisions installed, progress "
                   "read back")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        auto fabric = std::make_unique<FakeFabric>(4.0);
        FakeFabric* f = fabric.get();
        EpochEngineConfig cfg;
        const std::vector<TraceJob> window = {Job("a", 1, 0, 100)};
        EpochEngine live(cfg,
                         topo,
                         window,
                         0.0,
                         0.0,
                         300,
                         "ecmp",
                         HandMadeJobs(topo, {{0, {1, 1}}}),
                         std::make_unique<ExactEpochRateModel>(topo.links, RunnerOptions()),
                         std::move(fabric));
        live.Start();
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(f->started.at(0), 50, "started with round(100 s / 2 s)");
        NS_TEST_EXPECT_MSG_EQ(f->decisions, 1, "the arrival's decision installed");
        NS_TEST_EXPECT_MSG_EQ(f->lastRunning, 1, "on the running job");
        const ClusterRunResult r = live.Finish();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs.at(0).end, 200.0, kTol, "the fabric's completion");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs.at(0).done, 50.0, kTol, "iterations it reported");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs.at(0).aloneIter, 2.0, kTol, "alone from the rate model");
        // the epoch [0, 200): 50 iterations in 200 s on 1 of 4 GPUs, c = 1 s
        NS_TEST_EXPECT_MSG_EQ_TOL(UtilAt(r, 0), 1.0 * 0.25 / 4, kTol, "row filled from the fabric");
        NS_TEST_EXPECT_MSG_EQ(r.rankClasses, false, "levels on a fabric");
    }
};

/**
 * \ingroup crux-tests
 * \brief ExactEpochRateModel directly: disjoint links are separate components (each at its
 * alone rate, one evaluation each); the same epoch again and the same epoch with shifted classes
 * are cache hits; the shared link halves; a job without flows runs at 1 / c without an
 * evaluation.
 */
class EpochRateModelTestCase : public TestCase
{
  public:
    EpochRateModelTestCase()
        : TestCase("exact epoch evaluation: components, cache, closed-form rates")
    {
    }

  private:
    void DoRun() override
    {
        ClusterModel m;
        SchedLink l;
        l.bandwidth = 80e9; // 10 GB/s
        m.links = {l, l};
        auto job = [](uint32_t id, uint32_t link, double bytes) {
            return test::OneLinkJob(id, link, 1.0, bytes);
        };
        m.jobs = {job(0, 0, 10e9), job(1, 1, 20e9)}; // t = 1 s and 2 s, disjoint links
        ExactEpochRateModel model(m.links, RunnerOptions());
        std::vector<LinkLoad> loads;
        for (const SchedJob& j : m.jobs)
        {
            loads.push_back(JobLinkBytes(j, {0}));
        }
        EpochRateInput in;
        in.model = &m;
        in.choice = {{0}, {0}};
        in.load = {&loads[0], &loads[1]};
        in.priorityClass = {3, 3};
        in.timeShift = {0, 0};
        std::vector<double> r = model.Rates(in);
        NS_TEST_EXPECT_MSG_EQ_TOL(r.at(0), 1.0 / 2, 1e-9, "alone on its link: c + t = 2 s");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.at(1), 1.0 / 3, 1e-9, "alone on its link: c + t = 3 s");
        NS_TEST_EXPECT_MSG_EQ(model.GetEvaluations(), 2, "two components");
        NS_TEST_EXPECT_MSG_EQ(model.GetCacheHits(), 0, "nothing cached yet");
        in.priorityClass = {7, 7}; // same order: same dense classes
        r = model.Rates(in);
        NS_TEST_EXPECT_MSG_EQ(model.GetEvaluations(), 2, "served from the cache");
        NS_TEST_EXPECT_MSG_EQ(model.GetCacheHits(), 2, "two hits");
        NS_TEST_EXPECT_MSG_EQ_TOL(model.AloneRate(m.jobs[0], {0}), 0.5, 1e-9, "alone rate");
        NS_TEST_EXPECT_MSG_EQ(model.GetCacheHits(), 2, "an alone hit is not counted");

        // both on link 0, one class: each communicates at half the rate from a common start
        m.jobs = {job(0, 0, 10e9), job(1, 0, 10e9)};
        loads = {JobLinkBytes(m.jobs[0], {0}), JobLinkBytes(m.jobs[1], {0})};
        in.load = {&loads[0], &loads[1]};
        r = model.Rates(in);
        NS_TEST_EXPECT_MSG_EQ_TOL(r.at(0), 1.0 / 3, 1e-9, "c + 2t");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.at(1), 1.0 / 3, 1e-9, "c + 2t");
        NS_TEST_EXPECT_MSG_EQ(model.GetEvaluations(), 3, "one component");

        // no flow: 1 / c, no FlowEvaluator run
        SchedJob c;
        c.id = 9;
        c.computeTime = 4;
        NS_TEST_EXPECT_MSG_EQ_TOL(model.AloneRate(c, {}), 0.25, 1e-12, "1 / c");
        NS_TEST_EXPECT_MSG_EQ(model.GetEvaluations(), 3, "no evaluation for it");
    }
};

/**
 * \ingroup crux-tests
 * \brief ExactEpochRateModel::SetThreads: the components of one Rates() call that miss the
 * cache, evaluated on several threads, give bit-identical rates, cache hits, evaluations and
 * fluid events to one thread, for the exact and the coarse evaluation (whose components here
 * are split by time scale and coarsened), also when some components of a call hit the cache;
 * a job alone on its link keeps its closed-form rate; 0 threads are refused.
 */
class EpochRateModelThreadsTestCase : public TestCase
{
  public:
    EpochRateModelThreadsTestCase()
        : TestCase("epoch evaluation on threads: identical to one thread")
    {
    }

  private:
    /// One Rates() result with the model's counters after it.
    struct Outcome
    {
        std::vector<std::vector<double>> rates; //!< per call, per job
        uint64_t evaluations{0};                //!< GetEvaluations()
        uint64_t hits{0};                       //!< GetCacheHits()
        uint64_t fluidEvents{0};                //!< GetFluidEvents()
    };

    /// \param coarse CoarseEpochRateModel (K 4) instead of the exact one \param threads
    /// SetThreads() \return three Rates() calls: all new, the same again, half the time shifts
    /// changed
    static Outcome Run(bool coarse, uint32_t threads)
    {
        ClusterModel m;
        SchedLink l;
        l.bandwidth = 80e9; // 10 GB/s
        const uint32_t numLinks = 6;
        m.links.assign(numLinks + 1, l);
        const auto job = [](uint32_t id, uint32_t link, double compute, double bytes) {
            return test::OneLinkJob(id, link, compute, bytes);
        };
        // per link: a slow job (1 + i s of compute, 1-6 GB), a fast one (10 ms, 20 MB) and one of
        // 0.2 s; a last job alone on the extra link (closed form 1 / (c + t))
        for (uint32_t i = 0; i < numLinks; ++i)
        {
            m.jobs.push_back(job(3 * i, i, 1.0 + i, 1e9 * (i + 1)));
            m.jobs.push_back(job(3 * i + 1, i, 0.01, 20e6));
            m.jobs.push_back(job(3 * i + 2, i, 0.2, 0.5e9));
        }
        m.jobs.push_back(job(99, numLinks, 1.0, 10e9));
        const uint32_t n = static_cast<uint32_t>(m.jobs.size());
        std::vector<LinkLoad> loads;
        for (const SchedJob& j : m.jobs)
        {
            loads.push_back(JobLinkBytes(j, {0}));
        }
        EpochRateInput in;
        in.model = &m;
        in.choice.assign(n, {0});
        for (const LinkLoad& ld : loads)
        {
            in.load.push_back(&ld);
        }
        // odd links: the fast job above the others (split by time scale); even: one class
        for (uint32_t k = 0; k < n; ++k)
        {
            const bool odd = k < 3 * numLinks && (k / 3) % 2 == 1;
            in.priorityClass.push_back(odd && k % 3 == 1 ? 2 : 1);
        }
        in.timeShift.assign(n, 0.0);
        std::unique_ptr<ExactEpochRateModel> model =
            coarse ? std::make_unique<CoarseEpochRateModel>(m.links, RunnerOptions(), 4.0)
                   : std::make_unique<ExactEpochRateModel>(m.links, RunnerOptions());
        model->SetThreads(threads);
        Outcome o;
        o.rates.push_back(model->Rates(in));
        o.rates.push_back(model->Rates(in));
        for (uint32_t k = 0; k < 3 * numLinks; k += 6)
        {
            in.timeShift[k + 1] = 0.003; // links 0, 2, 4: new keys
        }
        o.rates.push_back(model->Rates(in));
        o.evaluations = model->GetEvaluations();
        o.hits = model->GetCacheHits();
        o.fluidEvents = model->GetFluidEvents();
        return o;
    }

    void DoRun() override
    {
        for (bool coarse : {false, true})
        {
            const std::string what = coarse ? "coarse: " : "exact: ";
            const Outcome one = Run(coarse, 1);
            NS_TEST_EXPECT_MSG_EQ(one.evaluations,
                                  7 + 3 + (coarse ? 3 : 0),
                                  what + "7 components, 3 again; coarse: odd ones split in two");
            NS_TEST_EXPECT_MSG_EQ(one.hits, 7 + 4, what + "all, then 4 of 7 from the cache");
            NS_TEST_EXPECT_MSG_EQ_TOL(one.rates.at(0).back(),
                                      1.0 / 2,
                                      1e-9,
                                      what + "alone on its link: c + t = 2 s");
            for (uint32_t threads : {2U, 3U, 8U})
            {
                const Outcome many = Run(coarse, threads);
                const std::string t = what + std::to_string(threads) + " threads: ";
                NS_TEST_EXPECT_MSG_EQ(many.evaluations, one.evaluations, t + "evaluations");
                NS_TEST_EXPECT_MSG_EQ(many.hits, one.hits, t + "cache hits");
                NS_TEST_EXPECT_MSG_EQ(many.fluidEvents, one.fluidEvents, t + "fluid events");
                for (size_t c = 0; c < one.rates.size(); ++c)
                {
                    for (size_t k = 0; k < one.rates[c].size(); ++k)
                    {
                        // bit for bit: the same evaluation of the same component
                        NS_TEST_EXPECT_MSG_EQ(many.rates[c][k],
                                              one.rates[c][k],
                                              t + "call " + std::to_string(c) + ", job " +
                                                  std::to_string(k));
                    }
                }
            }
        }
        ExactEpochRateModel model({}, RunnerOptions());
        bool refused = false;
        try
        {
            model.SetThreads(0);
        }
        catch (const std::invalid_argument&)
        {
            refused = true;
        }
        NS_TEST_EXPECT_MSG_EQ(refused, true, "0 threads are refused");
    }
};

/**
 * \ingroup crux-tests
 * \brief Bad input: the config names the field; a null builder or rate model, an unknown
 * scheduler and Finish() before Start() are refused.
 */
class EpochEngineBadInputTestCase : public TestCase
{
  public:
    EpochEngineBadInputTestCase()
        : TestCase("bad config, null parts and misuse are refused")
    {
    }

  private:
    void DoRun() override
    {
        const ClusterTopology topo = TinyCluster();
        const std::vector<TraceJob> window = {Job("a", 1, 0, 10)};
        const auto builder = HandMadeJobs(topo, {{0, {1, 1}}});
        auto make = [&](const EpochEngineConfig& cfg,
                        const std::string& sched,
                        EpochEngine::JobBuilder b,
                        bool rates) {
            return std::make_unique<EpochEngine>(
                cfg,
                topo,
                window,
                0.0,
                0.0,
                20.0,
                sched,
                std::move(b),
                rates ? std::make_unique<ExactEpochRateModel>(topo.links, RunnerOptions())
                      : nullptr);
        };
        auto message = [&](auto f) {
            try
            {
                f();
            }
            catch (const std::exception& e)
            {
                return std::string(e.what());
            }
            return std::string();
        };
        EpochEngineConfig bad;
        bad.numLevels = 0;
        NS_TEST_EXPECT_MSG_EQ(message([&] { make(bad, "ecmp", builder, true); }),
                              "EpochEngineConfig.numLevels: must be 1..8 (traffic classes)",
                              "numLevels");
        bad = EpochEngineConfig();
        bad.workModel = "wall";
        NS_TEST_EXPECT_MSG_EQ(message([&] {
                                  make(bad, "ecmp", builder, true);
                              }).rfind("EpochEngineConfig.workModel", 0),
                              0,
                              "workModel");
        NS_TEST_EXPECT_MSG_NE(message([&] { make(EpochEngineConfig(), "ecmp", nullptr, true); }),
                              "",
                              "null builder");
        NS_TEST_EXPECT_MSG_NE(message([&] { make(EpochEngineConfig(), "ecmp", builder, false); }),
                              "",
                              "null rate model");
        NS_TEST_EXPECT_MSG_NE(message([&] { make(EpochEngineConfig(), "nope", builder, true); }),
                              "",
                              "unknown scheduler");
        auto e = make(EpochEngineConfig(), "ecmp", builder, true);
        NS_TEST_EXPECT_MSG_NE(message([&] { e->Finish(); }), "", "Finish() before Start()");
    }
};

/**
 * \ingroup crux-tests
 * \brief Suite of the epoch engine.
 */
class EpochEngineTestSuite : public TestSuite
{
  public:
    EpochEngineTestSuite()
        : TestSuite("crux-epoch-engine", UNIT)
    {
        AddTestCase(new EpochEngineAloneTestCase, TestCase::QUICK);
        AddTestCase(new EpochEngineSharedLinkTestCase, TestCase::QUICK);
        AddTestCase(new EpochEngineSameInstantTestCase, TestCase::QUICK);
        AddTestCase(new EpochEnginePriorityTestCase, TestCase::QUICK);
        AddTestCase(new EpochEngineQueueTestCase, TestCase::QUICK);
        AddTestCase(new EpochEngineFabricTestCase, TestCase::QUICK);
        AddTestCase(new EpochRateModelTestCase, TestCase::QUICK);
        AddTestCase(new EpochRateModelThreadsTestCase, TestCase::QUICK);
        AddTestCase(new EpochEngineBadInputTestCase, TestCase::QUICK);
    }
};

} // namespace

static EpochEngineTestSuite g_epochEngineTestSuite; //!< static instance
