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

// The flow-level evaluator (fluid flows, max-min fair inside a level, strict priority between
// levels) on hand-worked cases and against the independent two-job shared-link timeline.

#include "ns3/comm-scheduler.h"
#include "ns3/flow-evaluator.h"
#include "ns3/shared-link-timeline.h"
#include "ns3/steady-rate.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace ns3;

namespace
{

/// A job with one flow per entry of \p flows: (bytes, path).
SchedJob
MakeJob(uint32_t id,
        double flops,
        double compute,
        double overlap,
        std::vector<std::pair<double, std::vector<uint32_t>>> flows,
        uint32_t gpus = 10)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = flops;
    j.computeTime = compute;
    j.overlapStart = overlap;
    j.numGpus = gpus;
    for (uint32_t f = 0; f < flows.size(); ++f)
    {
        SchedFlow flow;
        flow.id = f;
        flow.bytesPerIteration = flows[f].first;
        flow.candidatePaths = {flows[f].second};
        j.flows.push_back(flow);
    }
    return j;
}

/// A decision with default paths and the given level per job (model order).
Decision
Levels(const ClusterModel& m, std::vector<uint32_t> levels, uint32_t k = 8)
{
    SchedulerConfig c;
    c.numLevels = k;
    Decision d = MakeDefaultDecision(m, c, "test");
    for (std::size_t j = 0; j < m.jobs.size(); ++j)
    {
        d.jobs.at(m.jobs[j].id).level = levels[j];
    }
    return d;
}

/// Options with an explicit horizon.
FlowEvaluatorOptions
Horizon(double h)
{
    FlowEvaluatorOptions o;
    o.horizon = h;
    return o;
}

} // namespace

TEST(FlowEvaluator, OneJobAloneIterationIsMaxOfComputeAndOverlappedComm)
{
    // 8 Gbit/s link: 1e9 bytes take 1 s. (compute, overlap, bytes) -> T = max(c, ov c + t).
    struct Case
    {
        double c, ov, bytes, expectedT;
    };

    for (const Case& k : {Case{2.0, 1.0, 1e9, 3.0},   // no overlap: c + t
                          Case{2.0, 0.5, 0.5e9, 2.0}, // hidden: ov c + t = 1.5 < c
                          Case{2.0, 0.25, 3e9, 3.5},  // exposed: 0.5 + 3
                          Case{0.0, 1.0, 2e9, 2.0},   // pure communication
                          Case{1.5, 0.0, 0.0, 1.5}})  // pure computation (no bytes)
    {
        ClusterModel m;
        m.links = {{8e9, "l"}};
        m.jobs = {MakeJob(1, 7e12, k.c, k.ov, {{k.bytes, {0}}}, 8)};
        const double h = 10.5 * k.expectedT; // 10 full iterations, the 11th unfinished
        const FlowEvaluation e = EvaluateDecision(m, Levels(m, {0}), Horizon(h));
        ASSERT_EQ(e.jobs.size(), 1u);
        EXPECT_EQ(e.jobs[0].completedIterations, 10u) << k.c << " " << k.ov << " " << k.bytes;
        EXPECT_NEAR(e.jobs[0].iterationRate, 1 / k.expectedT, 1e-9 / k.expectedT);
        EXPECT_DOUBLE_EQ(e.jobs[0].standaloneIterationTime, k.expectedT);
        EXPECT_DOUBLE_EQ(e.completedFlops, 10 * 7e12);
        EXPECT_NEAR(e.gpuUtilization, 10 * k.c / h, 1e-12);
        EXPECT_NEAR(e.flopsRate, 7e12 / k.expectedT, 1e-6 * 7e12 / k.expectedT);
        EXPECT_NEAR(e.steadyGpuUtilization, k.c / k.expectedT, 1e-9);
    }
}

TEST(FlowEvaluator, PaperExample1StrictPriority)
{
    // Crux Example 1 on an 8 Gbit/s link over 12 s: job 1 first 37.5 %, job 2 first 41.7 %.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {MakeJob(1, 10e9, 2.0, 1.0, {{2e9, {0}}}), MakeJob(2, 5e9, 1.0, 1.0, {{1e9, {0}}})};
    const FlowEvaluation a = EvaluateDecision(m, Levels(m, {1, 0}), Horizon(12));
    EXPECT_EQ(a.jobs[0].completedIterations, 3u);
    EXPECT_EQ(a.jobs[1].completedIterations, 3u);
    EXPECT_NEAR(a.gpuUtilization, 0.375, 1e-12);
    const FlowEvaluation b = EvaluateDecision(m, Levels(m, {0, 1}), Horizon(12));
    EXPECT_EQ(b.jobs[0].completedIterations, 2u);
    EXPECT_EQ(b.jobs[1].completedIterations, 6u);
    EXPECT_NEAR(b.gpuUtilization, 10.0 / 24.0, 1e-12);
    EXPECT_DOUBLE_EQ(b.completedFlops, 2 * 10e9 + 6 * 5e9);
    // Long run (algorithms.md §2.3): job 1 first: 1/4 and 1/4 iterations/s (links 1/2, 1/4);
    // job 2 first: job 2 every 2 s, job 1 every 6 s.
    const FlowEvaluation la = EvaluateDecision(m, Levels(m, {1, 0}), Horizon(1200));
    EXPECT_NEAR(la.jobs[0].iterationRate, 0.25, 1e-6);
    EXPECT_NEAR(la.jobs[1].iterationRate, 0.25, 1e-6);
    const FlowEvaluation lb = EvaluateDecision(m, Levels(m, {0, 1}), Horizon(1200));
    EXPECT_NEAR(lb.jobs[0].iterationRate, 1.0 / 6, 1e-6);
    EXPECT_NEAR(lb.jobs[1].iterationRate, 0.5, 1e-6);
    // Ranks instead of levels give the same when they order the jobs the same way.
    Decision byRank = Levels(m, {0, 0});
    byRank.jobs.at(2).rank = 0;
    byRank.jobs.at(1).rank = 1;
    FlowEvaluatorOptions o = Horizon(12);
    o.priority = EvaluationPriority::RANK;
    EXPECT_NEAR(EvaluateDecision(m, byRank, o).gpuUtilization, 10.0 / 24.0, 1e-12);
}

TEST(FlowEvaluator, SameLevelSharesFairlyStrictPriorityInterleaves)
{
    // Two identical jobs (compute 1 s, traffic 1 s alone, no overlap) on one link.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {MakeJob(1, 1e12, 1.0, 1.0, {{1e9, {0}}}), MakeJob(2, 1e12, 1.0, 1.0, {{1e9, {0}}})};
    // Same level: both send at half rate from t = 1 to 3; every iteration takes 3 s.
    const FlowEvaluation fair = EvaluateDecision(m, Levels(m, {0, 0}), Horizon(30.5));
    EXPECT_EQ(fair.jobs[0].completedIterations, 10u);
    EXPECT_EQ(fair.jobs[1].completedIterations, 10u);
    EXPECT_NEAR(fair.jobs[0].iterationRate, 1.0 / 3, 1e-9);
    // Strict priority: the high job runs at 2 s per iteration; the low one sends while the
    // high one computes: first iteration ends at 3 s, then every 2 s.
    const FlowEvaluation prio = EvaluateDecision(m, Levels(m, {1, 0}), Horizon(30.5));
    EXPECT_EQ(prio.jobs[0].completedIterations, 15u);
    EXPECT_EQ(prio.jobs[1].completedIterations, 14u);
    EXPECT_NEAR(prio.jobs[1].iterationRate, 0.5, 1e-9);
    EXPECT_GT(prio.gpuUtilization, fair.gpuUtilization);
}

TEST(FlowEvaluator, MaxMinFairAcrossLinks)
{
    // Link 0: 1 Gbit/s, link 1: 2 Gbit/s. Flow A crosses both, B only link 0, C only link 1.
    // Max-min: A = B = 0.5 Gbit/s (link 0 is the bottleneck), C = 2 - 0.5 = 1.5 Gbit/s.
    // With 0.5, 0.5 and 1.5 Gbit per iteration and no computation every job needs exactly 1 s.
    ClusterModel m;
    m.links = {{1e9, "l0"}, {2e9, "l1"}};
    m.jobs = {MakeJob(1, 1e12, 0.0, 1.0, {{0.5e9 / 8, {0, 1}}}),
              MakeJob(2, 1e12, 0.0, 1.0, {{0.5e9 / 8, {0}}}),
              MakeJob(3, 1e12, 0.0, 1.0, {{1.5e9 / 8, {1}}})};
    const FlowEvaluation e = EvaluateDecision(m, Levels(m, {0, 0, 0}), Horizon(10.5));
    for (const JobEvaluation& j : e.jobs)
    {
        EXPECT_EQ(j.completedIterations, 10u) << j.jobId;
        EXPECT_NEAR(j.iterationRate, 1.0, 1e-9) << j.jobId;
    }
    // Job 2 one level up and without computation: it holds all of link 0 forever (0.5 Gbit
    // every 0.5 s), so A starves (strict priority, rate 0) and C has link 1 alone (2 Gbit/s:
    // 1.5 Gbit every 0.75 s).
    const FlowEvaluation p = EvaluateDecision(m, Levels(m, {0, 1, 0}), Horizon(10.5));
    EXPECT_EQ(p.jobs[0].completedIterations, 0u);
    EXPECT_EQ(p.jobs[0].iterationRate, 0.0);
    EXPECT_EQ(p.jobs[1].completedIterations, 21u);
    EXPECT_NEAR(p.jobs[1].iterationRate, 2.0, 1e-9);
    EXPECT_EQ(p.jobs[2].completedIterations, 14u);
    EXPECT_NEAR(p.jobs[2].iterationRate, 1 / 0.75, 1e-9);
}

TEST(FlowEvaluator, TwoJobsOnOneLinkMatchTheSharedLinkTimeline)
{
    // Independent implementation: SimulateSharedLink (two jobs, one link, strict priority).
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0, 1);
    for (int inst = 0; inst < 200; ++inst)
    {
        std::array<TimelineJob, 2> tj;
        ClusterModel m;
        m.links = {{8e9, "shared"}};
        for (uint32_t x = 0; x < 2; ++x)
        {
            const double c = 0.1 + u(rng);
            const double t = 0.05 + u(rng);
            const double ov = u(rng) < 0.3 ? 1.0 : u(rng);
            tj[x] = TimelineJob{c, t, ov, 8, 1e12 * (0.5 + u(rng))};
            m.jobs.push_back(MakeJob(x + 1, tj[x].flopsPerIteration, c, ov, {{t * 1e9, {0}}}, 8));
        }
        const double h = 20 + 20 * u(rng);
        for (uint32_t high = 0; high < 2; ++high)
        {
            const TimelineResult ref = SimulateSharedLink(tj, high, h);
            const FlowEvaluation e =
                EvaluateDecision(m,
                                 Levels(m, {high == 0 ? 1u : 0u, high == 1 ? 1u : 0u}),
                                 Horizon(h));
            for (uint32_t x = 0; x < 2; ++x)
            {
                EXPECT_EQ(e.jobs[x].completedIterations, ref.completedIterations[x])
                    << "instance " << inst << " high " << high << " job " << x;
            }
            EXPECT_NEAR(e.gpuUtilization, ref.utilization, 1e-12);
        }
    }
}

TEST(FlowEvaluator, TimeShiftDelaysTheFirstIteration)
{
    ClusterModel m;
    m.links = {{8e9, "l"}};
    m.jobs = {MakeJob(1, 1e12, 1.0, 1.0, {{1e9, {0}}})}; // T = 2 s
    Decision d = Levels(m, {0});
    d.jobs.at(1).timeShift = 0.75;
    const FlowEvaluation e = EvaluateDecision(m, d, Horizon(20.5));
    EXPECT_EQ(e.jobs[0].completedIterations, 9u); // ends at 2.75, 4.75, ..., 18.75
    EXPECT_NEAR(e.jobs[0].iterationRate, 0.5, 1e-9);
    d.jobs.at(1).timeShift = -1;
    EXPECT_THROW(EvaluateDecision(m, d, Horizon(20.5)), std::invalid_argument);
}

TEST(FlowEvaluator, IndependentJobsAddUpAndEmptyPathsAreInstant)
{
    // Jobs 1 and 2 share link 0, job 3 is alone on link 1; job 3 also has a flow on an empty
    // path (no modelled link) and a flow of 0 bytes, which must not slow it down.
    ClusterModel m;
    m.links = {{8e9, "l0"}, {8e9, "l1"}};
    m.jobs = {MakeJob(1, 3e12, 0.7, 0.5, {{1e9, {0}}}),
              MakeJob(2, 2e12, 0.4, 1.0, {{0.6e9, {0}}}),
              MakeJob(3, 1e12, 0.3, 1.0, {{0.4e9, {1}}, {5e9, {}}, {0.0, {1}}})};
    FlowEvaluator ev(m, Horizon(50));
    EvaluationInput all;
    for (const SchedJob& j : m.jobs)
    {
        all.paths.push_back(DefaultPathChoice(j));
    }
    all.priority = {1, 0, 0};
    const FlowEvaluation whole = ev.Evaluate(all);
    EvaluationInput first = all;
    first.include = {true, true, false};
    EvaluationInput third = all;
    third.include = {false, false, true};
    const FlowEvaluation a = ev.Evaluate(first);
    const FlowEvaluation b = ev.Evaluate(third);
    ASSERT_EQ(a.jobs.size(), 2u);
    ASSERT_EQ(b.jobs.size(), 1u);
    EXPECT_NEAR(whole.flopsRate, a.flopsRate + b.flopsRate, 1e-9 * whole.flopsRate);
    EXPECT_DOUBLE_EQ(whole.completedFlops, a.completedFlops + b.completedFlops);
    EXPECT_NEAR(b.jobs[0].iterationRate, 1 / 0.7, 1e-9); // 0.3 s compute + 0.4 s traffic
}

TEST(FlowEvaluator, SteadyStateExtensionMeasuresAWholeInterval)
{
    // Three sequential phases, each 1e9 bytes on its own 8 Gbit/s link: t_j (busiest link) is
    // 1 s, so the stand-alone estimate that sets the automatic horizon is 1 s, but an iteration
    // really takes 3 s (one phase after another). horizonIterations 4: H = 4 s, warm-up 1 s, one
    // completion (t = 3 s) in [0, H] and no whole interval after the warm-up.
    ClusterModel m;
    m.links = {{8e9, "a"}, {8e9, "b"}, {8e9, "c"}};
    SchedJob j = MakeJob(1, 1e12, 0.0, 1.0, {{1e9, {0}}, {1e9, {1}}, {1e9, {2}}}, 8);
    for (uint32_t p = 0; p < 3; ++p)
    {
        SchedPhase ph;
        ph.flows = {p};
        ph.bytes = {1e9};
        if (p > 0)
        {
            ph.deps = {SchedPhaseDep{p - 1, 0.0}};
        }
        j.phases.push_back(ph);
    }
    j.endDeps = {SchedPhaseDep{2, 0.0}};
    m.jobs = {j};
    FlowEvaluatorOptions o;
    o.horizonIterations = 4;
    ASSERT_DOUBLE_EQ(FlowEvaluator(m, o).Horizon(), 4.0);

    // default: the run goes on to the second completion (6 s); rate = one interval, 1/3 per s
    FlowEvaluation e = EvaluateDecision(m, Levels(m, {0}), o);
    ASSERT_EQ(e.jobs.size(), 1u);
    EXPECT_NEAR(e.jobs[0].iterationRate, 1.0 / 3.0, 1e-12);
    EXPECT_EQ(e.jobs[0].completedIterations, 1u); // [0, H] only
    EXPECT_NEAR(e.stopTime, 6.0, 1e-9);
    EXPECT_DOUBLE_EQ(e.horizon, 4.0);

    // no extension: the old quantised rate n_j / H = 1/4
    o.steadyHorizonLimit = 1;
    e = EvaluateDecision(m, Levels(m, {0}), o);
    EXPECT_DOUBLE_EQ(e.jobs[0].iterationRate, 0.25);
    EXPECT_DOUBLE_EQ(e.stopTime, 4.0);

    // a limit before the second completion (5.6 s): completions by the stop / stop time
    o.steadyHorizonLimit = 1.4;
    e = EvaluateDecision(m, Levels(m, {0}), o);
    EXPECT_NEAR(e.jobs[0].iterationRate, 1.0 / 5.6, 1e-9);
    EXPECT_NEAR(e.stopTime, 5.6, 1e-6);

    // a second job that has its interval by H keeps the rate measured in [0, H]: a 1 s job on
    // its own link gives 1 per s with or without the first job's extension
    ClusterModel two = m;
    two.links.push_back({8e9, "d"});
    two.jobs.push_back(MakeJob(2, 1e12, 0.0, 1.0, {{1e9, {3}}}, 8));
    o.steadyHorizonLimit = 16;
    e = EvaluateDecision(two, Levels(two, {0, 0}), o);
    EXPECT_NEAR(e.jobs[0].iterationRate, 1.0 / 3.0, 1e-12);
    EXPECT_NEAR(e.jobs[1].iterationRate, 1.0, 1e-12);
    EXPECT_EQ(e.jobs[1].completedIterations, 4u);

    o.steadyHorizonLimit = 0.5;
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);
}

TEST(FlowEvaluator, StarvedStretchesAreCountedOverWholePeriodsOfTheSlowestJob)
{
    // A slow job (compute 1 s, then 1 s of traffic) above a fast one (compute 10 ms, then 1 ms
    // of traffic) on one link: the fast job is starved while the slow one sends, 1 s in every
    // 2 s, so in the long run it runs 1 s / 11 ms iterations per 2 s: 45.45 per s. Its own
    // first and last completion after the warm-up bracket a stretch that can end before a
    // stall (54.5 per s with horizonIterations 4); the slow job's window counts whole periods.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {MakeJob(1, 1e12, 1.0, 1.0, {{1e9, {0}}}), MakeJob(2, 1e10, 0.01, 1.0, {{1e6, {0}}})};
    const double longRun = 1.0 / (2 * 0.011);
    for (double h : {4.0, 5.0, 8.0, 60.0})
    {
        FlowEvaluatorOptions o;
        o.horizonIterations = h;
        const FlowEvaluation e = EvaluateDecision(m, Levels(m, {1, 0}), o);
        EXPECT_NEAR(e.jobs[0].iterationRate, 0.5, 1e-12) << "H = " << h << " iterations";
        // within one fast iteration (11 ms) per slow period (2 s) of the long run: 0.55 %
        EXPECT_NEAR(e.jobs[1].iterationRate, longRun, 0.0055 * longRun)
            << "H = " << h << " iterations";
    }
    // without the alignment (its own window): 54.5 per s at horizonIterations 4
    FlowEvaluatorOptions o;
    o.horizonIterations = 4;
    o.alignRatio = std::numeric_limits<double>::infinity();
    EXPECT_GT(EvaluateDecision(m, Levels(m, {1, 0}), o).jobs[1].iterationRate, 1.19 * longRun);
    // the fast job's own window gives a mean interval of 18.3 ms, 109 times shorter than the
    // slow job's 2 s: aligned up to alignRatio 109, not above
    o.alignRatio = 100;
    EXPECT_NEAR(EvaluateDecision(m, Levels(m, {1, 0}), o).jobs[1].iterationRate,
                longRun,
                0.0055 * longRun);
    o.alignRatio = 120;
    EXPECT_GT(EvaluateDecision(m, Levels(m, {1, 0}), o).jobs[1].iterationRate, 1.19 * longRun);
    // only a slower job of a higher class is a reference: with the slow job in the fast one's
    // class or below it, the fast job keeps its own window (bit-identical to no alignment)
    for (const std::vector<uint32_t>& levels :
         {std::vector<uint32_t>{0, 0}, std::vector<uint32_t>{0, 1}})
    {
        FlowEvaluatorOptions aligned;
        aligned.horizonIterations = 4;
        FlowEvaluatorOptions own = aligned;
        own.alignRatio = std::numeric_limits<double>::infinity();
        EXPECT_EQ(EvaluateDecision(m, Levels(m, levels), aligned).jobs[1].iterationRate,
                  EvaluateDecision(m, Levels(m, levels), own).jobs[1].iterationRate);
    }
    o.alignRatio = 0.5;
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);
    o.alignRatio = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);
}

TEST(FlowEvaluator, IdenticalJobsKeepTheirInitialOffset)
{
    // Two identical jobs of one class (compute C = 0.25 s, then M = 1 s of traffic alone) on
    // one link. Max-min sharing has no force that moves their relative phase: started d apart
    // they stay d apart, and the period is T(d) = max(2 M, C + 2 M - d), from C + 2 M = 2.25 s
    // in lockstep (the trace runner's start: every job of a component at time 0 plus its time
    // shift) to the link's bound 2 M = 2 s once d >= C.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {MakeJob(1, 1e12, 0.25, 1.0, {{1e9, {0}}}), MakeJob(2, 1e12, 0.25, 1.0, {{1e9, {0}}})};
    for (double d : {0.0, 0.01, 0.1, 0.2, 0.25, 0.5})
    {
        Decision decision = Levels(m, {0, 0});
        decision.jobs.at(2).timeShift = d;
        FlowEvaluatorOptions o;
        o.horizonIterations = 60;
        const FlowEvaluation e = EvaluateDecision(m, decision, o);
        const double period = std::max(2.0, 0.25 + 2.0 - d);
        EXPECT_NEAR(1 / e.jobs[0].iterationRate, period, 1e-6) << "offset " << d;
        EXPECT_NEAR(1 / e.jobs[1].iterationRate, period, 1e-6) << "offset " << d;
    }
}

TEST(SteadyRate, LinkComponentsAndAlignedRatesOnHandMadeCompletions)
{
    // jobs 0 and 2 share link 1; job 1 is alone on link 3
    EXPECT_EQ(LinkComponents(3, 4, {0, 1, 2, 2}, {{0, 1}, {3}, {1}, {2}}),
              (std::vector<uint32_t>{0, 1, 0}));

    // R: class 0, a completion every 2 s, window (2, 8]. F: class 1, four completions 0.25 s
    // apart at the start of every 2 s (starved the rest), window (2.25, 9]: 15 / 6.75 s in its
    // own window, but 4 per 2 s in the long run, which R's window gives: C(2) = 4.8, C(8) = 16.8.
    CompletionRecord r;
    r.doneAt = {0, 2, 4, 6, 8};
    r.firstWarm = 2;
    r.lastWarm = 8;
    r.warmCount = 3;
    CompletionRecord f;
    f.cls = 1;
    f.doneAt = {0};
    for (int k = 0; k < 5; ++k)
    {
        for (int m = 1; m <= 4; ++m)
        {
            f.doneAt.push_back(2 * k + 0.25 * m);
        }
    }
    f.firstWarm = 2.25;
    f.lastWarm = 9;
    f.warmCount = 15;
    std::vector<double> rates = SteadyIterationRates({r, f}, 4, 9);
    EXPECT_DOUBLE_EQ(rates[0], 0.5);
    EXPECT_NEAR(rates[1], 2.0, 1e-12);
    // F's mean interval 0.45 s is 4.4 times shorter than R's: not aligned at ratio 5
    EXPECT_NEAR(SteadyIterationRates({r, f}, 5, 9)[1], 15 / 6.75, 1e-12);
    // same class, or another component: its own window
    CompletionRecord same = f;
    same.cls = 0;
    EXPECT_NEAR(SteadyIterationRates({r, same}, 4, 9)[1], 15 / 6.75, 1e-12);
    CompletionRecord apart = f;
    apart.component = 1;
    EXPECT_NEAR(SteadyIterationRates({r, apart}, 4, 9)[1], 15 / 6.75, 1e-12);
    // no whole interval: -1 (the caller's fallback)
    CompletionRecord none;
    none.doneAt = {0, 5};
    EXPECT_EQ(SteadyIterationRates({r, none}, 4, 9)[1], -1.0);
}

TEST(FlowEvaluator, AutomaticHorizonAndBadInput)
{
    ClusterModel m;
    m.links = {{8e9, "l"}};
    m.jobs = {MakeJob(1, 1e12, 1.0, 1.0, {{1e9, {0}}}), MakeJob(2, 1e12, 0.5, 1.0, {{1e9, {0}}})};
    FlowEvaluatorOptions o;
    o.horizonIterations = 10;
    EXPECT_DOUBLE_EQ(FlowEvaluator(m, o).Horizon(), 20.0); // 10 x max(2 s, 1.5 s)

    o = FlowEvaluatorOptions();
    o.horizon = -1;
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);
    o = FlowEvaluatorOptions();
    o.warmupFraction = 1;
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);
    o = FlowEvaluatorOptions();
    o.horizonIterations = 0;
    EXPECT_THROW(FlowEvaluator(m, o), std::invalid_argument);

    ClusterModel empty = m;
    empty.jobs.clear();
    EXPECT_THROW(FlowEvaluator(empty, FlowEvaluatorOptions()), std::invalid_argument);

    ClusterModel zero = m;
    zero.jobs[1].computeTime = 0;
    zero.jobs[1].flows[0].bytesPerIteration = 0;
    try
    {
        FlowEvaluator z(zero, FlowEvaluatorOptions());
        FAIL() << "a zero-length iteration was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("job id 2"), std::string::npos) << e.what();
    }

    FlowEvaluator ev(m, FlowEvaluatorOptions());
    EvaluationInput in;
    in.paths = {{0}, {0}};
    in.priority = {0};
    EXPECT_THROW(ev.Evaluate(in), std::invalid_argument); // one priority for two jobs
    in.priority = {0, 0};
    in.paths = {{0}, {1}};
    EXPECT_THROW(ev.Evaluate(in), std::invalid_argument); // path index out of range
    Decision d = Levels(m, {0, 0});
    d.jobs.erase(2);
    EXPECT_THROW(ev.Evaluate(d), std::out_of_range);
}
