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

// Shared GoogleTest helpers for the scheduler tests; see scheduler-test-util.h.

#include "scheduler-test-util.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

SchedFlow
PathFlow(uint32_t id, double bytes, std::vector<uint32_t> path)
{
    SchedFlow f;
    f.id = id;
    f.bytesPerIteration = bytes;
    f.candidatePaths = {std::move(path)};
    return f;
}

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

std::string
CreateError(const std::string& name, const CommSchedulerAttributes& attributes)
{
    try
    {
        CreateCommScheduler(name, attributes);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

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

} // namespace test
} // namespace ns3
