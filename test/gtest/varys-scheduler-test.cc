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

#include "ns3/comm-scheduler.h"
#include "ns3/varys-scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// A flow of \p bytes over the single candidate path \p path.
SchedFlow
PathFlow(uint32_t id, double bytes, std::vector<uint32_t> path)
{
    SchedFlow f;
    f.id = id;
    f.bytesPerIteration = bytes;
    f.candidatePaths = {std::move(path)};
    return f;
}

/// A job with the given flows.
SchedJob
FlowsJob(uint32_t id, std::vector<SchedFlow> flows)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = 1e12;
    j.computeTime = 1.0;
    j.flows = std::move(flows);
    return j;
}

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

/**
 * A random leaf-spine model: 4 ToRs x 4 hosts, 3 aggregation switches, 100 Gbit/s links;
 * numJobs jobs with ring traffic over 2-4 random hosts and random ECMP defaults.
 */
ClusterModel
RandomLeafSpine(uint32_t numJobs, uint64_t seed)
{
    const uint32_t numTor = 4;
    const uint32_t numAgg = 3;
    const uint32_t hostsPerTor = 4;
    const uint32_t numHosts = numTor * hostsPerTor;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    ClusterModel m;
    // Link ids: host h up = 2h, down = 2h+1; ToR t -> agg a = base + 2(t numAgg + a), back +1.
    for (uint32_t h = 0; h < numHosts; ++h)
    {
        m.links.push_back({100e9, "h" + std::to_string(h) + "-up"});
        m.links.push_back({100e9, "h" + std::to_string(h) + "-down"});
    }
    const uint32_t base = static_cast<uint32_t>(m.links.size());
    for (uint32_t i = 0; i < numTor * numAgg; ++i)
    {
        m.links.push_back({100e9, "tor-agg" + std::to_string(i)});
        m.links.push_back({100e9, "agg-tor" + std::to_string(i)});
    }
    for (uint32_t j = 0; j < numJobs; ++j)
    {
        SchedJob job;
        job.id = 10 + j;
        job.flopsPerIteration = 1e12 * (1 + 99 * u(rng));
        job.computeTime = 0.05 + 0.5 * u(rng);
        job.overlapStart = u(rng);
        job.numGpus = 8;
        std::vector<uint32_t> hosts;
        const uint32_t count = 2 + static_cast<uint32_t>(rng() % 3);
        while (hosts.size() < count)
        {
            const uint32_t h = static_cast<uint32_t>(rng() % numHosts);
            if (std::find(hosts.begin(), hosts.end(), h) == hosts.end())
            {
                hosts.push_back(h);
            }
        }
        for (uint32_t i = 0; i < count; ++i)
        {
            const uint32_t src = hosts[i];
            const uint32_t dst = hosts[(i + 1) % count];
            const uint32_t ts = src / hostsPerTor;
            const uint32_t td = dst / hostsPerTor;
            SchedFlow f;
            f.id = i;
            f.bytesPerIteration = 1e8 * (1 + 9 * u(rng));
            if (ts == td)
            {
                f.candidatePaths = {{2 * src, 2 * dst + 1}};
            }
            for (uint32_t a = 0; ts != td && a < numAgg; ++a)
            {
                f.candidatePaths.push_back({2 * src,
                                            base + 2 * (ts * numAgg + a),
                                            base + 2 * (td * numAgg + a) + 1,
                                            2 * dst + 1});
            }
            f.defaultPath = static_cast<uint32_t>(rng() % f.candidatePaths.size());
            job.flows.push_back(f);
        }
        m.jobs.push_back(job);
    }
    return m;
}

/// \return the message of the std::invalid_argument the scheduler throws ("" if none)
std::string
ScheduleError(const std::string& name, const ClusterModel& m, const SchedulerConfig& c)
{
    try
    {
        CreateCommScheduler(name)->Schedule(m, c);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/// Asserts: the same model and seed give identical decisions, the seed does not matter (no
/// randomness), and the order of ClusterModel::jobs does not matter either.
void
ExpectDeterministic(const std::string& name)
{
    const ClusterModel m = RandomLeafSpine(14, 77);
    SchedulerConfig c;
    c.numLevels = 3;
    c.seed = 11;
    auto s = CreateCommScheduler(name);
    const Decision a = s->Schedule(m, c);
    const Decision b = s->Schedule(m, c);
    EXPECT_TRUE(a == b) << name;
    ASSERT_EQ(a.jobs.size(), 14u);
    EXPECT_EQ(a.scheduler, name);
    c.seed = 12;
    EXPECT_TRUE(s->Schedule(m, c) == a) << name << ": depends on the seed";
    c.seed = 11;
    ClusterModel shuffled = m;
    std::mt19937_64 rng(5);
    std::shuffle(shuffled.jobs.begin(), shuffled.jobs.end(), rng);
    EXPECT_TRUE(s->Schedule(shuffled, c) == a) << name << ": depends on the job order";
}

/// Asserts that an empty job set and zero levels are rejected with a clear message.
void
ExpectBadInputRejected(const std::string& name)
{
    ClusterModel empty;
    empty.links = {{8e9, "l0"}};
    const std::string e1 = ScheduleError(name, empty, SchedulerConfig());
    EXPECT_NE(e1.find("ClusterModel.jobs is empty"), std::string::npos) << name << ": " << e1;
    SchedulerConfig zero;
    zero.numLevels = 0;
    const std::string e2 = ScheduleError(name, RandomLeafSpine(3, 1), zero);
    EXPECT_NE(e2.find("SchedulerConfig.numLevels must be >= 1"), std::string::npos)
        << name << ": " << e2;
}

} // namespace

TEST(VarysScheduler, SebfOrderAndEqualGroupsByHand)
{
    const ClusterModel m = FiveJobModel();
    const std::map<uint32_t, double> gamma {{1, 3.0}, {2, 1.0}, {3, 2.0}, {4, 0.5}, {5, 2.0}};
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
    EXPECT_EQ(two.PriorityOrder(), (std::vector<uint32_t> {4, 2, 3, 5, 1}));
    EXPECT_FALSE(two.uniquePriorities);
    // K = 2, n = 5: group floor(2r/5) = 0, 0, 0, 1, 1 -> jobs 4, 2, 3 high, 5, 1 low.
    const std::map<uint32_t, uint32_t> levels2 {{4, 1}, {2, 1}, {3, 1}, {5, 0}, {1, 0}};
    for (const auto& [id, level] : levels2)
    {
        EXPECT_EQ(two.LevelOf(id), level) << id;
    }
    // K = 3: floor(3r/5) = 0, 0, 1, 1, 2 -> levels 2, 2, 1, 1, 0.
    c.numLevels = 3;
    const Decision three = CreateCommScheduler("varys")->Schedule(m, c);
    const std::map<uint32_t, uint32_t> levels3 {{4, 2}, {2, 2}, {3, 1}, {5, 1}, {1, 0}};
    for (const auto& [id, level] : levels3)
    {
        EXPECT_EQ(three.LevelOf(id), level) << id;
    }
    // K = 8 >= n: one level per job, highest first: 7, 6, 5, 4, 3.
    c.numLevels = 8;
    const Decision eight = CreateCommScheduler("varys")->Schedule(m, c);
    const std::vector<uint32_t> order {4, 2, 3, 5, 1};
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
    EXPECT_EQ(varys.PriorityOrder(), (std::vector<uint32_t> {1, 2, 3, 4}));
    EXPECT_EQ(sincronia.PriorityOrder(), (std::vector<uint32_t> {1, 2, 3, 4}));
    const std::vector<uint32_t> varysLevels {1, 1, 0, 0};
    const std::vector<uint32_t> sincroniaLevels {1, 0, 0, 0};
    for (uint32_t id = 1; id <= 4; ++id)
    {
        EXPECT_EQ(varys.LevelOf(id), varysLevels[id - 1]) << id;
        EXPECT_EQ(sincronia.LevelOf(id), sincroniaLevels[id - 1]) << id;
    }
}

TEST(VarysScheduler, EqualGroupLevelTable)
{
    // n = 10, K = 4: floor(4p/10) = 0,0,0,1,1,2,2,2,3,3 -> group sizes 3,2,3,2.
    const std::vector<uint32_t> expected {3, 3, 3, 2, 2, 1, 1, 1, 0, 0};
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
    EXPECT_EQ(groupSize, (std::map<uint32_t, uint32_t> {{3, 4}, {2, 3}, {1, 4}, {0, 3}}));
}
