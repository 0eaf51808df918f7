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

// TACCL* baseline (taccl-scheduler.h): least-congested paths in arrival (id) order and
// longest-distance-first priorities, on hand-worked instances.

#include "scheduler-test-util.h"

#include "ns3/comm-scheduler.h"
#include "ns3/taccl-scheduler.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>

using namespace ns3;
using namespace ns3::test; // scheduler-test-util.h

namespace
{

/// A job with one flow of \p bytes over \p paths (default path \p defaultPath).
SchedJob
OneFlowJob(uint32_t id,
           double flops,
           double bytes,
           std::vector<std::vector<uint32_t>> paths,
           uint32_t defaultPath = 0)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = flops;
    j.computeTime = 0.1;
    SchedFlow f;
    f.bytesPerIteration = bytes;
    f.candidatePaths = std::move(paths);
    f.defaultPath = defaultPath;
    j.flows = {f};
    return j;
}

} // namespace

TEST(TacclScheduler, ArrivalOrderPathsAvoidLoadedLink)
{
    // Two equal-cost paths over 100 Gbit/s links: A = up1 (0) + down1 (2), B = up2 (1) +
    // down2 (3); every flow hashes onto A by default.
    ClusterModel m;
    m.links = {{100e9, "up1"}, {100e9, "up2"}, {100e9, "down1"}, {100e9, "down2"}};
    const std::vector<std::vector<uint32_t>> ab = {{0, 2}, {1, 3}};
    // Job 1 (arrived first) is NOT GPU-intensive: 1e12 FLOPs, 100 MB. Job 2: 1e15 FLOPs,
    // 10 MB. Job 3 arrived last, 5 MB, candidates listed the other way round (B, A).
    m.jobs = {OneFlowJob(2, 1e15, 10e6, ab),
              OneFlowJob(3, 1e13, 5e6, {{1, 3}, {0, 2}}),
              OneFlowJob(1, 1e12, 100e6, ab)};
    // By hand, jobs in id order:
    //  job 1: both paths empty, cong 100e6*8/100e9 = 8 ms each -> tie -> lower index: A.
    //  job 2: A: (100e6 + 10e6)*8/100e9 = 8.8 ms, B: 0.8 ms -> B (avoids the loaded link).
    //  job 3: its candidate 0 = B: (10e6 + 5e6)*8/100e9 = 1.2 ms, candidate 1 = A:
    //         (100e6 + 5e6)*8/100e9 = 8.4 ms -> candidate 0 (B).
    SchedulerConfig c;
    const Decision d = CreateCommScheduler("taccl")->Schedule(m, c);
    EXPECT_EQ(d.scheduler, "taccl");
    EXPECT_EQ(d.PathOf(1, 0), 0u);
    EXPECT_EQ(d.PathOf(2, 0), 1u);
    EXPECT_EQ(d.PathOf(3, 0), 0u);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).commTime, 10e6 * 8 / 100e9);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).intensity, 1e15 / (10e6 * 8 / 100e9));

    // Crux orders path selection by GPU intensity instead (job 2, job 3, job 1): job 2 takes
    // A first, job 3 B, and the big job 1 goes to B (8.4 ms) rather than A (8.8 ms).
    // TACCL* is intensity-agnostic.
    const Decision crux = CreateCommScheduler("crux")->Schedule(m, c);
    EXPECT_EQ(crux.PathOf(2, 0), 0u);
    EXPECT_EQ(crux.PathOf(1, 0), 1u);

    // All three jobs cross 2 hops: one distance class; ties by travel cost (equal) then id.
    EXPECT_EQ(d.PriorityOrder(), (std::vector<uint32_t>{1, 2, 3}));
    for (uint32_t id : {1u, 2u, 3u})
    {
        EXPECT_EQ(d.LevelOf(id), 7u);
        EXPECT_EQ(d.jobs.at(id).timeShift, 0.0);
    }
}

TEST(TacclScheduler, LongestDistanceFirst)
{
    // h0, h1 under ToR0, h2 under ToR1; all links 100 Gbit/s except h1's uplink (50 Gbit/s).
    ClusterModel m;
    m.links = {{100e9, "h0-up"},
               {100e9, "h1-down"},
               {100e9, "tor0-agg"},
               {100e9, "agg-tor1"},
               {100e9, "h2-down"},
               {50e9, "h1-up"}};
    m.jobs = {OneFlowJob(1, 1e12, 1e8, {{0, 1}}),       // same ToR: 2 hops
              OneFlowJob(2, 1e12, 1e8, {{0, 2, 3, 4}}), // via aggregation: 4 hops
              OneFlowJob(3, 1e12, 1e8, {{5, 2, 3, 4}}), // 4 hops, slower first hop
              OneFlowJob(4, 1e12, 0, {{0, 2, 3, 4}}),   // sends nothing: distance 0
              OneFlowJob(5, 1e12, 1e8, {{0, 1}})};      // same ToR, same links as job 1
    const auto dist = [&m](uint32_t index) {
        return TacclDistance(m.jobs[index], DefaultPathChoice(m.jobs[index]));
    };
    EXPECT_EQ(dist(0), 2u);
    EXPECT_EQ(dist(1), 4u);
    EXPECT_EQ(dist(2), 4u);
    EXPECT_EQ(dist(3), 0u);
    EXPECT_DOUBLE_EQ(TacclTravelCost(m, m.jobs[2], {0}), 1 / 50e9 + 3 / 100e9);
    EXPECT_DOUBLE_EQ(TacclTravelCost(m, m.jobs[1], {0}), 4 / 100e9);

    // Order: distance 4 (job 3 before job 2: larger travel cost), distance 2 (jobs 1, 5 tie
    // on travel cost -> id), distance 0 (job 4).
    SchedulerConfig c;
    const Decision d = CreateCommScheduler("taccl")->Schedule(m, c);
    EXPECT_EQ(d.PriorityOrder(), (std::vector<uint32_t>{3, 2, 1, 5, 4}));
    // Three distance classes {4, 2, 0} on K = 8 levels: 7, 6, 5.
    const std::map<uint32_t, uint32_t> levels8{{3, 7}, {2, 7}, {1, 6}, {5, 6}, {4, 5}};
    for (const auto& [id, level] : levels8)
    {
        EXPECT_EQ(d.LevelOf(id), level) << id;
    }
    EXPECT_FALSE(d.uniquePriorities);
    // K = 2 < 3 classes: class groups floor(2i/3) = 0, 0, 1 -> distances 4 and 2 on level 1,
    // distance 0 on level 0.
    c.numLevels = 2;
    const Decision two = CreateCommScheduler("taccl")->Schedule(m, c);
    const std::map<uint32_t, uint32_t> levels2{{3, 1}, {2, 1}, {1, 1}, {5, 1}, {4, 0}};
    for (const auto& [id, level] : levels2)
    {
        EXPECT_EQ(two.LevelOf(id), level) << id;
    }
}

TEST(TacclScheduler, RejectsBadInput)
{
    ExpectBadInputRejected("taccl");
    ClusterModel m = RandomLeafSpine(2, 3);
    Decision d = MakeDefaultDecision(m, SchedulerConfig(), "test");
    d.numLevels = 0;
    EXPECT_THROW(TacclAssignPriorities(m, d), std::invalid_argument);
}

TEST(TacclScheduler, DeterministicAndLeastCongested)
{
    ExpectDeterministic("taccl");
    // Every flow's chosen path is least congested given the flows placed before it (jobs in
    // id order): replaying the greedy, no candidate has a smaller max link load.
    const ClusterModel m = RandomLeafSpine(14, 77);
    const Decision d = CreateCommScheduler("taccl")->Schedule(m, SchedulerConfig());
    std::vector<const SchedJob*> jobs;
    for (const SchedJob& job : m.jobs)
    {
        jobs.push_back(&job);
    }
    std::sort(jobs.begin(), jobs.end(), [](const SchedJob* a, const SchedJob* b) {
        return a->id < b->id;
    });
    std::vector<double> load(m.links.size(), 0.0);
    uint32_t moved = 0;
    for (const SchedJob* job : jobs)
    {
        for (const SchedFlow& f : job->flows)
        {
            auto cong = [&](uint32_t p) {
                double c = 0;
                for (uint32_t e : f.candidatePaths[p])
                {
                    c = std::max(c, (load[e] + f.bytesPerIteration) * 8 / m.links[e].bandwidth);
                }
                return c;
            };
            const uint32_t chosen = d.PathOf(job->id, f.id);
            for (uint32_t p = 0; p < f.candidatePaths.size(); ++p)
            {
                EXPECT_LE(cong(chosen), cong(p) * (1 + 1e-12));
            }
            moved += chosen != f.defaultPath ? 1 : 0;
            for (uint32_t e : f.candidatePaths[chosen])
            {
                load[e] += f.bytesPerIteration;
            }
        }
    }
    EXPECT_GT(moved, 0u);
}
