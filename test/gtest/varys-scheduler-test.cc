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

// Varys baseline (varys-scheduler.h): smallest effective bottleneck first, cut into K equal
// contiguous groups, on hand-worked instances.

#include "scheduler-test-util.h"

#include "ns3/comm-scheduler.h"
#include "ns3/varys-scheduler.h"

#include <gtest/gtest.h>
#include <map>
#include <stdexcept>

using namespace ns3;
using namespace ns3::test; // scheduler-test-util.h

namespace
{

/**
 * Links of different speeds: L0 8 Gbit/s (1e9 bytes = 1 s), L1 4 Gbit/s (1e9 bytes = 2 s),
 * L2 16 Gbit/s (1e9 bytes = 0.5 s). Effective bottlenecks Γ = max_e M_e 8 / B_e:
 *   job 1: 3e9 on L0                         -> Γ = 3 s
 *   job 2: 0.5e9 on L1                       -> Γ = 1 s
 *   job 3: 1e9 over L0 and L1 (1 s, 2 s)     -> Γ = 2 s (the slow link, not the bytes)
 *   job 4: 1e9 on L2 (0.5 s), 0.25e9 on L0 (0.25 s) -> Γ = 0.5 s
 *   job 5: 2e9 on L0                         -> Γ = 2 s (ties with job 3)
 */
ClusterModel
FiveJobModel()
{
    ClusterModel m;
    m.links = {{8e9, "L0"}, {4e9, "L1"}, {16e9, "L2"}};
    m.jobs = {FlowsJob(5, {PathFlow(0, 2e9, {0})}),
              FlowsJob(1, {PathFlow(0, 3e9, {0})}),
              FlowsJob(2, {PathFlow(0, 0.5e9, {1})}),
              FlowsJob(3, {PathFlow(0, 1e9, {0, 1})}),
              FlowsJob(4, {PathFlow(0, 1e9, {2}), PathFlow(1, 0.25e9, {0})})};
    return m;
}

} // namespace

TEST(VarysScheduler, SebfOrderAndEqualGroupsByHand)
{
    const ClusterModel m = FiveJobModel();
    const std::map<uint32_t, double> gamma{{1, 3.0}, {2, 1.0}, {3, 2.0}, {4, 0.5}, {5, 2.0}};
    for (const SchedJob& job : m.jobs)
    {
        EXPECT_DOUBLE_EQ(VarysEffectiveBottleneck(m, job, DefaultPathChoice(job)), gamma.at(job.id))
            << job.id;
    }
    // SEBF: 0.5 (4), 1 (2), 2 (3), 2 (5, tie -> larger id later), 3 (1).
    SchedulerConfig c;
    c.numLevels = 2;
    const Decision two = CreateCommScheduler("varys")->Schedule(m, c);
    EXPECT_EQ(two.scheduler, "varys");
    EXPECT_EQ(two.PriorityOrder(), (std::vector<uint32_t>{4, 2, 3, 5, 1}));
    EXPECT_FALSE(two.uniquePriorities);
    // K = 2, n = 5: group floor(2r/5) = 0, 0, 0, 1, 1 -> jobs 4, 2, 3 high, 5, 1 low.
    const std::map<uint32_t, uint32_t> levels2{{4, 1}, {2, 1}, {3, 1}, {5, 0}, {1, 0}};
    for (const auto& [id, level] : levels2)
    {
        EXPECT_EQ(two.LevelOf(id), level) << id;
    }
    // K = 3: floor(3r/5) = 0, 0, 1, 1, 2 -> levels 2, 2, 1, 1, 0.
    c.numLevels = 3;
    const Decision three = CreateCommScheduler("varys")->Schedule(m, c);
    const std::map<uint32_t, uint32_t> levels3{{4, 2}, {2, 2}, {3, 1}, {5, 1}, {1, 0}};
    for (const auto& [id, level] : levels3)
    {
        EXPECT_EQ(three.LevelOf(id), level) << id;
    }
    // K = 8 >= n: one level per job, highest first: 7, 6, 5, 4, 3.
    c.numLevels = 8;
    const Decision eight = CreateCommScheduler("varys")->Schedule(m, c);
    const std::vector<uint32_t> order{4, 2, 3, 5, 1};
    for (uint32_t r = 0; r < order.size(); ++r)
    {
        EXPECT_EQ(eight.LevelOf(order[r]), 7u - r);
    }
}

TEST(VarysScheduler, Figure13FourJobsOnTwoLevels)
{
    // Four jobs on one 8 Gbit/s link with 1, 2, 3, 4 s of traffic: SEBF order 1, 2, 3, 4 (so
    // does BSSI, which is shortest-first on one link). On 2 levels Crux Fig. 13 describes
    // Varys as "jobs 1-2 high, 3-4 low" and Sincronia as "only job 1 high".
    ClusterModel m;
    m.links = {{8e9, "L0"}};
    for (uint32_t id = 1; id <= 4; ++id)
    {
        m.jobs.push_back(FlowsJob(id, {PathFlow(0, id * 1e9, {0})}));
    }
    SchedulerConfig c;
    c.numLevels = 2;
    const Decision varys = CreateCommScheduler("varys")->Schedule(m, c);
    const Decision sincronia = CreateCommScheduler("sincronia")->Schedule(m, c);
    EXPECT_EQ(varys.PriorityOrder(), (std::vector<uint32_t>{1, 2, 3, 4}));
    EXPECT_EQ(sincronia.PriorityOrder(), (std::vector<uint32_t>{1, 2, 3, 4}));
    const std::vector<uint32_t> varysLevels{1, 1, 0, 0};
    const std::vector<uint32_t> sincroniaLevels{1, 0, 0, 0};
    for (uint32_t id = 1; id <= 4; ++id)
    {
        EXPECT_EQ(varys.LevelOf(id), varysLevels[id - 1]) << id;
        EXPECT_EQ(sincronia.LevelOf(id), sincroniaLevels[id - 1]) << id;
    }
}

TEST(VarysScheduler, EqualGroupLevelTable)
{
    // n = 10, K = 4: floor(4p/10) = 0,0,0,1,1,2,2,2,3,3 -> group sizes 3,2,3,2.
    const std::vector<uint32_t> expected{3, 3, 3, 2, 2, 1, 1, 1, 0, 0};
    for (uint32_t p = 0; p < 10; ++p)
    {
        EXPECT_EQ(EqualGroupLevel(p, 10, 4), expected[p]) << p;
    }
    // n = 3 <= K = 8: own levels 7, 6, 5.   K = 1: everything at level 0.
    EXPECT_EQ(EqualGroupLevel(0, 3, 8), 7u);
    EXPECT_EQ(EqualGroupLevel(2, 3, 8), 5u);
    EXPECT_EQ(EqualGroupLevel(4, 5, 1), 0u);
    EXPECT_THROW(EqualGroupLevel(0, 3, 0), std::invalid_argument);
    EXPECT_THROW(EqualGroupLevel(3, 3, 2), std::invalid_argument);
}

TEST(VarysScheduler, RejectsBadInput)
{
    ExpectBadInputRejected("varys");
    Decision d;
    d.numLevels = 0;
    EXPECT_THROW(VarysCompressPriorities(d), std::invalid_argument);
}

TEST(VarysScheduler, DeterministicAndOrdered)
{
    ExpectDeterministic("varys");
    const ClusterModel m = RandomLeafSpine(14, 77);
    SchedulerConfig c;
    c.numLevels = 4;
    const Decision d = CreateCommScheduler("varys")->Schedule(m, c);
    const std::vector<uint32_t> order = d.PriorityOrder();
    std::map<uint32_t, const SchedJob*> byId;
    for (const SchedJob& job : m.jobs)
    {
        byId[job.id] = &job;
    }
    double prevGamma = 0;
    uint32_t prevLevel = c.numLevels - 1;
    std::map<uint32_t, uint32_t> groupSize;
    for (uint32_t id : order)
    {
        const SchedJob& job = *byId.at(id);
        const double g = VarysEffectiveBottleneck(m, job, DefaultPathChoice(job));
        EXPECT_GE(g, prevGamma);
        EXPECT_LE(d.LevelOf(id), prevLevel);
        prevGamma = g;
        prevLevel = d.LevelOf(id);
        ++groupSize[prevLevel];
    }
    // 14 jobs on 4 levels: groups of 4, 3, 4, 3 (floor(4r/14)).
    EXPECT_EQ(groupSize, (std::map<uint32_t, uint32_t>{{3, 4}, {2, 3}, {1, 4}, {0, 3}}));
}
