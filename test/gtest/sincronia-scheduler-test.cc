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

// Sincronia baseline (sincronia-scheduler.h): BSSI order over per-link loads and the
// "top K-1 jobs get their own level" rule, on hand-worked instances.

#include "scheduler-test-util.h"

#include "ns3/comm-scheduler.h"
#include "ns3/sincronia-scheduler.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

using namespace ns3;
using namespace ns3::test; // scheduler-test-util.h

namespace
{

/// A job with one flow (id 0) of \p bytes over the single candidate path \p path
/// (1e12 FLOPs, 1 s compute: see FlowsJob).
SchedJob
PathJob(uint32_t id, double bytes, std::vector<uint32_t> path)
{
    return FlowsJob(id, {PathFlow(0, bytes, std::move(path))});
}

/**
 * Two 8 Gbit/s links (1e9 bytes = 1 s). Per-link loads d_j^e in seconds:
 *   job 1: L0 1      job 2: L0 2      job 3: L1 3
 *   job 4: L0 1, L1 1 (one flow over both links)      job 5: L1 0.5
 */
ClusterModel
FiveJobModel()
{
    ClusterModel m;
    m.links = {{8e9, "L0"}, {8e9, "L1"}};
    m.jobs = {PathJob(1, 1e9, {0}),
              PathJob(2, 2e9, {0}),
              PathJob(3, 3e9, {1}),
              PathJob(4, 1e9, {0, 1}),
              PathJob(5, 0.5e9, {1})};
    return m;
}

} // namespace

TEST(SincroniaScheduler, FiveJobsBssiByHand)
{
    // BSSI by hand (weights 1), building the order from the back:
    //  k=5: loads L0 = 1+2+1 = 4, L1 = 3+1+0.5 = 4.5 -> bottleneck L1.
    //       w/d on L1: job 3 1/3, job 4 1/1, job 5 1/0.5 -> job 3 goes last.
    //       scale: w4 = 1 - 1*(1/3) = 2/3, w5 = 1 - 1*(0.5/3) = 5/6 (jobs 1, 2 keep 1).
    //  k=4: L0 = 1+2+1 = 4, L1 = 1+0.5 = 1.5 -> L0. w/d: job 1 1, job 2 1/2, job 4 2/3
    //       -> job 2 last. scale: w1 = 1 - 1/2 = 1/2, w4 = 2/3 - 1/2 = 1/6.
    //  k=3: L0 = 1+1 = 2, L1 = 1.5 -> L0. w/d: job 1 1/2, job 4 1/6 -> job 4.
    //       scale: w1 = 1/2 - 1/6 = 1/3.
    //  k=2: L0 = 1, L1 = 0.5 -> L0; only job 1 is on L0 -> job 1.   k=1: job 5.
    // Order: 5, 1, 4, 2, 3.
    const ClusterModel m = FiveJobModel();
    SchedulerConfig c;
    c.numLevels = 3;
    const Decision d = CreateCommScheduler("sincronia")->Schedule(m, c);
    EXPECT_EQ(d.scheduler, "sincronia");
    EXPECT_EQ(d.PriorityOrder(), (std::vector<uint32_t>{5, 1, 4, 2, 3}));
    // K = 3: the top K-1 = 2 jobs get levels 2 and 1, the other three share level 0.
    EXPECT_EQ(d.LevelOf(5), 2u);
    EXPECT_EQ(d.LevelOf(1), 1u);
    EXPECT_EQ(d.LevelOf(4), 0u);
    EXPECT_EQ(d.LevelOf(2), 0u);
    EXPECT_EQ(d.LevelOf(3), 0u);
    EXPECT_FALSE(d.uniquePriorities);
    for (const auto& [id, jd] : d.jobs)
    {
        EXPECT_EQ(jd.flowPath.at(0), 0u); // ECMP default path
        EXPECT_EQ(jd.timeShift, 0.0);
    }

    // The free function on the same loads gives the same order.
    std::vector<uint32_t> ids;
    std::vector<std::map<uint32_t, double>> loads;
    for (const SchedJob& job : m.jobs)
    {
        ids.push_back(job.id);
        loads.push_back(JobLinkTimes(m, job, DefaultPathChoice(job)));
    }
    EXPECT_EQ(loads[3], (std::map<uint32_t, double>{{0, 1.0}, {1, 1.0}}));
    EXPECT_EQ(SincroniaBssiOrder(ids, loads), (std::vector<uint32_t>{5, 1, 4, 2, 3}));

    // K = 2: only the first job is high (Crux Fig. 13's description of Sincronia).
    c.numLevels = 2;
    const Decision two = CreateCommScheduler("sincronia")->Schedule(m, c);
    EXPECT_EQ(two.LevelOf(5), 1u);
    for (uint32_t id : {1u, 4u, 2u, 3u})
    {
        EXPECT_EQ(two.LevelOf(id), 0u) << id;
    }
    // K = 1: one class.   K = 8 > 5 jobs: every job its own level, 7, 6, 5, 4, 3.
    c.numLevels = 1;
    for (const auto& [id, jd] : CreateCommScheduler("sincronia")->Schedule(m, c).jobs)
    {
        EXPECT_EQ(jd.level, 0u);
    }
    c.numLevels = 8;
    const Decision eight = CreateCommScheduler("sincronia")->Schedule(m, c);
    const std::vector<uint32_t> order{5, 1, 4, 2, 3};
    for (uint32_t r = 0; r < order.size(); ++r)
    {
        EXPECT_EQ(eight.LevelOf(order[r]), 7u - r);
    }
}

TEST(SincroniaScheduler, TieBreaksAndIdleJobs)
{
    ClusterModel m;
    m.links = {{8e9, "L0"}, {8e9, "L1"}};
    // Equal bottleneck loads on L0 and L1 (1 s each): the lowest link id (L0) is the
    // bottleneck, so its only job (id 2) goes last; job 1 (alone on L1) before it.
    // Job 3 sends nothing: it goes first ([S4]).
    m.jobs = {PathJob(2, 1e9, {0}), PathJob(1, 1e9, {1}), PathJob(3, 0, {0})};
    Decision d = CreateCommScheduler("sincronia")->Schedule(m, SchedulerConfig());
    EXPECT_EQ(d.PriorityOrder(), (std::vector<uint32_t>{3, 1, 2}));

    // Two identical jobs on one link: equal w/d -> the larger id goes last (FIFO by id).
    m.jobs = {PathJob(8, 1e9, {0}), PathJob(6, 1e9, {0})};
    d = CreateCommScheduler("sincronia")->Schedule(m, SchedulerConfig());
    EXPECT_EQ(d.PriorityOrder(), (std::vector<uint32_t>{6, 8}));
}

TEST(SincroniaScheduler, WeightsAndSingleLinkSrpt)
{
    // One link, loads 1 s and 2 s. Weights 1: w/d = 1 and 1/2 -> the 2 s job goes last
    // (shortest first). Weight 4 on the 2 s job: w/d = 1 and 2 -> the 1 s job goes last.
    const std::vector<std::map<uint32_t, double>> loads{{{0, 1.0}}, {{0, 2.0}}};
    EXPECT_EQ(SincroniaBssiOrder({1, 2}, loads), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(SincroniaBssiOrder({1, 2}, loads, {1.0, 4.0}), (std::vector<uint32_t>{2, 1}));

    // On a single link with unit weights BSSI is shortest-processing-time first: check on
    // 20 random jobs (distinct loads) against a plain sort.
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> u(0.1, 10);
    std::vector<uint32_t> ids;
    std::vector<std::map<uint32_t, double>> one;
    std::vector<std::pair<double, uint32_t>> bySize;
    for (uint32_t i = 0; i < 20; ++i)
    {
        const double d = u(rng);
        ids.push_back(100 + i);
        one.push_back({{3, d}});
        bySize.emplace_back(d, 100 + i);
    }
    std::sort(bySize.begin(), bySize.end());
    std::vector<uint32_t> spt;
    for (const auto& [d, id] : bySize)
    {
        spt.push_back(id);
    }
    EXPECT_EQ(SincroniaBssiOrder(ids, one), spt);
}

TEST(SincroniaScheduler, RejectsBadInput)
{
    ExpectBadInputRejected("sincronia");
    EXPECT_THROW(SincroniaBssiOrder({1, 1}, {{}, {}}), std::invalid_argument);
    EXPECT_THROW(SincroniaBssiOrder({1, 2}, {{}}), std::invalid_argument);
    EXPECT_THROW(SincroniaBssiOrder({1}, {{{0, -1.0}}}), std::invalid_argument);
    EXPECT_THROW(SincroniaBssiOrder({1}, {{{0, 1.0}}}, {0.0}), std::invalid_argument);
    Decision d;
    d.numLevels = 0;
    EXPECT_THROW(SincroniaCompressPriorities(d), std::invalid_argument);
}

TEST(SincroniaScheduler, DeterministicAndRuleHolds)
{
    ExpectDeterministic("sincronia");
    const ClusterModel m = RandomLeafSpine(14, 77);
    SchedulerConfig c;
    c.numLevels = 4;
    const Decision d = CreateCommScheduler("sincronia")->Schedule(m, c);
    std::set<uint32_t> ranks;
    for (const SchedJob& job : m.jobs)
    {
        const JobDecision& jd = d.jobs.at(job.id);
        ranks.insert(jd.rank);
        EXPECT_EQ(jd.level, jd.rank < 3 ? 3 - jd.rank : 0u);
        EXPECT_EQ(ChoiceOf(job, jd), DefaultPathChoice(job));
    }
    EXPECT_EQ(ranks.size(), m.jobs.size());
}
