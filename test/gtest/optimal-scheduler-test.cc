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

// The exhaustive "optimal" scheduler (path choices x level assignments on the flow-level
// evaluator), the random small clusters of Crux §4.4 and the per-stage ablation.

#include "ns3/comm-scheduler.h"
#include "ns3/crux-scheduler.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/random-cluster.h"
#include "ns3/stage-ablation.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace ns3;

namespace
{

/// A job with one flow over the given candidate paths.
SchedJob
OneFlowJob(uint32_t id, double flops, double bytes, std::vector<std::vector<uint32_t>> paths)
{
    SchedJob j;
    j.id = id;
    j.flopsPerIteration = flops;
    j.computeTime = 1.0;
    j.overlapStart = 1.0;
    j.numGpus = 10;
    SchedFlow f;
    f.bytesPerIteration = bytes;
    f.candidatePaths = std::move(paths);
    j.flows = {f};
    return j;
}

/// Crux Fig. 13: jobs 1-2 share link 0, 2-4 link 1, 3-4 link 2; t = c = 1 s; I = 4..1 TFLOP/s.
ClusterModel
Figure13Model()
{
    ClusterModel m;
    m.links = {{8e9, "l0"}, {8e9, "l1"}, {8e9, "l2"}};
    m.jobs = {OneFlowJob(1, 4e12, 1e9, {{0}}),
              OneFlowJob(2, 3e12, 1e9, {{0, 1}}),
              OneFlowJob(3, 2e12, 1e9, {{2}}),
              OneFlowJob(4, 1e12, 1e9, {{1, 2}})};
    return m;
}

/// Small random cases: 4 jobs on 2-3 ToRs, at most 16 path choices.
ClusterModel
SmallCase(uint64_t seed)
{
    RandomClusterParams p;
    p.numJobs = 4;
    p.maxTors = 3;
    p.hostsPerTor = 4;
    p.maxHostsPerJob = 3;
    p.slotsPerHost = 2;
    p.maxPathChoices = 16;
    return GenerateRandomCluster(p, seed);
}

/// Options with a short horizon (fast tests).
OptimalSearchOptions
FastOptions()
{
    OptimalSearchOptions o;
    o.evaluator.horizonIterations = 20;
    return o;
}

/// \return the per-job blocks of a decision's levels (model order)
std::vector<uint32_t>
BlocksOf(const ClusterModel& m, const Decision& d)
{
    std::vector<uint32_t> b;
    for (const SchedJob& j : m.jobs)
    {
        b.push_back(d.numLevels - 1 - d.LevelOf(j.id));
    }
    return b;
}

} // namespace

TEST(OptimalScheduler, CountsAndEnumeratesLevelAssignments)
{
    EXPECT_EQ(CountLevelAssignments(5, 3), 181.0);
    EXPECT_EQ(CountLevelAssignments(5, 5), 541.0); // Fubini number
    EXPECT_EQ(CountLevelAssignments(5, 9), 541.0);
    EXPECT_EQ(CountLevelAssignments(4, 2), 15.0); // 1 + 2 S(4,2) = 1 + 14
    EXPECT_EQ(CountLevelAssignments(3, 1), 1.0);
    for (uint32_t n = 1; n <= 6; ++n)
    {
        for (uint32_t k = 1; k <= 4; ++k)
        {
            const auto all = EnumerateLevelAssignments(n, k);
            EXPECT_EQ(static_cast<double>(all.size()), CountLevelAssignments(n, k)) << n << k;
            std::set<std::vector<uint32_t>> distinct(all.begin(), all.end());
            EXPECT_EQ(distinct.size(), all.size());
            for (const auto& a : all)
            {
                const std::set<uint32_t> used(a.begin(), a.end());
                EXPECT_LE(used.size(), k);
                EXPECT_EQ(*used.rbegin() + 1, used.size()); // blocks 0..b-1, none empty
            }
        }
    }
    EXPECT_THROW(EnumerateLevelAssignments(3, 0), std::invalid_argument);
}

TEST(OptimalScheduler, RegisteredAndEqualsBruteForceOnTinyCases)
{
    auto known = KnownCommSchedulers();
    EXPECT_NE(std::find(known.begin(), known.end(), "optimal"), known.end());
    EXPECT_EQ(CreateCommScheduler("optimal")->GetName(), "optimal");

    for (uint64_t seed = 1; seed <= 4; ++seed)
    {
        RandomClusterParams p;
        p.numJobs = 3;
        p.maxTors = 3;
        p.hostsPerTor = 3;
        p.maxHostsPerJob = 3;
        p.slotsPerHost = 2;
        p.maxPathChoices = 8;
        const ClusterModel m = GenerateRandomCluster(p, seed);
        const OptimalSearchOptions o = FastOptions();
        OptimalSearch search(m, 2, o);
        const OptimalSearch::Solution best = search.Solve();

        // Brute force: every path choice x every assignment, each simulated whole.
        const FlowEvaluator& ev = search.Evaluator();
        double brute = 0;
        for (uint64_t i = 0; i < search.NumPathChoices(); ++i)
        {
            for (const auto& a : search.LevelAssignments())
            {
                EvaluationInput in;
                in.paths = search.PathChoiceAt(i);
                for (uint32_t b : a)
                {
                    in.priority.push_back(-static_cast<int64_t>(b));
                }
                brute = std::max(brute, ev.Evaluate(in).flopsRate);
            }
        }
        EXPECT_NEAR(best.value, brute, 1e-9 * brute) << "seed " << seed;
        EXPECT_GT(brute, 0);

        // The scheduler's decision reproduces that value when evaluated as a whole.
        SchedulerConfig c;
        c.numLevels = 2;
        const Decision d = CreateCommScheduler("optimal",
                                               {{"HorizonIterations",
                                                 std::to_string(o.evaluator.horizonIterations)}})
                               ->Schedule(m, c);
        EXPECT_EQ(d.scheduler, "optimal");
        EXPECT_NEAR(ev.Evaluate(d).flopsRate, brute, 1e-9 * brute);
        for (const SchedJob& j : m.jobs)
        {
            EXPECT_LT(d.LevelOf(j.id), 2u);
            EXPECT_EQ(d.jobs.at(j.id).flowPath.size(), j.flows.size());
        }
    }
}

TEST(OptimalScheduler, AtLeastEveryHeuristic)
{
    const std::vector<std::string> heuristics =
        {"ecmp", "crux", "crux-pa", "crux-ps-pa", "sincronia", "varys", "taccl"};
    std::map<std::string, int> strictlyBelow;
    for (uint64_t seed = 1; seed <= 12; ++seed)
    {
        const ClusterModel m = SmallCase(seed);
        SchedulerConfig c;
        c.numLevels = 3;
        const OptimalSearchOptions o = FastOptions();
        OptimalSearch search(m, 3, o);
        const double opt = search.Solve().value;
        const FlowEvaluator& ev = search.Evaluator();
        for (const std::string& name : heuristics)
        {
            const double v = ev.Evaluate(CreateCommScheduler(name)->Schedule(m, c)).flopsRate;
            EXPECT_LE(v, opt * (1 + 1e-9)) << name << " seed " << seed;
            strictlyBelow[name] += v < opt * (1 - 1e-6) ? 1 : 0;
        }
    }
    // The cases have real contention: ECMP with one class is beaten somewhere.
    EXPECT_GT(strictlyBelow["ecmp"], 0);
}

TEST(OptimalScheduler, Figure13Compression)
{
    const ClusterModel m = Figure13Model();
    OptimalSearch search(m, 2, OptimalSearchOptions());
    const auto paths = search.PathChoiceAt(0);
    ASSERT_EQ(search.NumPathChoices(), 1u);

    // Compressions that keep Crux's priority order 1 > 2 > 3 > 4 on every contending pair
    // (1-2, 2-4, 3-4; no edge of the contention DAG points upward): the evaluator's best is
    // {1, 3} high, {2, 4} low - the DAG max 2-cut of Crux Fig. 13.
    double bestValid = -1;
    std::vector<uint32_t> bestBlocks;
    for (const auto& a : search.LevelAssignments())
    {
        if (a[0] > a[1] || a[1] > a[3] || a[2] > a[3])
        {
            continue;
        }
        const double v = search.Value(paths, a);
        if (v > bestValid * (1 + 1e-9))
        {
            bestValid = v;
            bestBlocks = a;
        }
    }
    EXPECT_EQ(bestBlocks, (std::vector<uint32_t>{0, 1, 0, 1}));
    SchedulerConfig c;
    c.numLevels = 2;
    Decision crux = MakeDefaultDecision(m, c, "crux");
    for (auto& [id, jd] : crux.jobs)
    {
        jd.rank = id - 1;
    }
    CreateObject<CruxMaxKCutCompression>()->Compress(m, c, crux);
    EXPECT_EQ(BlocksOf(m, crux), bestBlocks);

    // Without the order constraint the optimum separates every contending pair ({1, 4} over
    // {2, 3}, inverting 2 > 4): every job then runs at its stand-alone speed, Σ W_j / 2 s.
    const Decision opt = CreateCommScheduler("optimal")->Schedule(m, c);
    const double value = search.Solve().value;
    EXPECT_NEAR(value, (4e12 + 3e12 + 2e12 + 1e12) / 2.0, 1e-9 * value);
    EXPECT_GT(value, bestValid * 1.2);
    EXPECT_NE(opt.LevelOf(1), opt.LevelOf(2));
    EXPECT_NE(opt.LevelOf(2), opt.LevelOf(4));
    EXPECT_NE(opt.LevelOf(3), opt.LevelOf(4));
}

TEST(OptimalScheduler, RefusesTooLargeSpacesAndBadInput)
{
    // One job with 20 two-way flows: 2^20 = 1048576 path choices x 1 assignment > 1e6.
    ClusterModel big;
    big.links = {{1e9, "a"}, {1e9, "b"}};
    SchedJob j = OneFlowJob(1, 1e12, 1e6, {{0}, {1}});
    for (uint32_t f = 1; f < 20; ++f)
    {
        SchedFlow flow = j.flows[0];
        flow.id = f;
        j.flows.push_back(flow);
    }
    big.jobs = {j};
    SchedulerConfig c;
    c.numLevels = 3;
    try
    {
        CreateCommScheduler("optimal")->Schedule(big, c);
        FAIL() << "a space of 1048576 was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("1048576 path choices"), std::string::npos) << msg;
        EXPECT_NE(msg.find("limit of 1e+06"), std::string::npos) << msg;
        EXPECT_NE(msg.find("maxSearchSize"), std::string::npos) << msg;
    }
    // One flow fewer fits (2^19 = 524288 x 1 is under the default limit).
    big.jobs[0].flows.pop_back();
    EXPECT_NO_THROW(OptimalSearch(big, 3, OptimalSearchOptions()));

    ClusterModel empty = Figure13Model();
    empty.jobs.clear();
    try
    {
        CreateCommScheduler("optimal")->Schedule(empty, c);
        FAIL() << "an empty job set was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("jobs is empty"), std::string::npos) << e.what();
    }
    c.numLevels = 0;
    try
    {
        CreateCommScheduler("optimal")->Schedule(Figure13Model(), c);
        FAIL() << "zero levels were accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("numLevels"), std::string::npos) << e.what();
    }
    OptimalSearchOptions o;
    o.evaluator.priority = EvaluationPriority::RANK;
    EXPECT_THROW(OptimalSearch(Figure13Model(), 2, o), std::invalid_argument);
    o = OptimalSearchOptions();
    o.maxSearchSize = 0;
    EXPECT_THROW(OptimalSearch(Figure13Model(), 2, o), std::invalid_argument);
}

TEST(RandomCluster, RespectsTheMicrobenchmarkSetting)
{
    RandomClusterParams p; // Crux §4.4 defaults
    std::map<uint32_t, int> torCounts;
    for (uint64_t seed = 1; seed <= 60; ++seed)
    {
        p.slotsPerHost = seed % 2 == 0 ? 2 : 1;
        const ClusterModel m = GenerateRandomCluster(p, seed);
        EXPECT_NO_THROW(Validate(m, SchedulerConfig()));
        const ClusterModel again = GenerateRandomCluster(p, seed);
        ASSERT_EQ(again.jobs.size(), m.jobs.size());
        uint32_t hostLinks = 0;
        uint32_t tors = 0;
        for (const SchedLink& l : m.links)
        {
            hostLinks += l.name[0] == 'h' ? 1 : 0;
            tors += l.name[0] == 't' ? 1 : 0;
            EXPECT_EQ(l.bandwidth, 100e9);
        }
        tors /= p.numAggs;
        torCounts[tors]++;
        EXPECT_GE(tors, 2u);
        EXPECT_LE(tors, 4u);
        EXPECT_EQ(hostLinks, 2 * tors * p.hostsPerTor);
        EXPECT_LE(hostLinks / 2, 20u);
        ASSERT_EQ(m.jobs.size(), 5u);
        std::map<uint32_t, std::set<uint32_t>> jobsOnLink;
        for (std::size_t j = 0; j < m.jobs.size(); ++j)
        {
            const SchedJob& job = m.jobs[j];
            EXPECT_EQ(job.id, j + 1);
            EXPECT_EQ(job.numGpus % (8 / p.slotsPerHost), 0u);
            EXPECT_NEAR(job.flopsPerIteration, job.numGpus * job.computeTime * 100e12, 1);
            EXPECT_GE(job.computeTime, 0.1);
            EXPECT_LE(job.computeTime, 0.4);
            // Deterministic in the seed.
            EXPECT_EQ(job.flopsPerIteration, again.jobs[j].flopsPerIteration);
            EXPECT_EQ(job.flows.size(), again.jobs[j].flows.size());
            const double t = JobCommTime(m, job, DefaultPathChoice(job));
            if (!job.flows.empty())
            {
                EXPECT_GE(t, 0.2 * job.computeTime * (1 - 1e-12));
                EXPECT_LE(t, 1.5 * job.computeTime * (1 + 1e-12));
            }
            for (const SchedFlow& f : job.flows)
            {
                ASSERT_TRUE(f.candidatePaths.size() == 1 || f.candidatePaths.size() == 2);
                const std::size_t len = f.candidatePaths.size() == 1 ? 2 : 4;
                for (const auto& path : f.candidatePaths)
                {
                    EXPECT_EQ(path.size(), len);
                    for (uint32_t l : path)
                    {
                        jobsOnLink[l].insert(job.id);
                    }
                }
                if (f.candidatePaths.size() == 2)
                {
                    EXPECT_NE(f.candidatePaths[0][1], f.candidatePaths[1][1]); // two aggs
                    EXPECT_EQ(f.candidatePaths[0][0], f.candidatePaths[1][0]); // same NIC
                }
            }
        }
        // Host links: one job per host with whole-host slots, at most two with half hosts.
        for (const auto& [link, jobs] : jobsOnLink)
        {
            if (m.links[link].name[0] == 'h')
            {
                EXPECT_LE(jobs.size(), p.slotsPerHost) << m.links[link].name;
            }
        }
    }
    EXPECT_EQ(torCounts.size(), 3u); // 2, 3 and 4 ToRs all occur

    p.maxPathChoices = 16;
    uint32_t draws = 0;
    const ClusterModel capped = GenerateRandomCluster(p, 3, &draws);
    EXPECT_LE(CountPathChoices(capped), 16.0);
    EXPECT_GE(draws, 1u);

    RandomClusterParams bad;
    bad.slotsPerHost = 3;
    EXPECT_THROW(GenerateRandomCluster(bad, 1), std::invalid_argument);
    bad = RandomClusterParams();
    bad.numJobs = 6; // 6 x 2 hosts > 2 ToRs x 5 hosts
    try
    {
        GenerateRandomCluster(bad, 1);
        FAIL() << "12 hosts on a 10-host topology were accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("numJobs"), std::string::npos) << e.what();
    }
    bad = RandomClusterParams();
    bad.maxPathChoices = 1; // impossible with inter-ToR flows most of the time
    bad.maxAttempts = 1;
    bad.minTors = 4;
    EXPECT_THROW(GenerateRandomCluster(bad, 1), std::runtime_error);
}

TEST(StageAblation, TwentyCasesRatiosAreConsistent)
{
    RandomClusterParams p;
    p.slotsPerHost = 2;
    p.maxPathChoices = 32;
    StageAblationOptions o;
    o.search.evaluator.horizonIterations = 20;
    const std::vector<std::string> columns = StageAblationColumns();
    std::map<std::string, double> sum;
    for (uint64_t seed = 1; seed <= 20; ++seed)
    {
        const ClusterModel m = GenerateRandomCluster(p, seed);
        const StageAblationResult r = RunStageAblation(m, o);
        ASSERT_EQ(r.ratios.size(), columns.size());
        std::map<std::string, double> x;
        for (std::size_t c = 0; c < columns.size(); ++c)
        {
            EXPECT_EQ(r.ratios[c].first, columns[c]);
            x[columns[c]] = r.ratios[c].second;
            sum[columns[c]] += r.ratios[c].second;
            EXPECT_GT(r.ratios[c].second, 0.3) << columns[c] << " seed " << seed;
            EXPECT_LE(r.ratios[c].second, 1 + 1e-9) << columns[c] << " seed " << seed;
        }
        EXPECT_GT(r.optimum, 0);
        EXPECT_GT(r.optimumUtilization, 0);
        EXPECT_LE(r.optimumUtilization, 1 + 1e-9);
        EXPECT_EQ(r.levelAssignments, 181u);
        EXPECT_LE(r.pathChoices, 32u);
        // A complete scheduler can do no better than its path stage with everything else
        // optimal; Sincronia's and Varys' compressions are splits of σ*, so <= the best split.
        EXPECT_LE(x["e2e.crux"], x["ps.crux"] + 1e-9);
        EXPECT_LE(x["e2e.crux-ps-pa"], x["ps.crux"] + 1e-9);
        EXPECT_LE(x["e2e.taccl"], x["ps.taccl"] + 1e-9);
        for (const char* e : {"e2e.ecmp", "e2e.sincronia", "e2e.varys", "e2e.crux-pa"})
        {
            EXPECT_LE(x[e], x["ps.ecmp"] + 1e-9) << e;
        }
        EXPECT_LE(x["comp.sincronia"], x["comp.best-split"] + 1e-9);
        EXPECT_LE(x["comp.varys"], x["comp.best-split"] + 1e-9);
        // k diagnostics: the reference job always has k = 1; an unchanged order gives the
        // same best split, so the same pa score.
        EXPECT_LT(r.kNonUnit, m.jobs.size());
        EXPECT_TRUE(r.kReorders || !r.kChangesOrderHead);
        if (!r.kReorders)
        {
            EXPECT_EQ(x["pa.crux"], x["pa.intensity"]) << "seed " << seed;
        }
        else
        {
            EXPECT_GT(r.kNonUnit, 0u) << "seed " << seed;
        }

        // The memoised optimum equals a brute force over every pair, simulated whole.
        if (seed <= 2)
        {
            OptimalSearch search(m, 3, o.search);
            double brute = 0;
            for (uint64_t i = 0; i < search.NumPathChoices(); ++i)
            {
                for (const auto& a : search.LevelAssignments())
                {
                    EvaluationInput in;
                    in.paths = search.PathChoiceAt(i);
                    for (uint32_t b : a)
                    {
                        in.priority.push_back(-static_cast<int64_t>(b));
                    }
                    brute = std::max(brute, search.Evaluator().Evaluate(in).flopsRate);
                }
            }
            EXPECT_NEAR(r.optimum, brute, 1e-9 * brute) << "seed " << seed;
        }
    }
    // Path selection matters on these cases: ECMP's paths lose on average.
    EXPECT_LT(sum["ps.ecmp"] / 20, sum["ps.crux"] / 20);
    EXPECT_LT(sum["ps.ecmp"] / 20, 0.99);
}
