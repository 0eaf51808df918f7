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

// The Crux scheduler's stages (path selection §4.1, priority assignment §4.2, compression
// §4.3) and their compositions crux, crux-pa, crux-ps-pa.

#include "ns3/comm-scheduler.h"
#include "ns3/crux-scheduler.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace ns3;

namespace
{

/// A job with one flow over the given candidate paths.
SchedJob
OneFlowJob(uint32_t id,
           double flops,
           double compute,
           double overlap,
           double bytes,
           std::vector<std::vector<uint32_t>> paths,
           uint32_t defaultPath = 0)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = flops;
    j.computeTime = compute;
    j.overlapStart = overlap;
    j.numGpus = 10;
    SchedFlow f;
    f.id = 0;
    f.bytesPerIteration = bytes;
    f.candidatePaths = std::move(paths);
    f.defaultPath = defaultPath;
    j.flows = {f};
    return j;
}

/// Crux Example 1 on one 8 Gbit/s link (1e9 bytes take 1 s).
ClusterModel
Example1Model()
{
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {OneFlowJob(1, 10e9, 2.0, 1.0, 2e9, {{0}}), OneFlowJob(2, 5e9, 1.0, 1.0, 1e9, {{0}})};
    return m;
}

/**
 * A random two-tier Clos: numTor ToRs, numAgg aggregation switches, hostsPerTor hosts; jobs
 * on random hosts with ring traffic; ECMP defaults drawn at random.
 */
ClusterModel
RandomClosModel(uint32_t numJobs, uint64_t seed)
{
    const uint32_t numTor = 4;
    const uint32_t numAgg = 3;
    const uint32_t hostsPerTor = 4;
    std::mt19937_64 rng(seed);
    ClusterModel m;
    auto addLink = [&m](double bw, const std::string& name) {
        m.links.push_back({bw, name});
        return static_cast<uint32_t>(m.links.size() - 1);
    };
    const uint32_t numHosts = numTor * hostsPerTor;
    std::vector<uint32_t> hostUp(numHosts);
    std::vector<uint32_t> hostDown(numHosts);
    for (uint32_t h = 0; h < numHosts; ++h)
    {
        hostUp[h] = addLink(100e9, "h" + std::to_string(h) + "-up");
        hostDown[h] = addLink(100e9, "h" + std::to_string(h) + "-down");
    }
    std::vector<std::vector<uint32_t>> torUp(numTor, std::vector<uint32_t>(numAgg));
    std::vector<std::vector<uint32_t>> torDown(numTor, std::vector<uint32_t>(numAgg));
    for (uint32_t t = 0; t < numTor; ++t)
    {
        for (uint32_t a = 0; a < numAgg; ++a)
        {
            torUp[t][a] = addLink(100e9, "t" + std::to_string(t) + "-a" + std::to_string(a));
            torDown[t][a] = addLink(100e9, "a" + std::to_string(a) + "-t" + std::to_string(t));
        }
    }
    std::uniform_int_distribution<uint32_t> host(0, numHosts - 1);
    std::uniform_int_distribution<uint32_t> hostsPerJob(2, 4);
    std::uniform_real_distribution<double> u(0, 1);
    for (uint32_t j = 0; j < numJobs; ++j)
    {
        SchedJob job;
        job.id = 100 + j;
        job.flopsPerIteration = 1e12 * (1 + 99 * u(rng));
        job.computeTime = 0.05 + 0.5 * u(rng);
        job.overlapStart = u(rng);
        job.numGpus = 8;
        std::vector<uint32_t> hosts;
        const uint32_t count = hostsPerJob(rng);
        while (hosts.size() < count)
        {
            uint32_t h = host(rng);
            if (std::find(hosts.begin(), hosts.end(), h) == hosts.end())
            {
                hosts.push_back(h);
            }
        }
        for (uint32_t i = 0; i < hosts.size(); ++i)
        {
            const uint32_t src = hosts[i];
            const uint32_t dst = hosts[(i + 1) % hosts.size()];
            const uint32_t ts = src / hostsPerTor;
            const uint32_t td = dst / hostsPerTor;
            SchedFlow f;
            f.id = i;
            f.bytesPerIteration = 1e8 * (1 + 9 * u(rng));
            if (ts == td)
            {
                f.candidatePaths = {{hostUp[src], hostDown[dst]}};
            }
            else
            {
                for (uint32_t a = 0; a < numAgg; ++a)
                {
                    f.candidatePaths.push_back(
                        {hostUp[src], torUp[ts][a], torDown[td][a], hostDown[dst]});
                }
            }
            f.defaultPath = static_cast<uint32_t>(rng() % f.candidatePaths.size());
            job.flows.push_back(f);
        }
        m.jobs.push_back(job);
    }
    return m;
}

/// \return true if the two jobs put > 0 bytes on a common link on their chosen paths
bool
ShareLink(const Decision& d, const SchedJob& a, const SchedJob& b)
{
    const LinkLoad la = JobLinkBytes(a, ChoiceOf(a, d.jobs.at(a.id)));
    const LinkLoad lb = JobLinkBytes(b, ChoiceOf(b, d.jobs.at(b.id)));
    for (const auto& [link, bytes] : la)
    {
        auto it = lb.find(link);
        if (bytes > 0 && it != lb.end() && it->second > 0)
        {
            return true;
        }
    }
    return false;
}

/// Asserts the compression is valid: levels in range, no contending pair inverted.
void
ExpectValidCompression(const ClusterModel& m, const Decision& d, uint32_t k)
{
    std::set<uint32_t> used;
    for (const auto& [id, jd] : d.jobs)
    {
        EXPECT_LT(jd.level, k);
        used.insert(jd.level);
    }
    EXPECT_EQ(used.size(), std::min<std::size_t>(k, m.jobs.size()));
    for (const SchedJob& a : m.jobs)
    {
        for (const SchedJob& b : m.jobs)
        {
            const JobDecision& da = d.jobs.at(a.id);
            const JobDecision& db = d.jobs.at(b.id);
            if (da.rank < db.rank && ShareLink(d, a, b))
            {
                EXPECT_GE(da.level, db.level) << "jobs " << a.id << " and " << b.id;
            }
        }
    }
}

} // namespace

TEST(CruxPathSelection, IntensiveJobFirstAndCollisionMoved)
{
    // Two equal-cost paths: uplink 0 + downlink 2, or uplink 1 + downlink 3 (100 Gbit/s).
    // Job 1 is far more GPU-intensive; all flows hash onto path 0 by default.
    ClusterModel m;
    m.links = {{100e9, "up1"}, {100e9, "up2"}, {100e9, "down1"}, {100e9, "down2"}};
    const std::vector<std::vector<uint32_t>> paths = {{0, 2}, {1, 3}};
    m.jobs.push_back(OneFlowJob(2, 1e12, 0.1, 1.0, 10e6, paths));
    m.jobs[0].flows.push_back(m.jobs[0].flows[0]);
    m.jobs[0].flows[1].id = 1;
    m.jobs.push_back(OneFlowJob(1, 1e15, 0.1, 1.0, 100e6, paths));

    SchedulerConfig c;
    Decision ecmp = CreateCommScheduler("ecmp")->Schedule(m, c);
    EXPECT_EQ(ecmp.PathOf(1, 0), 0u);
    EXPECT_EQ(ecmp.PathOf(2, 0), 0u);
    EXPECT_EQ(ecmp.PathOf(2, 1), 0u);

    Decision d = MakeDefaultDecision(m, c, "test");
    EXPECT_DOUBLE_EQ(d.jobs.at(2).commTime, 20e6 * 8 / 100e9); // both flows on up1
    CruxSelectPaths(m, d);
    EXPECT_EQ(d.PathOf(1, 0), 0u); // first pick, tie -> lowest index
    EXPECT_EQ(d.PathOf(2, 0), 1u); // moved away from job 1
    EXPECT_EQ(d.PathOf(2, 1), 1u);
    EXPECT_DOUBLE_EQ(d.jobs.at(1).commTime, 100e6 * 8 / 100e9);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).commTime, 20e6 * 8 / 100e9);
    EXPECT_DOUBLE_EQ(d.jobs.at(1).intensity, 1e15 / (100e6 * 8 / 100e9));

    // The full scheduler and crux-ps-pa make the same path choice; crux-pa keeps ECMP's.
    for (const std::string name : {"crux", "crux-ps-pa"})
    {
        Decision full = CreateCommScheduler(name)->Schedule(m, c);
        EXPECT_EQ(full.PathOf(1, 0), 0u) << name;
        EXPECT_EQ(full.PathOf(2, 0), 1u) << name;
        EXPECT_EQ(full.PathOf(2, 1), 1u) << name;
    }
    Decision pa = CreateCommScheduler("crux-pa")->Schedule(m, c);
    EXPECT_EQ(pa.PathOf(2, 0), 0u);
    EXPECT_EQ(pa.PathOf(2, 1), 0u);
}

TEST(CruxPathSelection, SpreadsOneJobsOwnFlowsAndKeepsMeasuredTime)
{
    ClusterModel m;
    m.links = {{100e9, "up1"}, {100e9, "up2"}};
    m.jobs.push_back(OneFlowJob(5, 1e13, 0.1, 1.0, 50e6, {{0}, {1}}));
    m.jobs[0].flows.push_back(m.jobs[0].flows[0]);
    m.jobs[0].flows[1].id = 1;
    SchedulerConfig c;
    Decision d = MakeDefaultDecision(m, c, "test");
    EXPECT_DOUBLE_EQ(d.jobs.at(5).commTime, 8e-3);
    CruxSelectPaths(m, d);
    EXPECT_EQ(d.PathOf(5, 0), 0u);
    EXPECT_EQ(d.PathOf(5, 1), 1u);
    EXPECT_DOUBLE_EQ(d.jobs.at(5).commTime, 4e-3);

    m.jobs[0].measuredCommTime = 0.02; // profiled alone: kept after path selection ([D2])
    d = MakeDefaultDecision(m, c, "test");
    CruxSelectPaths(m, d);
    EXPECT_DOUBLE_EQ(d.jobs.at(5).commTime, 0.02);
    EXPECT_DOUBLE_EQ(d.jobs.at(5).intensity, 1e13 / 0.02);
}

TEST(CruxPriorityAssignment, PaperExample1)
{
    ClusterModel m = Example1Model();
    SchedulerConfig c; // default horizon: 48 iterations of the longer job
    Decision d = CreateCommScheduler("crux-pa")->Schedule(m, c);
    EXPECT_EQ(d.referenceJob, 1u); // equal bytes/s (0.5 GB/s), smaller id
    EXPECT_DOUBLE_EQ(d.jobs.at(1).k, 1.0);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).k, 1.5);
    EXPECT_DOUBLE_EQ(d.jobs.at(1).intensity, 5e9);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).intensity, 5e9);
    EXPECT_DOUBLE_EQ(d.jobs.at(2).priorityScore, 7.5e9);
    EXPECT_EQ(d.jobs.at(2).rank, 0u);
    EXPECT_EQ(d.jobs.at(1).rank, 1u);
    EXPECT_TRUE(d.uniquePriorities);
    EXPECT_EQ(d.LevelOf(2), 7u);
    EXPECT_EQ(d.LevelOf(1), 6u);

    const CommSchedulerAttributes paperHorizon = {{"HorizonIterations", "3"}}; // 12 s
    EXPECT_DOUBLE_EQ(CreateCommScheduler("crux-pa", paperHorizon)->Schedule(m, c).jobs.at(2).k,
                     1.5);

    c.numLevels = 2;
    Decision full = CreateCommScheduler("crux", paperHorizon)->Schedule(m, c);
    EXPECT_EQ(full.LevelOf(2), 1u);
    EXPECT_EQ(full.LevelOf(1), 0u);
    EXPECT_DOUBLE_EQ(full.compressionCut, 7.5e9 / 1.5); // edge weight I_2 = 5e9
    EXPECT_FALSE(full.uniquePriorities);
}

TEST(CruxPriorityAssignment, OrderMatchesLongRunUtilizationOnOneLink)
{
    // On random pairs of jobs sharing one link, the order P = k I picks must be the one that
    // completes more FLOPs over a long run (200 iterations of the longer job): the purpose of
    // k (Crux §4.2, Theorem 1). Intensity alone is also measured, for contrast.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    int agreeCrux = 0;
    int agreeIntensity = 0;
    int decided = 0;
    for (int inst = 0; inst < 500; ++inst)
    {
        ClusterModel m;
        m.links = {{8e9, "shared"}};
        for (uint32_t id = 1; id <= 2; ++id)
        {
            const double overlap = u(rng) < 0.3 ? 1.0 : u(rng);
            m.jobs.push_back(OneFlowJob(id,
                                        1e12 * (0.1 + u(rng)),
                                        0.1 + u(rng),
                                        overlap,
                                        1e9 * (0.1 + u(rng)),
                                        {{0}}));
        }
        const Decision d = CreateCommScheduler("crux-pa")->Schedule(m, SchedulerConfig());
        std::array<TimelineJob, 2> tj;
        double longest = 0;
        for (int x = 0; x < 2; ++x)
        {
            const SchedJob& j = m.jobs[x];
            const double t = d.jobs.at(j.id).commTime;
            tj[x] = TimelineJob{j.computeTime, t, j.overlapStart, j.numGpus, j.flopsPerIteration};
            longest = std::max(longest, StandaloneIterationTime(j, t));
        }
        const TimelineResult a = SimulateSharedLink(tj, 0, 200 * longest);
        const TimelineResult b = SimulateSharedLink(tj, 1, 200 * longest);
        const double fa = a.completedFlops[0] + a.completedFlops[1];
        const double fb = b.completedFlops[0] + b.completedFlops[1];
        if (std::abs(fa - fb) <= 1e-3 * std::max(fa, fb))
        {
            continue; // both orders equally good
        }
        ++decided;
        const bool job1Better = fa > fb;
        agreeCrux += ((d.PriorityOrder()[0] == 1) == job1Better) ? 1 : 0;
        const bool job1MoreIntense = d.jobs.at(1).intensity > d.jobs.at(2).intensity;
        agreeIntensity += (job1MoreIntense == job1Better) ? 1 : 0;
    }
    std::cout << "P = k I picks the better order in " << agreeCrux << "/" << decided
              << " pairs; I alone in " << agreeIntensity << "/" << decided << std::endl;
    EXPECT_GT(decided, 400);
    EXPECT_GE(agreeCrux, 0.98 * decided);
    EXPECT_GT(agreeCrux, agreeIntensity);
}

TEST(CruxPriorityAssignment, ExposedCommunicationWins)
{
    // Crux Example 2 in spirit: equal intensity and compute, but job 3's traffic is hidden
    // behind its compute (overlap from the start) while job 4's is exposed. Job 4 must win.
    ClusterModel m;
    m.links = {{8e9, "shared"}};
    m.jobs = {OneFlowJob(3, 1e10, 2.0, 0.0, 1e9, {{0}}), OneFlowJob(4, 1e10, 2.0, 1.0, 1e9, {{0}})};
    SchedulerConfig c;
    Decision d = CreateCommScheduler("crux-pa")->Schedule(m, c);
    EXPECT_EQ(d.referenceJob, 3u); // shorter iteration (2 s vs 3 s) -> more bytes/s
    EXPECT_GT(d.jobs.at(4).k, 1.0);
    EXPECT_EQ(d.jobs.at(4).rank, 0u);
    EXPECT_EQ(d.jobs.at(3).rank, 1u);
}

TEST(CruxCompression, Figure13Model)
{
    // Four jobs on three links: 1 and 2 share link 0, 2 and 4 share link 1, 3 and 4 share
    // link 2 (job 2 and job 4 cross two links). t = 1 s each, I = 4, 3, 2, 1 TFLOP/s.
    ClusterModel m;
    m.links = {{8e9, "l0"}, {8e9, "l1"}, {8e9, "l2"}};
    m.jobs = {OneFlowJob(1, 4e12, 1.0, 1.0, 1e9, {{0}}),
              OneFlowJob(2, 3e12, 1.0, 1.0, 1e9, {{0, 1}}),
              OneFlowJob(3, 2e12, 1.0, 1.0, 1e9, {{2}}),
              OneFlowJob(4, 1e12, 1.0, 1.0, 1e9, {{1, 2}})};
    SchedulerConfig c;
    c.numLevels = 2;
    Decision d = MakeDefaultDecision(m, c, "test");
    for (auto& [id, jd] : d.jobs)
    {
        jd.rank = id - 1; // priority order 1 > 2 > 3 > 4
        jd.priorityScore = jd.intensity;
    }
    std::vector<uint32_t> nodeJobs;
    WeightedDag dag = BuildContentionDag(m, d, &nodeJobs);
    EXPECT_EQ(nodeJobs, (std::vector<uint32_t>{1, 2, 3, 4}));
    ASSERT_EQ(dag.edges.size(), 3u);
    std::set<std::tuple<uint32_t, uint32_t, double>> edges;
    for (const auto& e : dag.edges)
    {
        edges.insert({e.from, e.to, e.weight});
    }
    EXPECT_EQ(edges,
              (std::set<std::tuple<uint32_t, uint32_t, double>>{{0, 1, 4e12},
                                                                {1, 3, 3e12},
                                                                {2, 3, 2e12}}));

    CruxCompressPriorities(m, CruxOptions(), c.seed, d);
    EXPECT_EQ(d.LevelOf(1), 1u);
    EXPECT_EQ(d.LevelOf(3), 1u);
    EXPECT_EQ(d.LevelOf(2), 0u);
    EXPECT_EQ(d.LevelOf(4), 0u);
    EXPECT_DOUBLE_EQ(d.compressionCut, 6e12);
}

TEST(CruxScheduler, DeterministicAndValidAcrossSeeds)
{
    const ClusterModel m = RandomClosModel(12, 42);
    SchedulerConfig c;
    c.numLevels = 3;
    c.seed = 5;
    auto crux = CreateCommScheduler("crux");
    const Decision a = crux->Schedule(m, c);
    const Decision b = crux->Schedule(m, c);
    EXPECT_TRUE(a == b);
    ASSERT_EQ(a.jobs.size(), 12u);
    ExpectValidCompression(m, a, c.numLevels);

    double bestCut = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed)
    {
        c.seed = seed;
        const Decision d = crux->Schedule(m, c);
        ExpectValidCompression(m, d, c.numLevels);
        // Paths and priorities do not depend on the seed, only the compression does.
        for (const auto& [id, jd] : d.jobs)
        {
            EXPECT_EQ(jd.flowPath, a.jobs.at(id).flowPath);
            EXPECT_EQ(jd.rank, a.jobs.at(id).rank);
        }
        bestCut = std::max(bestCut, d.compressionCut);
    }
    EXPECT_GT(bestCut, 0.0);

    // More levels than jobs: every job its own level, highest rank highest level.
    c.numLevels = 16;
    const Decision wide = crux->Schedule(m, c);
    for (const auto& [id, jd] : wide.jobs)
    {
        EXPECT_EQ(jd.level, 15u - jd.rank);
    }
}

TEST(CruxScheduler, ExhaustiveCompressionAtLeastSampled)
{
    for (uint64_t modelSeed = 1; modelSeed <= 5; ++modelSeed)
    {
        const ClusterModel m = RandomClosModel(7, modelSeed);
        SchedulerConfig c;
        c.numLevels = 3;
        const Decision sampled = CreateCommScheduler("crux")->Schedule(m, c);
        const Decision exact =
            CreateCommScheduler("crux", {{"TopoOrderSamples", "0"}})->Schedule(m, c);
        EXPECT_GE(exact.compressionCut, sampled.compressionCut * (1 - 1e-12));
        EXPECT_GE(sampled.compressionCut, 0.99 * exact.compressionCut);
        ExpectValidCompression(m, exact, 3);
    }
    const ClusterModel big = RandomClosModel(11, 3);
    SchedulerConfig c;
    c.numLevels = 3;
    try
    {
        CreateCommScheduler("crux", {{"TopoOrderSamples", "0"}})->Schedule(big, c);
        FAIL() << "exhaustive compression accepted 11 jobs";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("topoOrderSamples"), std::string::npos) << e.what();
    }
}

TEST(CruxScheduler, PaAndPsPaUseUniqueRanks)
{
    const ClusterModel m = RandomClosModel(10, 9);
    SchedulerConfig c;
    c.numLevels = 4;
    for (const std::string name : {"crux-pa", "crux-ps-pa"})
    {
        const Decision d = CreateCommScheduler(name)->Schedule(m, c);
        EXPECT_TRUE(d.uniquePriorities);
        std::set<uint32_t> ranks;
        for (const auto& [id, jd] : d.jobs)
        {
            ranks.insert(jd.rank);
            EXPECT_EQ(jd.level, jd.rank < 4 ? 3 - jd.rank : 0u) << name;
            EXPECT_DOUBLE_EQ(jd.priorityScore, jd.k * jd.intensity);
        }
        EXPECT_EQ(ranks.size(), 10u);
        // Ranks follow P (ties by id).
        const std::vector<uint32_t> order = d.PriorityOrder();
        for (std::size_t i = 1; i < order.size(); ++i)
        {
            EXPECT_GE(d.jobs.at(order[i - 1]).priorityScore, d.jobs.at(order[i]).priorityScore);
        }
    }
}
