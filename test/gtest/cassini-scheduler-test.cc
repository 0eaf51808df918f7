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

// CASSINI baseline (cassini-scheduler.h): per-link compatibility on the unified circle and
// affinity-graph time shifts, checked by measuring the overlap of the shifted communication
// phases on the shared links.

#include "scheduler-test-util.h"

#include "ns3/cassini-scheduler.h"
#include "ns3/comm-scheduler.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>

using namespace ns3;
using namespace ns3::test; // scheduler-test-util.h

namespace
{

/**
 * A job with one flow on 8 Gbit/s links (1e9 bytes = 1 s): compute \p compute seconds, then
 * (overlapStart = 1) communicate \p commSeconds over \p path. Stand-alone iteration time =
 * compute + commSeconds.
 */
SchedJob
PeriodicJob(uint32_t id, double compute, double commSeconds, std::vector<uint32_t> path)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = 1e12;
    j.computeTime = compute;
    j.overlapStart = 1.0;
    SchedFlow f;
    f.bytesPerIteration = commSeconds * 1e9;
    f.candidatePaths = {std::move(path)};
    j.flows = {f};
    return j;
}

/// Seconds in [0, window) during which both jobs communicate, with the decision's shifts:
/// job x communicates in [shift + ov c + n T, ... + t), T its stand-alone iteration time.
double
CommOverlap(const SchedJob& a, const SchedJob& b, const Decision& d, double window)
{
    auto intervals = [&d, window](const SchedJob& j) {
        const JobDecision& jd = d.jobs.at(j.id);
        const double period = StandaloneIterationTime(j, jd.commTime);
        std::vector<std::pair<double, double>> v;
        for (double start = jd.timeShift + j.overlapStart * j.computeTime; start < window;
             start += period)
        {
            v.emplace_back(start, std::min(window, start + jd.commTime));
        }
        return v;
    };
    double overlap = 0;
    for (const auto& x : intervals(a))
    {
        for (const auto& y : intervals(b))
        {
            overlap += std::max(0.0, std::min(x.second, y.second) - std::max(x.first, y.first));
        }
    }
    return overlap;
}

} // namespace

TEST(CassiniScheduler, ComplementaryPhasesInterleave)
{
    // Two jobs, T = 2 s each: compute [0, 1), communicate [1, 2) at the full link rate. Alone on
    // the unified circle (tick = 2/360 s, P = 360): job 1 (base, shift 0) occupies ticks
    // [180, 360); job 2 at shift s occupies [180 + s, 360 + s) mod 360: no excess only for
    // s = 180 ticks = 1 s. Then job 2 communicates while job 1 computes.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {PeriodicJob(1, 1.0, 1.0, {0}), PeriodicJob(2, 1.0, 1.0, {0})};
    SchedulerConfig c;
    std::map<uint32_t, CassiniLinkResult> links;
    Decision d = MakeDefaultDecision(m, c, "test");
    CassiniAssignTimeShifts(m, CassiniOptions(), d, &links);
    ASSERT_EQ(links.size(), 1u);
    EXPECT_EQ(links.at(0).perimeterBins, 360u);
    EXPECT_DOUBLE_EQ(links.at(0).tick, 2.0 / 360);
    EXPECT_DOUBLE_EQ(links.at(0).score, 1.0);
    EXPECT_EQ(links.at(0).baseJob, 1u);

    const Decision cassini = CreateCommScheduler("cassini")->Schedule(m, c);
    EXPECT_EQ(cassini.scheduler, "cassini");
    Decision expected = d;
    expected.scheduler = "cassini";
    EXPECT_TRUE(cassini == expected);
    EXPECT_DOUBLE_EQ(cassini.jobs.at(1).timeShift, 0.0);
    EXPECT_NEAR(cassini.jobs.at(2).timeShift, 1.0, 1e-12);
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[1], cassini, 100), 0.0, 1e-9);
    // Without shifts (ECMP) they communicate together 1 s out of every 2 s.
    const Decision ecmp = CreateCommScheduler("ecmp")->Schedule(m, c);
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[1], ecmp, 100), 50.0, 1e-9);
    // One class, default paths.
    for (const auto& [id, jd] : cassini.jobs)
    {
        EXPECT_EQ(jd.level, 0u);
        EXPECT_EQ(jd.rank, 0u);
        EXPECT_EQ(jd.flowPath.at(0), 0u);
    }
}

TEST(CassiniScheduler, DifferentPeriodsOnUnifiedCircle)
{
    // Job 1: T = 2 s (compute 1, comm 1); job 2: T = 4 s (compute 3, comm 1). Tick = 4/360 s,
    // periods 180 and 360 ticks, unified circle P = lcm = 360 ticks = 4 s. Job 1 (base)
    // occupies [90, 180) and [270, 360); job 2 at shift s occupies [270 + s, 360 + s) mod 360.
    // The smallest excess-free shift is s = 90 ticks = 1 s (job 2's arc moves to [0, 90)).
    // Trying job 2 as the base also reaches score 1, so the earlier base (job 1) is kept.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {PeriodicJob(2, 3.0, 1.0, {0}), PeriodicJob(1, 1.0, 1.0, {0})};
    std::map<uint32_t, CassiniLinkResult> links;
    Decision d = MakeDefaultDecision(m, SchedulerConfig(), "cassini");
    CassiniAssignTimeShifts(m, CassiniOptions(), d, &links);
    EXPECT_EQ(links.at(0).perimeterBins, 360u);
    EXPECT_DOUBLE_EQ(links.at(0).tick, 4.0 / 360);
    EXPECT_DOUBLE_EQ(links.at(0).score, 1.0);
    EXPECT_DOUBLE_EQ(d.jobs.at(1).timeShift, 0.0);
    EXPECT_NEAR(d.jobs.at(2).timeShift, 1.0, 1e-12);
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[1], d, 400), 0.0, 1e-9);
    EXPECT_GT(CommOverlap(m.jobs[0], m.jobs[1], CreateCommScheduler("ecmp")->Schedule(m, {}), 400),
              99.0);
}

TEST(CassiniScheduler, AffinityGraphChainsShifts)
{
    // All T = 4 s. Job 1 on L0: compute 3, comm [3, 4). Job 2 over L0 and L1 (one flow on path
    // L0, L1): compute 1, comm [1, 4). Job 3 on L1: compute 3, comm [3, 4). All at the full
    // link rate (tick 4/360 s, one tick = 1/90 s).
    //  L0: base job 1 (shift 0, arc [3, 4)); job 2's 3 s arc [1 + s, 4 + s) must avoid
    //      [3, 4), so it must be [0, 3): s = 3 s (not 1 s: the relation is asymmetric).
    //  L1: base job 2 (smaller id, shift 0, arc [1, 4)); job 3's arc [3 + s, 4 + s) must be
    //      [0, 1): s = 1 s.
    // Traversal from job 1 (shift 0): over L0, t_2 = (0 - 0 + 3) mod 4 = 3; over L1 entered
    // from job 2, t_3 = (t_2 - t_2^L1 + t_3^L1) mod 4 = (3 - 0 + 1) mod 4 = 0. Check: job 2
    // then communicates in [4, 7) = [0, 3) mod 4 and jobs 1 and 3 in [3, 4).
    ClusterModel m;
    m.links = {{8e9, "L0"}, {8e9, "L1"}};
    m.jobs = {PeriodicJob(1, 3.0, 1.0, {0}),
              PeriodicJob(2, 1.0, 3.0, {0, 1}),
              PeriodicJob(3, 3.0, 1.0, {1})};
    std::map<uint32_t, CassiniLinkResult> links;
    Decision d = MakeDefaultDecision(m, SchedulerConfig(), "cassini");
    CassiniAssignTimeShifts(m, CassiniOptions(), d, &links);
    ASSERT_EQ(links.size(), 2u);
    EXPECT_EQ(links.at(0).baseJob, 1u);
    EXPECT_NEAR(links.at(0).shift.at(2), 3.0, 1e-12);
    EXPECT_EQ(links.at(1).baseJob, 2u);
    EXPECT_NEAR(links.at(1).shift.at(3), 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(links.at(0).score, 1.0);
    EXPECT_DOUBLE_EQ(links.at(1).score, 1.0);
    EXPECT_DOUBLE_EQ(d.jobs.at(1).timeShift, 0.0);
    EXPECT_NEAR(d.jobs.at(2).timeShift, 3.0, 1e-12);
    EXPECT_NEAR(d.jobs.at(3).timeShift, 0.0, 1e-12);
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[1], d, 100), 0.0, 1e-9); // on L0
    EXPECT_NEAR(CommOverlap(m.jobs[1], m.jobs[2], d, 100), 0.0, 1e-9); // on L1
    // Jobs 1 and 3 share no link: their phases may (and do) coincide.
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[2], d, 100), 25.0, 1e-9);
}

TEST(CassiniScheduler, CycleInAffinityGraph)
{
    // Two jobs that both cross L0 and L1: the affinity graph job1-L0-job2-L1-job1 is a cycle;
    // the spanning forest keeps one link's constraint, which here satisfies both links.
    ClusterModel m;
    m.links = {{8e9, "L0"}, {8e9, "L1"}};
    m.jobs = {PeriodicJob(1, 1.0, 1.0, {0, 1}), PeriodicJob(2, 1.0, 1.0, {0, 1})};
    const Decision d = CreateCommScheduler("cassini")->Schedule(m, SchedulerConfig());
    EXPECT_DOUBLE_EQ(d.jobs.at(1).timeShift, 0.0);
    EXPECT_NEAR(d.jobs.at(2).timeShift, 1.0, 1e-12);
    EXPECT_NEAR(CommOverlap(m.jobs[0], m.jobs[1], d, 100), 0.0, 1e-9);
}

TEST(CassiniScheduler, UnavoidableOverlapAndUndersubscribedLink)
{
    // T = 2 s, compute 0.5, comm 1.5 at the full rate: arcs of 270 of 360 ticks starting at
    // tick 90. However job 2 is rotated, at least 270 + 270 - 360 = 180 ticks overlap with
    // excess B each: score = 1 - 180 B / (360 B) = 0.5. Job 2's arc covers the free ticks
    // [0, 90) for shifts 90..270; the smallest is 90 ticks = 0.5 s.
    const CassiniPattern p1{1, 2.0, 0.5, 1.5, 8e9};
    const CassiniPattern p2{2, 2.0, 0.5, 1.5, 8e9};
    const CassiniLinkResult r = CassiniLinkCompatibility({p1, p2}, 8e9, CassiniOptions());
    EXPECT_DOUBLE_EQ(r.score, 0.5);
    EXPECT_NEAR(r.shift.at(2), 0.5, 1e-12);

    // Two jobs at half the link rate each never oversubscribe it: no shared link, no shift.
    ClusterModel m;
    m.links = {{8e9, "L0"}};
    m.jobs = {PeriodicJob(1, 1.0, 0.5, {0}), PeriodicJob(2, 1.0, 0.5, {0})};
    m.jobs[0].flows[0].bytesPerIteration = 0.25e9; // 0.5 s at 4 Gbit/s (measured t_j)
    m.jobs[1].flows[0].bytesPerIteration = 0.25e9;
    m.jobs[0].measuredCommTime = 0.5;
    m.jobs[1].measuredCommTime = 0.5;
    std::map<uint32_t, CassiniLinkResult> links;
    Decision d = MakeDefaultDecision(m, SchedulerConfig(), "cassini");
    CassiniAssignTimeShifts(m, CassiniOptions(), d, &links);
    EXPECT_TRUE(links.empty());
    EXPECT_EQ(d.jobs.at(1).timeShift, 0.0);
    EXPECT_EQ(d.jobs.at(2).timeShift, 0.0);
}

TEST(CassiniScheduler, PerimeterCoarsening)
{
    // Periods 1 s and 0.37 s. Tick 1/360: 360 and 133 ticks, lcm 47880 > 5760 -> tick 2/360:
    // 180 and 67, lcm 12060 > 5760 -> tick 4/360: 90 and 33 (33.3 rounded), lcm 990.
    const CassiniPattern a{1, 1.0, 0.5, 0.5, 8e9};
    const CassiniPattern b{2, 0.37, 0.1, 0.2, 8e9};
    const CassiniLinkResult r = CassiniLinkCompatibility({a, b}, 8e9, CassiniOptions());
    EXPECT_EQ(r.perimeterBins, 990u);
    EXPECT_DOUBLE_EQ(r.tick, 4.0 / 360);
    EXPECT_LE(r.score, 1.0);
    EXPECT_GE(r.shift.at(2), 0.0);
    EXPECT_LT(r.shift.at(2), 0.37);
}

TEST(CassiniScheduler, RejectsBadInput)
{
    ExpectBadInputRejected("cassini");
    EXPECT_THROW(
        CreateCommScheduler("cassini", {{"BinsPerIteration", "0"}, {"MaxPerimeterBins", "100"}}),
        std::invalid_argument);
    EXPECT_THROW(
        CreateCommScheduler("cassini", {{"BinsPerIteration", "360"}, {"MaxPerimeterBins", "100"}}),
        std::invalid_argument);
    EXPECT_THROW(CassiniLinkCompatibility({}, 8e9, CassiniOptions()), std::invalid_argument);
    const CassiniPattern ok{1, 2.0, 0.5, 1.5, 8e9};
    EXPECT_THROW(CassiniLinkCompatibility({ok}, 0, CassiniOptions()), std::invalid_argument);
    EXPECT_THROW(CassiniLinkCompatibility({ok, ok}, 8e9, CassiniOptions()), std::invalid_argument);
    CassiniPattern bad = ok;
    bad.period = 0;
    EXPECT_THROW(CassiniLinkCompatibility({bad}, 8e9, CassiniOptions()), std::invalid_argument);
}

TEST(CassiniScheduler, DeterministicAndShiftsInRange)
{
    ExpectDeterministic("cassini");
    const ClusterModel m = RandomLeafSpine(14, 77);
    std::map<uint32_t, CassiniLinkResult> links;
    Decision d = MakeDefaultDecision(m, SchedulerConfig(), "cassini");
    CassiniAssignTimeShifts(m, CassiniOptions(), d, &links);
    EXPECT_FALSE(links.empty());
    uint32_t shifted = 0;
    for (const SchedJob& job : m.jobs)
    {
        const JobDecision& jd = d.jobs.at(job.id);
        EXPECT_GE(jd.timeShift, 0.0);
        EXPECT_LT(jd.timeShift, StandaloneIterationTime(job, jd.commTime));
        shifted += jd.timeShift > 0 ? 1 : 0;
        EXPECT_EQ(jd.level, 0u);
    }
    EXPECT_GT(shifted, 0u);
    for (const auto& [link, r] : links)
    {
        EXPECT_LE(r.score, 1.0);
        EXPECT_LE(r.perimeterBins, CassiniOptions().maxPerimeterBins);
    }
}
