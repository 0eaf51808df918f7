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

// Two jobs alone on one link with strict priority (Crux §4.2, Example 1 and the k_j rule).

#include "ns3/crux-scheduler.h"
#include "ns3/double.h"
#include "ns3/shared-link-timeline.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>
#include <random>

using namespace ns3;

namespace
{

/// Job 1 of Crux Example 1: W = 10 GFLOP, compute 2 s, traffic 2 s, 10 GPUs, no overlap.
TimelineJob
Example1Job1()
{
    return TimelineJob{2.0, 2.0, 1.0, 10, 10e9};
}

/// Job 2 of Crux Example 1: W = 5 GFLOP, compute 1 s, traffic 1 s, 10 GPUs, no overlap.
TimelineJob
Example1Job2()
{
    return TimelineJob{1.0, 1.0, 1.0, 10, 5e9};
}

/// Result of the slotted reference simulation: link slots and completed iterations per job.
struct SlottedResult
{
    std::array<int64_t, 2> sentSlots{};  //!< slots the link sent job x's data
    std::array<uint64_t, 2> completed{}; //!< completed iterations
};

/**
 * Independent reference: a slotted simulation in integer time units (all phase lengths are
 * whole numbers of slots, so it is exact for such inputs). c, ovc, t in slots.
 */
SlottedResult
SlottedSimulation(std::array<int64_t, 2> c,
                  std::array<int64_t, 2> ovc,
                  std::array<int64_t, 2> t,
                  int high,
                  int64_t horizon)
{
    SlottedResult r;
    std::array<int64_t, 2> elapsed{}; // slots since the iteration started
    std::array<int64_t, 2> sent{};    // slots of comm sent this iteration
    for (int64_t now = 0; now <= horizon; ++now)
    {
        for (int x = 0; x < 2; ++x)
        {
            // an iteration ends when its compute and comm are both complete
            while (elapsed[x] >= c[x] && sent[x] >= t[x] && elapsed[x] > 0)
            {
                r.completed[x]++;
                elapsed[x] = 0;
                sent[x] = 0;
            }
        }
        if (now == horizon)
        {
            break;
        }
        int sender = -1;
        for (int x : {high, 1 - high})
        {
            if (elapsed[x] >= ovc[x] && sent[x] < t[x])
            {
                sender = x;
                break;
            }
        }
        if (sender >= 0)
        {
            sent[sender]++;
            r.sentSlots[sender]++;
        }
        elapsed[0]++;
        elapsed[1]++;
    }
    return r;
}

/// Slot length of the slotted reference runs, s.
constexpr double SLOT = 0.25;

/// Two random jobs in whole slots (compute even, so that half of it is a whole slot count;
/// overlap start 0, 1/2 or 1) for the slotted reference, and the same jobs in seconds.
struct SlottedPair
{
    std::array<int64_t, 2> c{};      //!< compute, slots
    std::array<int64_t, 2> ovc{};    //!< communication release, slots
    std::array<int64_t, 2> t{};      //!< link time, slots
    std::array<TimelineJob, 2> jobs; //!< the same jobs in seconds

    /// \param rng the generator (draws compute, link time, overlap per job)
    explicit SlottedPair(std::mt19937_64& rng)
    {
        std::uniform_int_distribution<int64_t> len(1, 12);
        std::uniform_int_distribution<int> ovPick(0, 2);
        for (int x = 0; x < 2; ++x)
        {
            c[x] = 2 * len(rng);
            t[x] = len(rng);
            const int ov = ovPick(rng);
            ovc[x] = ov * c[x] / 2;
            jobs[x] = TimelineJob{c[x] * SLOT, t[x] * SLOT, ov / 2.0, 4, 1e9};
        }
    }
};

} // namespace

TEST(CruxSharedLinkTimeline, MatchesSlottedReferenceOnRandomPairs)
{
    std::mt19937_64 rng(99);
    std::uniform_int_distribution<int64_t> len(1, 12);
    for (int inst = 0; inst < 300; ++inst)
    {
        const SlottedPair pair(rng);
        const auto& [c, ovc, t, jobs] = pair;
        const int64_t horizon = 40 + len(rng) * 10;
        for (int high = 0; high < 2; ++high)
        {
            const SlottedResult ref = SlottedSimulation(c, ovc, t, high, horizon);
            const TimelineResult r = SimulateSharedLink(jobs, high, horizon * SLOT);
            for (int x = 0; x < 2; ++x)
            {
                ASSERT_NEAR(r.sendTime[x], ref.sentSlots[x] * SLOT, 1e-9)
                    << "instance " << inst << " high " << high << " job " << x;
                ASSERT_EQ(r.completedIterations[x], ref.completed[x])
                    << "instance " << inst << " high " << high << " job " << x;
            }
        }
    }
}

TEST(CruxSharedLinkTimeline, PaperExample1)
{
    const std::array<TimelineJob, 2> jobs = {Example1Job1(), Example1Job2()};
    // (A) job 1 has priority
    TimelineResult a = SimulateSharedLink(jobs, 0, 12.0);
    EXPECT_DOUBLE_EQ(a.sendTime[0], 6.0);
    EXPECT_DOUBLE_EQ(a.sendTime[1], 3.0);
    EXPECT_EQ(a.completedIterations[0], 3u);
    EXPECT_EQ(a.completedIterations[1], 3u);
    EXPECT_DOUBLE_EQ(a.gpuBusySeconds[0] + a.gpuBusySeconds[1], 90.0);
    EXPECT_NEAR(a.utilization, 0.375, 1e-12);
    // (B) job 2 has priority
    TimelineResult b = SimulateSharedLink(jobs, 1, 12.0);
    EXPECT_DOUBLE_EQ(b.sendTime[0], 4.0);
    EXPECT_DOUBLE_EQ(b.sendTime[1], 6.0);
    EXPECT_EQ(b.completedIterations[0], 2u);
    EXPECT_EQ(b.completedIterations[1], 6u);
    EXPECT_NEAR(b.utilization, 10.0 / 24.0, 1e-12); // 41.7 %
    EXPECT_DOUBLE_EQ(b.completedFlops[1], 30e9);

    // k_2 with job 1 as the reference: Δ_ref = 6 - 4 = 2, Δ_2 = 6 - 3 = 3.
    CorrectionFactor cf = ComputeCorrectionFactor(Example1Job1(), Example1Job2(), 12.0, 100);
    EXPECT_EQ(cf.method, CorrectionMethod::DELTA_RATIO);
    EXPECT_DOUBLE_EQ(cf.deltaRef, 2.0);
    EXPECT_DOUBLE_EQ(cf.deltaJob, 3.0);
    EXPECT_DOUBLE_EQ(cf.k, 1.5);
    // The computation-gain form agrees: G_ref = 1 × 10 GFLOP, G_2 = 3 × 5 GFLOP, equal I.
    EXPECT_DOUBLE_EQ(cf.gainRef, 10e9);
    EXPECT_DOUBLE_EQ(cf.gainJob, 15e9);
}

TEST(CruxSharedLinkTimeline, DefaultHorizonAlsoGivesOnePointFive)
{
    // [D3]: 48 iterations of the longer job (4 s alone) = 192 s. Job 1 first: job 1 sends
    // half the time (96 s), job 2 a quarter (48 s). Job 2 first: job 2 sends 96 s, job 1 4 s
    // in the first 12 s then 2 s every 6 s (64 s).
    // The default of the attribute ns3::CruxIntensityPriorities::HorizonIterations.
    DoubleValue defaultIterations;
    CreateObject<CruxIntensityPriorities>()->GetAttribute("HorizonIterations", defaultIterations);
    const double h = CorrectionHorizon(Example1Job1(), Example1Job2(), defaultIterations.Get());
    EXPECT_DOUBLE_EQ(h, 192.0);
    CorrectionFactor cf = ComputeCorrectionFactor(Example1Job1(), Example1Job2(), h, 100);
    EXPECT_DOUBLE_EQ(cf.refFirst.sendTime[0], 96.0);
    EXPECT_DOUBLE_EQ(cf.refFirst.sendTime[1], 48.0);
    EXPECT_DOUBLE_EQ(cf.jobFirst.sendTime[0], 64.0);
    EXPECT_DOUBLE_EQ(cf.jobFirst.sendTime[1], 96.0);
    EXPECT_DOUBLE_EQ(cf.deltaRef, 32.0);
    EXPECT_DOUBLE_EQ(cf.deltaJob, 48.0);
    EXPECT_DOUBLE_EQ(cf.k, 1.5);
    // A horizon that is not a multiple of the 12 s pattern is close but not exact.
    EXPECT_NEAR(ComputeCorrectionFactor(Example1Job1(), Example1Job2(), 100.0, 100).k, 1.5, 0.05);
}

TEST(CruxSharedLinkTimeline, PrioritizedJobRunsAsIfAlone)
{
    // Job 0: compute 3 s, comm 1 s starting after 1 s of compute -> 3 s per iteration alone.
    // Job 1 saturates the link with low priority; job 0 must still finish 10 iterations in
    // 30 s, and the link must never idle while job 1 has data.
    TimelineJob j0{3.0, 1.0, 1.0 / 3.0, 4, 1e9};
    TimelineJob j1{0.0, 5.0, 0.0, 4, 1e9};
    TimelineResult r = SimulateSharedLink({j0, j1}, 0, 30.0);
    EXPECT_EQ(r.completedIterations[0], 10u);
    EXPECT_DOUBLE_EQ(r.sendTime[0], 10.0);
    EXPECT_DOUBLE_EQ(r.sendTime[0] + r.sendTime[1], 30.0);
    EXPECT_EQ(r.completedIterations[1], 4u); // 20 s of link time, 5 s per iteration
}

TEST(CruxSharedLinkTimeline, RejectsBadInput)
{
    EXPECT_THROW(SimulateSharedLink({Example1Job1(), Example1Job2()}, 2, 12),
                 std::invalid_argument);
    EXPECT_THROW(SimulateSharedLink({Example1Job1(), Example1Job2()}, 0, 0), std::invalid_argument);
    TimelineJob empty{0, 0, 1, 1, 0};
    EXPECT_THROW(SimulateSharedLink({empty, Example1Job2()}, 0, 12), std::invalid_argument);
    TimelineJob bad{1, 1, 2, 1, 0};
    EXPECT_THROW(SimulateSharedLink({bad, Example1Job2()}, 0, 12), std::invalid_argument);
}

TEST(CruxSharedLinkTimeline, CorrectionGuards)
{
    // The reference's traffic is fully hidden behind a long computation and the link is
    // otherwise idle most of the time: neither job gains anything from priority -> k = 1.
    TimelineJob ref{10.0, 1.0, 0.0, 8, 1e12};
    TimelineJob small{10.0, 0.5, 0.0, 8, 1e12};
    CorrectionFactor cf = ComputeCorrectionFactor(ref, small, 120.0, 100);
    EXPECT_EQ(cf.method, CorrectionMethod::INDIFFERENT);
    EXPECT_DOUBLE_EQ(cf.k, 1.0);

    // Only job j gains: its traffic is exposed and it competes with a reference whose
    // traffic is hidden behind compute (the reference loses nothing when deprioritised).
    TimelineJob exposed{0.5, 1.0, 1.0, 8, 1e12};
    cf = ComputeCorrectionFactor(ref, exposed, 120.0, 100);
    EXPECT_EQ(cf.method, CorrectionMethod::ONLY_JOB_GAINS);
    EXPECT_DOUBLE_EQ(cf.k, 100.0);
    EXPECT_DOUBLE_EQ(cf.deltaRef, 0.0);
    EXPECT_GT(cf.deltaJob, 0.0);
}

namespace
{

/// A random job with \p phases communication phases (releases, chains with lags, link times)
/// of times in 1/7 s units, so iteration times are rarely commensurate.
TimelineJob
RandomPhasedJob(std::mt19937_64& rng, uint32_t phases)
{
    std::uniform_real_distribution<double> u(0.05, 1.0);
    TimelineJob j;
    j.computeTime = 1 + 3 * u(rng);
    j.numGpus = 8;
    j.flopsPerIteration = 1e12;
    for (uint32_t p = 0; p < phases; ++p)
    {
        TimelinePhase ph;
        ph.release = j.computeTime * u(rng) * 0.8;
        ph.linkTime = 0.4 * u(rng);
        if (p > 0 && u(rng) < 0.6)
        {
            ph.deps.push_back(SchedPhaseDep{p - 1, 0.1 * u(rng)});
        }
        j.commTime += ph.linkTime;
        j.phases.push_back(ph);
    }
    j.endDeps.push_back(SchedPhaseDep{phases - 1, 0.05});
    return j;
}

} // namespace

TEST(CruxSharedLinkTimeline, SkippedPeriodsMatchTheSlottedReferenceOverLongHorizons)
{
    // Whole periods skipped (the default) against the independent slotted simulation, which
    // takes every slot, over horizons of thousands of iterations.
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int64_t> len(1, 12);
    uint32_t skipped = 0;
    for (int inst = 0; inst < 60; ++inst)
    {
        const SlottedPair pair(rng);
        const auto& [c, ovc, t, jobs] = pair;
        const int64_t horizon = 20000 + len(rng) * 1000;
        for (int high = 0; high < 2; ++high)
        {
            const SlottedResult ref = SlottedSimulation(c, ovc, t, high, horizon);
            const TimelineResult r = SimulateSharedLink(jobs, high, horizon * SLOT);
            const TimelineResult full =
                SimulateSharedLink(jobs, high, horizon * SLOT, SharedLinkRun::FULL);
            skipped += r.events < full.events / 4 ? 1 : 0;
            for (int x = 0; x < 2; ++x)
            {
                ASSERT_NEAR(r.sendTime[x], ref.sentSlots[x] * SLOT, 1e-6)
                    << "instance " << inst << " high " << high << " job " << x;
                ASSERT_EQ(r.completedIterations[x], ref.completed[x])
                    << "instance " << inst << " high " << high << " job " << x;
            }
        }
    }
    EXPECT_GE(skipped, 100u) << "of 120 runs, those that took under a quarter of the events";
}

TEST(CruxSharedLinkTimeline, SkippedPeriodsMatchTheFullRunWithPhases)
{
    // Jobs with phase DAGs (releases, dependencies with lags, end dependencies): the default
    // run against SharedLinkRun::FULL, every event, on the same inputs.
    std::mt19937_64 rng(11);
    uint32_t skipped = 0;
    uint32_t runs = 0;
    for (int inst = 0; inst < 80; ++inst)
    {
        const std::array<TimelineJob, 2> jobs = {RandomPhasedJob(rng, 1 + inst % 6),
                                                 RandomPhasedJob(rng, 1 + (inst / 6) % 5)};
        const double horizon = 500.0 * (1 + inst % 4);
        for (uint32_t high = 0; high < 2; ++high)
        {
            const TimelineResult r = SimulateSharedLink(jobs, high, horizon);
            const TimelineResult full =
                SimulateSharedLink(jobs, high, horizon, SharedLinkRun::FULL);
            ++runs;
            skipped += r.events < full.events / 2 ? 1 : 0;
            for (int x = 0; x < 2; ++x)
            {
                EXPECT_EQ(r.completedIterations[x], full.completedIterations[x])
                    << "instance " << inst << " high " << high << " job " << x;
                EXPECT_NEAR(r.sendTime[x], full.sendTime[x], 1e-9 * horizon)
                    << "instance " << inst << " high " << high << " job " << x;
            }
            EXPECT_NEAR(r.utilization, full.utilization, 1e-12);
        }
    }
    EXPECT_GE(skipped, runs / 4) << "runs that took under half of the events (72 of 160)";
}

TEST(CruxSharedLinkTimeline, EventsBoundedWhenTheHorizonDoubles)
{
    // The cost of a run that becomes periodic: the transient plus at most two periods, so
    // doubling the horizon adds no events (up to the one period's alignment); the full run's
    // events double.
    const std::array<TimelineJob, 2> jobs = {Example1Job1(), Example1Job2()};
    for (uint32_t high = 0; high < 2; ++high)
    {
        const TimelineResult h = SimulateSharedLink(jobs, high, 4000);
        const TimelineResult h2 = SimulateSharedLink(jobs, high, 8000);
        const TimelineResult full = SimulateSharedLink(jobs, high, 4000, SharedLinkRun::FULL);
        const TimelineResult full2 = SimulateSharedLink(jobs, high, 8000, SharedLinkRun::FULL);
        EXPECT_LE(h.events, 50u) << "high " << high;
        EXPECT_LE(h2.events, h.events + 10) << "high " << high;
        EXPECT_GE(full2.events, 2 * full.events - 2) << "high " << high;
        EXPECT_EQ(h2.completedIterations, full2.completedIterations) << "high " << high;
    }
}

TEST(CruxSharedLinkTimeline, SkippedPeriodsProcessWhatFallsDueAtTheNewTime)
{
    // Two identical jobs (0.4 s compute, 0.24 s of link time released at 20 %) over 48
    // iterations: the high-priority job runs as if alone and completes all 48. The skip's shift
    // once left its iteration end a rounding error before the new time, where no event looked
    // for it, and the run lost that iteration (47; break-it review).
    const TimelineJob j{0.4, 0.24, 0.2, 1, 1e9};
    for (const SharedLinkRun run : {SharedLinkRun::SKIP_PERIODS, SharedLinkRun::FULL})
    {
        const TimelineResult r = SimulateSharedLink({j, j}, 0, 19.2, run);
        EXPECT_EQ(r.completedIterations[0], 48u);
        EXPECT_EQ(r.completedIterations[1], 24u);
    }
}

TEST(CruxSharedLinkTimeline, SkippedPeriodsOnTiesAgainstAnExactReference)
{
    // Decimal times (1/100 s) where one job's communication can exactly fill a gap of the other
    // job's: a rounding error decides whether the phase is preempted, so the floating-point run
    // is off by whole iterations on some inputs, the full one (every event, rounding
    // accumulating) and the skipped one alike. The same inputs scaled to whole numbers (x 1000)
    // are computed exactly. Skipping must not be worse than the full run: it carries a
    // period only after one more whole period repeated with the same length and iterations.
    std::mt19937_64 rng(42);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    uint32_t fullOff = 0;
    uint32_t skipOff = 0;
    for (int i = 0; i < 1000; ++i)
    {
        const int ac = pick(1, 99);
        const int at = pick(1, 99);
        const double ao = 0.5 * pick(0, 2); // dyadic: overlapStart x computeTime stays exact
        const int bc = pick(1, 300);
        const int bt = pick(1, 99);
        const double bo = 0.5 * pick(0, 2);
        const std::array<TimelineJob, 2> dec = {TimelineJob{ac / 100.0, at / 100.0, ao, 1, 1e9},
                                                TimelineJob{bc / 100.0, bt / 100.0, bo, 1, 1e9}};
        const std::array<TimelineJob, 2> whole = {TimelineJob{ac * 10.0, at * 10.0, ao, 1, 1e9},
                                                  TimelineJob{bc * 10.0, bt * 10.0, bo, 1, 1e9}};
        auto iteration = [](const TimelineJob& j) {
            return std::max(j.computeTime, j.overlapStart * j.computeTime + j.commTime);
        };
        const double h = 48 * std::max(iteration(whole[0]), iteration(whole[1]));
        for (uint32_t high = 0; high < 2; ++high)
        {
            const TimelineResult exact = SimulateSharedLink(whole, high, h, SharedLinkRun::FULL);
            const TimelineResult full =
                SimulateSharedLink(dec, high, h / 1000, SharedLinkRun::FULL);
            const TimelineResult skip = SimulateSharedLink(dec, high, h / 1000);
            fullOff += full.completedIterations != exact.completedIterations ? 1 : 0;
            skipOff += skip.completedIterations != exact.completedIterations ? 1 : 0;
        }
    }
    EXPECT_LE(skipOff, fullOff) << "of 2,000 runs off the exact iterations";
    EXPECT_LE(skipOff, 40u) << "of 2,000 runs off the exact iterations";
    std::cout << "off the exact iterations: full " << fullOff << ", skipped " << skipOff
              << " of 2000 runs\n";
}
