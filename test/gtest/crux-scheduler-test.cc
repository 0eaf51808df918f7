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
// §4.3) and their compositions crux, crux-pa, crux-ps-pa; stage objects of a user's own plugged
// in by TypeId.

#include "scheduler-test-util.h"

#include "ns3/comm-scheduler.h"
#include "ns3/config.h"
#include "ns3/crux-scheduler.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/taccl-scheduler.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <atomic>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

using namespace ns3;

/// Threads started in this process (every std::thread goes through pthread_create).
std::atomic<uint64_t> g_threadsStarted{0};

#ifndef __SANITIZE_ADDRESS__ // AddressSanitizer has its own pthread_create interceptor
#define CRUX_COUNT_THREADS 1

/**
 * Counts the threads the code under test starts: this definition in the test program comes
 * before libc's in symbol lookup (libstdc++'s std::thread calls it through its PLT), counts and
 * forwards to the next definition, libc's.
 */
extern "C" int
pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg)
{
    using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    static const auto next = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
    ++g_threadsStarted;
    return next(thread, attr, start, arg);
}
#endif

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
    CreateObject<CruxLeastCongestedPaths>()->SelectPaths(m, c, d);
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
    const Ptr<CruxPathSelection> paths = CreateObject<CruxLeastCongestedPaths>();
    paths->SelectPaths(m, c, d);
    EXPECT_EQ(d.PathOf(5, 0), 0u);
    EXPECT_EQ(d.PathOf(5, 1), 1u);
    EXPECT_DOUBLE_EQ(d.jobs.at(5).commTime, 4e-3);

    m.jobs[0].measuredCommTime = 0.02; // profiled alone: kept after path selection ([D2])
    d = MakeDefaultDecision(m, c, "test");
    paths->SelectPaths(m, c, d);
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

    // The paper's 12 s horizon: HorizonIterations = 3 on this scheduler's priority assignment.
    const auto paperHorizon = [](const std::string& name) {
        const Ptr<CruxScheduler> s = DynamicCast<CruxScheduler>(CreateCommScheduler(name));
        s->GetPriorityAssignment()->SetAttribute("HorizonIterations", DoubleValue(3));
        return s;
    };
    EXPECT_DOUBLE_EQ(paperHorizon("crux-pa")->Schedule(m, c).jobs.at(2).k, 1.5);

    c.numLevels = 2;
    Decision full = paperHorizon("crux")->Schedule(m, c);
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

    CreateObject<CruxMaxKCutCompression>()->Compress(m, c, d);
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

TEST(CruxScheduler, ThreadsDoNotChangeTheDecision)
{
    // Crux's k_j that a decision does not find in its (per-thread) memo are computed on
    // CruxIntensityPriorities::Threads threads. Each decision runs in a fresh thread, so its
    // memo is empty and every k_j is computed: by this thread alone, or by 2 or 5 threads.
    const ClusterModel m = RandomClosModel(24, 7);
    SchedulerConfig c;
    c.numLevels = 4;
    c.seed = 3;
    auto decide = [&m, &c](uint32_t threads) {
        Decision d;
        std::thread t([&]() {
            const Ptr<CruxScheduler> crux = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
            crux->GetPriorityAssignment()->SetAttribute("Threads", UintegerValue(threads));
            d = crux->Schedule(m, c);
        });
        t.join();
        return d;
    };
    const Decision one = decide(1);
    ASSERT_EQ(one.jobs.size(), 24u);
    size_t corrected = 0; // jobs whose k differs from 1: the comparison ran and mattered
    for (const auto& [id, jd] : one.jobs)
    {
        corrected += jd.k != 1.0 ? 1 : 0;
    }
    EXPECT_GE(corrected, 5u);
    for (uint32_t threads : {2u, 5u})
    {
        const Decision many = decide(threads);
        EXPECT_TRUE(many == one) << threads << " threads";
        for (const auto& [id, jd] : one.jobs)
        {
            EXPECT_EQ(many.jobs.at(id).k, jd.k) << "job " << id << ", " << threads << " threads";
            EXPECT_EQ(many.jobs.at(id).rank, jd.rank) << "job " << id;
        }
    }
    const Ptr<CruxPriorityAssignment> pa = CreateObject<CruxIntensityPriorities>();
    EXPECT_FALSE(pa->SetAttributeFailSafe("Threads", UintegerValue(0)));
    EXPECT_FALSE(pa->SetAttributeFailSafe("Threads", UintegerValue(257)));
}

TEST(CruxScheduler, ThreadsStartOnlyForMemoMisses)
{
    // A decision whose k_j are all in the memo computes nothing and starts no thread; one with
    // misses starts at most Threads - 1 helpers. (A decision without a miss once started threads
    // until the system refused one: thousands per decision, files still identical.)
#ifndef CRUX_COUNT_THREADS
    GTEST_SKIP() << "threads are not counted under AddressSanitizer";
#endif
    const ClusterModel m = RandomClosModel(24, 7);
    SchedulerConfig c;
    c.numLevels = 4;
    c.seed = 3;
    uint64_t first = 0;
    uint64_t second = 0;
    Decision a;
    Decision b;
    std::thread t([&]() { // a fresh thread: an empty (thread-local) memo
        const Ptr<CruxScheduler> crux = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
        crux->GetPriorityAssignment()->SetAttribute("Threads", UintegerValue(2));
        uint64_t before = g_threadsStarted;
        a = crux->Schedule(m, c);
        first = g_threadsStarted - before;
        before = g_threadsStarted;
        b = crux->Schedule(m, c); // the same jobs: every k_j a hit
        second = g_threadsStarted - before;
    });
    t.join();
    EXPECT_TRUE(a == b);
    EXPECT_EQ(first, 1u) << "one decision with misses: one helper thread (Threads = 2)";
    EXPECT_EQ(second, 0u) << "a decision without a miss starts no thread";
}

TEST(CruxScheduler, MemoTellsTimelinesApartByEveryNumber)
{
    // Crux's k_j memo is keyed by the two timelines' content, bit for bit. A job that differs
    // from one already in the memo in a single number of its timeline that k depends on must
    // get its own k: the same as a fresh thread (an empty memo) computes, and different from
    // the first job's (else the case could not fail). Jobs with phases: a phase's release, a
    // dependency's lag and its phase, an end dependency's lag, the compute span, the compute
    // time, the bytes split between phases, and the release of phase 22 of forty; the memo's
    // hash samples every third phase of forty, so phases 1, 2 and 22 are compared by the
    // equality only. A job without phases: its communication time and its overlap start.
    // (numGpus and the FLOPs, also in the key, do not move k here: k is the ratio of the send
    // time deltas, ComputeCorrectionFactor's DELTA_RATIO.)
    struct Shape
    {
        bool phased{true};
        double release1{0.2};
        double lag{0.3};
        uint32_t dep2{1}; // phase 2 waits for this phase
        double endLag{0.4};
        double span{1.2};
        double compute{1.0};
        double split{0.5};
        double release22{1.1};
        double flops{3e9};
        double bytes{1e9};
        double overlap{1.0};
    };

    auto model = [](const Shape& x) {
        ClusterModel m;
        m.links = {{8e9, "shared"}};
        // the reference: more bytes per second, and the longer iteration (the horizon, 48 of its
        // iterations, is the same for every variant: only the timeline tells them apart)
        SchedJob ref = OneFlowJob(1, 4e10, 0.5, 1.0, 8e9, {{0}});
        SchedJob j = OneFlowJob(2, x.flops, x.compute, x.overlap, x.bytes, {{0}});
        if (x.phased)
        {
            SchedPhase p0;
            p0.release = 0.1;
            p0.flows = {0};
            p0.bytes = {x.bytes * x.split};
            SchedPhase p1;
            p1.release = x.release1;
            p1.flows = {0};
            p1.bytes = {x.bytes * (1 - x.split)};
            p1.deps = {SchedPhaseDep{0, x.lag}};
            j.phases = {p0, p1};
            for (uint32_t i = 2; i < 40; ++i) // phases without bytes: release and deps count
            {
                SchedPhase p;
                p.release = i == 22 ? x.release22 : 0.05 * i;
                p.flows = {0};
                p.bytes = {0.0};
                if (i == 2)
                {
                    p.deps = {SchedPhaseDep{x.dep2, 1.5}};
                }
                j.phases.push_back(p);
            }
            j.endDeps = {SchedPhaseDep{1, x.endLag}};
            j.span = x.span;
        }
        m.jobs = {ref, j};
        return m;
    };
    auto variant = [](auto change) {
        Shape x;
        change(x);
        return x;
    };
    const std::vector<std::pair<std::string, Shape>> variants = {
        {"phase release", variant([](Shape& x) { x.release1 = 1.4; })},
        {"dependency lag", variant([](Shape& x) { x.lag = 0.9; })},
        {"dependency phase", variant([](Shape& x) { x.dep2 = 0; })},
        {"end dependency lag", variant([](Shape& x) { x.endLag = 3.5; })},
        {"span", variant([](Shape& x) { x.span = 4.5; })},
        {"compute time", variant([](Shape& x) { x.compute = 4.6; })},
        {"phase bytes", variant([](Shape& x) { x.split = 0.9; })},
        {"unsampled phase release", variant([](Shape& x) { x.release22 = 4.0; })},
        {"communication time, no phases", variant([](Shape& x) {
             x.phased = false;
             x.bytes = 2e9;
         })},
        {"overlap start, no phases", variant([](Shape& x) {
             x.phased = false;
             x.overlap = 0.3;
         })},
    };
    SchedulerConfig c;
    auto decide = [&c, &model](const Shape& x) {
        return CreateCommScheduler("crux-pa")->Schedule(model(x), c).jobs.at(2);
    };
    auto coldK = [&decide](const Shape& x) {
        double k = 0;
        std::thread t([&]() { k = decide(x).k; }); // a fresh thread: an empty (thread-local) memo
        t.join();
        return k;
    };
    for (const auto& [what, x] : variants)
    {
        Shape base;
        base.phased = x.phased;
        const double baseK = coldK(base);
        double warm = 0;
        double warmBase = 0;
        std::thread t([&]() {
            warmBase = decide(base).k; // base's k now in the memo
            const JobDecision jd = decide(x);
            warm = jd.k;
            // the horizon is the reference's: the job's iteration stays shorter than its 8.5 s
            const ClusterModel m = model(x);
            EXPECT_LT(StandaloneIterationTime(m.jobs[1], jd.commTime), 8.5) << what;
        });
        t.join();
        const double cold = coldK(x);
        EXPECT_EQ(warmBase, baseK) << what;
        EXPECT_NE(cold, baseK) << what << ": the change does not move k; choose another";
        EXPECT_EQ(warm, cold) << what << ": the memo returned another timeline's k";
    }
}

TEST(CruxScheduler, SharedLinkRunFullAgreesWithSkippedPeriods)
{
    // ns3::CruxIntensityPriorities::SharedLinkRun: Full (every event) against SkipPeriods (the
    // default) on one decision of 24 jobs: the same ranks and levels, k_j equal up to rounding;
    // in one thread, one after the other (the memo keeps the two apart).
    const ClusterModel m = RandomClosModel(24, 7);
    SchedulerConfig c;
    c.numLevels = 4;
    c.seed = 3;
    Decision skip;
    Decision full;
    std::thread t([&]() {
        const Ptr<CruxScheduler> crux = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
        skip = crux->Schedule(m, c);
        crux->GetPriorityAssignment()->SetAttribute("SharedLinkRun", StringValue("Full"));
        full = crux->Schedule(m, c);
    });
    t.join();
    size_t bitwise = 0;
    for (const auto& [id, jd] : skip.jobs)
    {
        const JobDecision& f = full.jobs.at(id);
        EXPECT_EQ(f.rank, jd.rank) << "job " << id;
        EXPECT_EQ(f.level, jd.level) << "job " << id;
        EXPECT_NEAR(f.k, jd.k, 1e-9 * jd.k) << "job " << id;
        bitwise += f.k == jd.k ? 1 : 0;
    }
    EXPECT_LT(bitwise, skip.jobs.size()) << "Full reproduced every k bit for bit: not run?";
    const Ptr<CruxPriorityAssignment> pa = CreateObject<CruxIntensityPriorities>();
    EXPECT_FALSE(pa->SetAttributeFailSafe("SharedLinkRun", StringValue("Exact")));
}

TEST(CruxScheduler, ExhaustiveCompressionAtLeastSampled)
{
    // "crux" with TopoOrderSamples = 0 on its compression stage object.
    const auto exhaustive = [] {
        const Ptr<CruxScheduler> s = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
        s->GetCompression()->SetAttribute("TopoOrderSamples", UintegerValue(0));
        return s;
    };
    for (uint64_t modelSeed = 1; modelSeed <= 5; ++modelSeed)
    {
        const ClusterModel m = RandomClosModel(7, modelSeed);
        SchedulerConfig c;
        c.numLevels = 3;
        const Decision sampled = CreateCommScheduler("crux")->Schedule(m, c);
        const Decision exact = exhaustive()->Schedule(m, c);
        EXPECT_GE(exact.compressionCut, sampled.compressionCut * (1 - 1e-12));
        EXPECT_GE(sampled.compressionCut, 0.99 * exact.compressionCut);
        ExpectValidCompression(m, exact, 3);
    }
    const ClusterModel big = RandomClosModel(11, 3);
    SchedulerConfig c;
    c.numLevels = 3;
    try
    {
        exhaustive()->Schedule(big, c);
        FAIL() << "exhaustive compression accepted 11 jobs";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("ns3::CruxMaxKCutCompression::TopoOrderSamples = 0"),
                  std::string::npos)
            << e.what();
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

// ------------------------------------------------------------------------------ stage objects

namespace
{

/// A user's path selection: every flow with a second candidate takes it (index 1), the others
/// keep index 0. Registered by TypeId as a user module would.
class SecondCandidatePaths : public CruxPathSelection
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CruxTestSecondCandidatePaths")
                                .SetParent<CruxPathSelection>()
                                .SetGroupName("Crux")
                                .AddConstructor<SecondCandidatePaths>();
        return tid;
    }

    void SelectPaths(const ClusterModel& model,
                     const SchedulerConfig& /* config */,
                     Decision& decision) const override
    {
        for (const SchedJob& job : model.jobs)
        {
            for (const SchedFlow& flow : job.flows)
            {
                decision.jobs.at(job.id).flowPath[flow.id] = flow.candidatePaths.size() > 1 ? 1 : 0;
            }
        }
        UpdateIntensities(model, decision);
    }
};

NS_OBJECT_ENSURE_REGISTERED(SecondCandidatePaths);

/// A user's compression with an Attribute of its own: ranks < TopJobs on level K-1, the others
/// on level 0.
class TopJobsCompression : public CruxPriorityCompression
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CruxTestTopJobsCompression")
                                .SetParent<CruxPriorityCompression>()
                                .SetGroupName("Crux")
                                .AddConstructor<TopJobsCompression>()
                                .AddAttribute("TopJobs",
                                              "Jobs on the highest level.",
                                              UintegerValue(1),
                                              MakeUintegerAccessor(&TopJobsCompression::m_top),
                                              MakeUintegerChecker<uint32_t>());
        return tid;
    }

    void Compress(const ClusterModel& /* model */,
                  const SchedulerConfig& /* config */,
                  Decision& decision) const override
    {
        for (auto& [id, jd] : decision.jobs)
        {
            jd.level = jd.rank < m_top ? decision.numLevels - 1 : 0;
        }
        decision.uniquePriorities = false;
    }

  private:
    uint32_t m_top{1}; //!< jobs on the highest level
};

NS_OBJECT_ENSURE_REGISTERED(TopJobsCompression);

/// One job of a recorded decision.
struct RecordedJob
{
    uint32_t id;
    std::map<uint32_t, uint32_t> flowPath;
    uint32_t rank;
    uint32_t level;
    double k;
    double priorityScore;
    double commTime;
    double intensity;
};

/// A recorded decision (exact binary values).
struct RecordedDecision
{
    std::string scheduler;
    uint32_t referenceJob;
    double compressionCut;
    bool uniquePriorities;
    std::vector<RecordedJob> jobs;
};

/// Expects \p d to equal \p r field by field, bit for bit.
void
ExpectRecorded(const Decision& d, const RecordedDecision& r)
{
    const std::string& name = r.scheduler;
    EXPECT_EQ(d.scheduler, name);
    EXPECT_EQ(d.referenceJob, r.referenceJob) << name;
    EXPECT_EQ(d.compressionCut, r.compressionCut) << name;
    EXPECT_EQ(d.uniquePriorities, r.uniquePriorities) << name;
    ASSERT_EQ(d.jobs.size(), r.jobs.size()) << name;
    for (const RecordedJob& j : r.jobs)
    {
        const JobDecision& jd = d.jobs.at(j.id);
        EXPECT_EQ(jd.flowPath, j.flowPath) << name << " job " << j.id;
        EXPECT_EQ(jd.rank, j.rank) << name << " job " << j.id;
        EXPECT_EQ(jd.level, j.level) << name << " job " << j.id;
        // k_j (and the score k_j x intensity) from shared-link runs that skip whole periods
        // (SharedLinkRun::SKIP_PERIODS, after these decisions were recorded): equal up to
        // rounding; ranks and levels above stay exact.
        EXPECT_NEAR(jd.k, j.k, 1e-9 * j.k) << name << " job " << j.id;
        EXPECT_NEAR(jd.priorityScore, j.priorityScore, 1e-9 * j.priorityScore)
            << name << " job " << j.id;
        EXPECT_EQ(jd.commTime, j.commTime) << name << " job " << j.id;
        EXPECT_EQ(jd.intensity, j.intensity) << name << " job " << j.id;
        EXPECT_EQ(jd.timeShift, 0.0) << name << " job " << j.id;
    }
}

/// \return MakeDefaultDecision followed by the three stage objects, as CruxScheduler runs them
Decision
RunStages(const ClusterModel& m,
          const SchedulerConfig& c,
          const std::string& name,
          Ptr<const CruxPathSelection> paths,
          Ptr<const CruxPriorityAssignment> priorities,
          Ptr<const CruxPriorityCompression> compression)
{
    Decision d = MakeDefaultDecision(m, c, name);
    paths->SelectPaths(m, c, d);
    priorities->AssignPriorities(m, c, d);
    compression->Compress(m, c, d);
    return d;
}

} // namespace

TEST(CruxStages, BuiltInStagesReproduceThePreviousDecisions)
{
    // The decisions of crux, crux-pa, crux-ps-pa and taccl on this model, recorded with the
    // CruxScheduler of boolean stage Attributes and CruxOptions (commit 0946032) that the stage
    // objects replaced: every value must stay bit for bit the same. The model has path choices
    // that matter (crux moves flows off the ECMP defaults, which changes t_13 and thereby every
    // k), more jobs than levels (the max K-cut merges) and k != 1 for four jobs.
    const ClusterModel m = test::RandomLeafSpine(5, 4);
    SchedulerConfig c;
    c.numLevels = 3;
    const std::vector<RecordedDecision> recorded = {
        {"crux",
         13,
         0x1.16eca93f402bdp+52,
         false,
         {
             {10,
              {{0, 0}, {1, 0}, {2, 1}, {3, 1}},
              0,
              2,
              0x1.0f4836c3ff557p+0,
              0x1.016d4621d273bp+50,
              0x1.2dfbf8d41f674p-4,
              0x1.e5d9bd0361e79p+49},
             {11,
              {{0, 1}, {1, 0}, {2, 2}},
              2,
              1,
              0x1.52ed978547b02p-1,
              0x1.2c4c4d5dc466p+48,
              0x1.313bdfc7ff12dp-4,
              0x1.c5a4cb7ccb6d7p+48},
             {12,
              {{0, 0}, {1, 0}},
              4,
              0,
              0x1.47ae147ae147bp-7,
              0x1.310743caf3a0ep+43,
              0x1.d8d8c5847f65cp-6,
              0x1.dc9b59ed1cab6p+49},
             {13,
              {{0, 0}, {1, 0}, {2, 1}, {3, 1}},
              1,
              1,
              0x1p+0,
              0x1.40334773103a7p+48,
              0x1.09282cdf52546p-4,
              0x1.40334773103a7p+48},
             {14,
              {{0, 2}, {1, 0}, {2, 2}},
              3,
              0,
              0x1.1e96398a31be1p-2,
              0x1.68b314f7e30dp+47,
              0x1.28f4886f35ae2p-4,
              0x1.4233ec6b4b244p+49},
         }},
        {"crux-pa",
         13,
         0,
         true,
         {
             {10,
              {{0, 1}, {1, 1}, {2, 2}, {3, 2}},
              0,
              2,
              0x1.8e6de617fa4aap-2,
              0x1.7a148b1fef06p+48,
              0x1.2dfbf8d41f674p-4,
              0x1.e5d9bd0361e79p+49},
             {11,
              {{0, 0}, {1, 1}, {2, 1}},
              3,
              0,
              0x1.1c445987cc816p-1,
              0x1.f7bbf02b6dddbp+47,
              0x1.313bdfc7ff12dp-4,
              0x1.c5a4cb7ccb6d7p+48},
             {12,
              {{0, 1}, {1, 2}},
              4,
              0,
              0x1.47ae147ae147bp-7,
              0x1.310743caf3a0ep+43,
              0x1.d8d8c5847f65cp-6,
              0x1.dc9b59ed1cab6p+49},
             {13,
              {{0, 2}, {1, 0}, {2, 1}, {3, 0}},
              2,
              0,
              0x1p+0,
              0x1.0eed796c0324bp+48,
              0x1.39614f0d4923bp-4,
              0x1.0eed796c0324bp+48},
             {14,
              {{0, 1}, {1, 0}, {2, 2}},
              1,
              1,
              0x1.bc0f1520dcc6bp-2,
              0x1.177284d647aebp+48,
              0x1.28f4886f35ae2p-4,
              0x1.4233ec6b4b244p+49},
         }},
        {"crux-ps-pa",
         13,
         0,
         true,
         {
             {10,
              {{0, 0}, {1, 0}, {2, 1}, {3, 1}},
              0,
              2,
              0x1.0f4836c3ff557p+0,
              0x1.016d4621d273bp+50,
              0x1.2dfbf8d41f674p-4,
              0x1.e5d9bd0361e79p+49},
             {11,
              {{0, 1}, {1, 0}, {2, 2}},
              2,
              0,
              0x1.52ed978547b02p-1,
              0x1.2c4c4d5dc466p+48,
              0x1.313bdfc7ff12dp-4,
              0x1.c5a4cb7ccb6d7p+48},
             {12,
              {{0, 0}, {1, 0}},
              4,
              0,
              0x1.47ae147ae147bp-7,
              0x1.310743caf3a0ep+43,
              0x1.d8d8c5847f65cp-6,
              0x1.dc9b59ed1cab6p+49},
             {13,
              {{0, 0}, {1, 0}, {2, 1}, {3, 1}},
              1,
              1,
              0x1p+0,
              0x1.40334773103a7p+48,
              0x1.09282cdf52546p-4,
              0x1.40334773103a7p+48},
             {14,
              {{0, 2}, {1, 0}, {2, 2}},
              3,
              0,
              0x1.1e96398a31be1p-2,
              0x1.68b314f7e30dp+47,
              0x1.28f4886f35ae2p-4,
              0x1.4233ec6b4b244p+49},
         }},
        {"taccl",
         0,
         0,
         false,
         {
             {10,
              {{0, 0}, {1, 0}, {2, 1}, {3, 1}},
              0,
              2,
              1,
              0,
              0x1.2dfbf8d41f674p-4,
              0x1.e5d9bd0361e79p+49},
             {11,
              {{0, 0}, {1, 2}, {2, 2}},
              1,
              2,
              1,
              0,
              0x1.313bdfc7ff12dp-4,
              0x1.c5a4cb7ccb6d7p+48},
             {12, {{0, 0}, {1, 1}}, 2, 2, 1, 0, 0x1.d8d8c5847f65cp-6, 0x1.dc9b59ed1cab6p+49},
             {13,
              {{0, 0}, {1, 2}, {2, 1}, {3, 1}},
              3,
              2,
              1,
              0,
              0x1.09282cdf52546p-4,
              0x1.40334773103a7p+48},
             {14,
              {{0, 2}, {1, 0}, {2, 1}},
              4,
              2,
              1,
              0,
              0x1.28f4886f35ae2p-4,
              0x1.4233ec6b4b244p+49},
         }},
    };
    for (const RecordedDecision& r : recorded)
    {
        ExpectRecorded(CreateCommScheduler(r.scheduler)->Schedule(m, c), r);
    }
    // "crux-full" is "crux".
    Decision full = CreateCommScheduler("crux-full")->Schedule(m, c);
    full.scheduler = "crux";
    ExpectRecorded(full, recorded[0]);

    // The registry's presets are these stage objects: composed by hand they give the same.
    const Ptr<CruxPathSelection> leastCongested = CreateObject<CruxLeastCongestedPaths>();
    const Ptr<CruxPathSelection> defaultPaths = CreateObject<CruxDefaultPaths>();
    const Ptr<CruxPriorityAssignment> kI = CreateObject<CruxIntensityPriorities>();
    const Ptr<CruxPriorityCompression> kCut = CreateObject<CruxMaxKCutCompression>();
    const Ptr<CruxPriorityCompression> unique = CreateObject<CruxUniquePriorities>();
    ExpectRecorded(RunStages(m, c, "crux", leastCongested, kI, kCut), recorded[0]);
    ExpectRecorded(RunStages(m, c, "crux-pa", defaultPaths, kI, unique), recorded[1]);
    ExpectRecorded(RunStages(m, c, "crux-ps-pa", leastCongested, kI, unique), recorded[2]);

    // The presets as the Attributes report them.
    for (const auto& [name, paths, compression] :
         std::vector<std::tuple<std::string, TypeId, TypeId>>{
             {"crux", CruxLeastCongestedPaths::GetTypeId(), CruxMaxKCutCompression::GetTypeId()},
             {"crux-pa", CruxDefaultPaths::GetTypeId(), CruxUniquePriorities::GetTypeId()},
             {"crux-ps-pa",
              CruxLeastCongestedPaths::GetTypeId(),
              CruxUniquePriorities::GetTypeId()}})
    {
        const Ptr<CommScheduler> s = CreateCommScheduler(name);
        TypeIdValue v;
        s->GetAttribute("PathSelection", v);
        EXPECT_EQ(v.Get(), paths) << name;
        s->GetAttribute("PriorityAssignment", v);
        EXPECT_EQ(v.Get(), CruxIntensityPriorities::GetTypeId()) << name;
        s->GetAttribute("Compression", v);
        EXPECT_EQ(v.Get(), compression) << name;
    }

    // TACCL* reuses the path-selection object: Crux's least-congested rule, jobs in arrival
    // order. Run by hand with TACCL*'s priorities it gives taccl's decision.
    const Ptr<CruxPathSelection> tacclPaths =
        DynamicCast<TacclScheduler>(CreateCommScheduler("taccl"))->GetPathSelection();
    ASSERT_TRUE(DynamicCast<CruxLeastCongestedPaths>(tacclPaths));
    EnumValue order;
    tacclPaths->GetAttribute("JobOrder", order);
    EXPECT_EQ(order.Get(), CruxLeastCongestedPaths::ARRIVAL);
    Decision t = MakeDefaultDecision(m, c, "taccl");
    CreateObjectWithAttributes<CruxLeastCongestedPaths>("JobOrder",
                                                        EnumValue(CruxLeastCongestedPaths::ARRIVAL))
        ->SelectPaths(m, c, t);
    TacclAssignPriorities(m, t);
    ExpectRecorded(t, recorded[3]);
}

TEST(CruxStages, UserPathSelectionPluggedByTypeId)
{
    const ClusterModel m = test::RandomLeafSpine(6, 2);
    SchedulerConfig c;
    c.numLevels = 3;
    const std::string tid = SecondCandidatePaths::GetTypeId().GetName();

    const Ptr<CommScheduler> s = CreateCommScheduler("crux", {{"PathSelection", tid}});
    TypeIdValue v;
    s->GetAttribute("PathSelection", v);
    EXPECT_EQ(v.Get(), SecondCandidatePaths::GetTypeId());
    EXPECT_TRUE(
        DynamicCast<SecondCandidatePaths>(DynamicCast<CruxScheduler>(s)->GetPathSelection()));
    const Decision d = s->Schedule(m, c);

    // The paths are the plugged stage's: candidate 1 wherever there is one, t_j and I_j on them.
    uint32_t differFromEcmp = 0;
    uint32_t differFromCrux = 0;
    const Decision crux = CreateCommScheduler("crux")->Schedule(m, c);
    for (const SchedJob& job : m.jobs)
    {
        const JobDecision& jd = d.jobs.at(job.id);
        for (const SchedFlow& flow : job.flows)
        {
            EXPECT_EQ(d.PathOf(job.id, flow.id), flow.candidatePaths.size() > 1 ? 1u : 0u);
            differFromEcmp += d.PathOf(job.id, flow.id) != flow.defaultPath ? 1 : 0;
            differFromCrux += d.PathOf(job.id, flow.id) != crux.PathOf(job.id, flow.id) ? 1 : 0;
        }
        EXPECT_EQ(jd.commTime, JobCommTime(m, job, ChoiceOf(job, jd)));
        EXPECT_EQ(jd.intensity, GpuIntensity(job.flopsPerIteration, jd.commTime));
    }
    EXPECT_GT(differFromEcmp, 0u);
    EXPECT_GT(differFromCrux, 0u);

    // The other stages still run, on these paths: Crux's P = k I and max K-cut.
    uint32_t kNonUnit = 0;
    for (const auto& [id, jd] : d.jobs)
    {
        kNonUnit += jd.k != 1.0 ? 1 : 0;
        EXPECT_EQ(jd.priorityScore, jd.k * jd.intensity);
    }
    EXPECT_GT(kNonUnit, 0u);
    EXPECT_GT(d.compressionCut, 0.0);
    EXPECT_FALSE(d.uniquePriorities);
    const Decision byHand = RunStages(m,
                                      c,
                                      "crux",
                                      CreateObject<SecondCandidatePaths>(),
                                      CreateObject<CruxIntensityPriorities>(),
                                      CreateObject<CruxMaxKCutCompression>());
    EXPECT_TRUE(d == byHand);

    // As a preset of a registered name, with another built-in stage beside it.
    if (KnownCommSchedulers().back() != "crux-second-paths")
    {
        RegisterCommScheduler(
            "crux-second-paths",
            CruxScheduler::GetTypeId(),
            {{"PathSelection", tid}, {"Compression", "ns3::CruxUniquePriorities"}});
    }
    const Decision preset = CreateCommScheduler("crux-second-paths")->Schedule(m, c);
    EXPECT_TRUE(preset.uniquePriorities);
    for (const auto& [id, jd] : preset.jobs)
    {
        EXPECT_EQ(jd.flowPath, d.jobs.at(id).flowPath);
        EXPECT_EQ(jd.rank, d.jobs.at(id).rank);
        EXPECT_EQ(jd.level, TopRankLevel(jd.rank, c.numLevels));
    }

    // An object installed directly (e.g. one made in Python) works the same.
    const Ptr<CruxScheduler> direct = CreateObject<CruxScheduler>();
    direct->SetPathSelection(CreateObject<SecondCandidatePaths>());
    direct->GetAttribute("PathSelection", v);
    EXPECT_EQ(v.Get(), SecondCandidatePaths::GetTypeId());
    EXPECT_TRUE(direct->Schedule(m, c) == d);
}

TEST(CruxStages, UserCompressionByConfigDefaultAndItsOwnAttribute)
{
    const ClusterModel m = test::RandomLeafSpine(6, 2);
    SchedulerConfig c;
    c.numLevels = 4;
    const Decision psPa = CreateCommScheduler("crux-ps-pa")->Schedule(m, c);

    // Config::SetDefault (--ns3::CruxScheduler::Compression=... on a command line) reaches
    // registry-made schedulers; a preset still wins.
    Config::SetDefault("ns3::CruxScheduler::Compression",
                       TypeIdValue(TopJobsCompression::GetTypeId()));
    const Ptr<CruxScheduler> s = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
    const Decision unchangedPsPa = CreateCommScheduler("crux-ps-pa")->Schedule(m, c);
    Config::SetDefault("ns3::CruxScheduler::Compression",
                       TypeIdValue(CruxMaxKCutCompression::GetTypeId()));
    EXPECT_TRUE(unchangedPsPa == psPa);
    ASSERT_TRUE(DynamicCast<TopJobsCompression>(s->GetCompression()));

    const auto expectTop = [&](uint32_t top) {
        const Decision d = s->Schedule(m, c);
        EXPECT_FALSE(d.uniquePriorities);
        EXPECT_EQ(d.compressionCut, 0.0);
        for (const auto& [id, jd] : d.jobs)
        {
            // Paths and ranks from Crux's own stages (those of crux-ps-pa), levels from ours.
            EXPECT_EQ(jd.flowPath, psPa.jobs.at(id).flowPath);
            EXPECT_EQ(jd.rank, psPa.jobs.at(id).rank);
            EXPECT_EQ(jd.k, psPa.jobs.at(id).k);
            EXPECT_EQ(jd.level, jd.rank < top ? 3u : 0u) << "job " << id << " top " << top;
        }
    };
    expectTop(1);
    // The stage's own Attribute, on this scheduler's object only.
    s->GetCompression()->SetAttribute("TopJobs", UintegerValue(3));
    expectTop(3);
    UintegerValue top;
    CreateObject<TopJobsCompression>()->GetAttribute("TopJobs", top);
    EXPECT_EQ(top.Get(), 1u);
    EXPECT_TRUE(DynamicCast<CruxMaxKCutCompression>(
        DynamicCast<CruxScheduler>(CreateCommScheduler("crux"))->GetCompression()));
}

TEST(CruxStages, WrongStageTypeIdsAndKnobsAreRefused)
{
    // A TypeId of another stage, an abstract base and an unknown name: the checker refuses them
    // with one line naming the attribute and what it expects.
    for (const auto& [attribute, value, base] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"PathSelection", "ns3::CruxUniquePriorities", "ns3::CruxPathSelection"},
             {"PathSelection", "ns3::CruxPathSelection", "ns3::CruxPathSelection"},
             {"PriorityAssignment", "ns3::CruxDefaultPaths", "ns3::CruxPriorityAssignment"},
             {"Compression", "ns3::NoSuchStage", "ns3::CruxPriorityCompression"},
             {"Compression", "true", "ns3::CruxPriorityCompression"}})
    {
        const std::string e = test::CreateError("crux", {{attribute, value}});
        EXPECT_NE(e.find("invalid value '" + value + "' for attribute " + attribute +
                         " (expected a TypeId derived from " + base + " with a constructor"),
                  std::string::npos)
            << e;
    }
    EXPECT_FALSE(Config::SetDefaultFailSafe("ns3::CruxScheduler::Compression",
                                            StringValue("ns3::CruxDefaultPaths")));
    EXPECT_FALSE(Config::SetDefaultFailSafe("ns3::CruxScheduler::Compression",
                                            StringValue("ns3::CruxPriorityCompression")));
    const Ptr<CruxScheduler> s = CreateObject<CruxScheduler>();
    EXPECT_THROW(s->SetPathSelection(nullptr), std::invalid_argument);
    EXPECT_THROW(s->SetPriorityAssignment(nullptr), std::invalid_argument);
    EXPECT_THROW(s->SetCompression(nullptr), std::invalid_argument);

    // The knobs are checked by the stage objects' own checkers.
    const Ptr<CruxPriorityAssignment> pa = s->GetPriorityAssignment();
    EXPECT_FALSE(pa->SetAttributeFailSafe("KBound", DoubleValue(0.5)));
    EXPECT_FALSE(pa->SetAttributeFailSafe("HorizonIterations", DoubleValue(0)));
    EXPECT_TRUE(pa->SetAttributeFailSafe("HorizonIterations", DoubleValue(3)));
    EXPECT_FALSE(s->GetCompression()->SetAttributeFailSafe("TopoOrderSamples",
                                                           UintegerValue(uint64_t(1) << 32)));
    EXPECT_FALSE(
        CreateObject<CruxLeastCongestedPaths>()->SetAttributeFailSafe("JobOrder",
                                                                      StringValue("Random")));
    // The knobs left ns3::CruxScheduler: the registry names the stage Attributes instead.
    const std::string unknown = test::CreateError("crux", {{"TopoOrderSamples", "20"}});
    EXPECT_NE(unknown.find("ns3::CruxScheduler has no attribute 'TopoOrderSamples' (attributes: "
                           "PathSelection, PriorityAssignment, Compression)"),
              std::string::npos)
        << unknown;
}
