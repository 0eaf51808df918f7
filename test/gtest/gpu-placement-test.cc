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

// GPU placement (gpu-placement.h): job shapes, capacity under random allocate/release
// sequences, locality, random spreading, buddy alignment, full/release, bad input.

#include "ns3/cluster-topology.h"
#include "ns3/gpu-placement.h"

#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A small Clos: tors ToRs x hostsPerTor hosts of 8 GPUs, 2 aggregation switches, one group.
std::vector<PlacementHost>
SmallHosts(uint32_t tors, uint32_t hostsPerTor)
{
    ClosConfig c;
    c.tors = tors;
    c.aggs = 2;
    c.hostsPerTor = hostsPerTor;
    return GpuPlacer::HostsOf(BuildTwoLayerClos(c));
}

/// Hosts in groups: groups x torsPerGroup x hostsPerTor hosts of 8 GPUs.
std::vector<PlacementHost>
GroupedHosts(uint32_t groups, uint32_t torsPerGroup, uint32_t hostsPerTor)
{
    std::vector<PlacementHost> out;
    for (uint32_t g = 0; g < groups; ++g)
    {
        for (uint32_t t = 0; t < torsPerGroup; ++t)
        {
            for (uint32_t h = 0; h < hostsPerTor; ++h)
            {
                out.push_back({8, g * torsPerGroup + t, g});
            }
        }
    }
    return out;
}

std::set<uint32_t>
TorsOf(const std::vector<PlacementHost>& hosts, const std::vector<HostShare>& shares)
{
    std::set<uint32_t> out;
    for (const auto& s : shares)
    {
        out.insert(hosts[s.host].tor);
    }
    return out;
}

uint32_t
CeilPow2(uint32_t k)
{
    uint32_t s = 1;
    while (s < k)
    {
        s *= 2;
    }
    return s;
}

} // namespace

TEST(GpuPlacementTest, ShapeForExamples)
{
    auto eq = [](JobShape s, uint32_t n, uint32_t g) {
        EXPECT_EQ(s.numHosts, n);
        EXPECT_EQ(s.gpusPerHost, g);
    };
    eq(ShapeFor(8, 8), 1, 8);
    eq(ShapeFor(1, 8), 1, 1);
    eq(ShapeFor(5, 8), 1, 5);
    eq(ShapeFor(12, 8), 2, 6);
    eq(ShapeFor(32, 8), 4, 8);
    eq(ShapeFor(11, 8), 11, 1);
    eq(ShapeFor(18, 8), 3, 6);
    eq(ShapeFor(20, 8), 4, 5);
    EXPECT_THROW(ShapeFor(0, 8), std::invalid_argument);
    EXPECT_THROW(ShapeFor(8, 0), std::invalid_argument);
}

TEST(GpuPlacementTest, ParsePolicy)
{
    EXPECT_EQ(ParsePlacementPolicy("locality"), PlacementPolicy::LOCALITY_FIRST);
    EXPECT_EQ(ParsePlacementPolicy("random"), PlacementPolicy::RANDOM);
    EXPECT_EQ(ParsePlacementPolicy("buddy"), PlacementPolicy::BUDDY);
    try
    {
        ParsePlacementPolicy("best");
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("placement"), std::string::npos);
    }
}

TEST(GpuPlacementTest, HostsOfTopology)
{
    const ClusterTopology t = BuildDoubleSided(DoubleSidedConfig{});
    const auto hosts = GpuPlacer::HostsOf(t);
    ASSERT_EQ(hosts.size(), 250U);
    for (uint32_t h = 0; h < hosts.size(); ++h)
    {
        EXPECT_EQ(hosts[h].gpus, 8U);
        EXPECT_EQ(hosts[h].tor, t.hostTor[h]);
        EXPECT_EQ(hosts[h].group, t.torGroup[t.hostTor[h]]);
    }
    GpuPlacer p(hosts, PlacementPolicy::LOCALITY_FIRST, 1);
    EXPECT_EQ(p.TotalGpus(), 2000U);
    EXPECT_EQ(p.FreeGpus(), 2000U);
}

// Random sequences of allocate / release: no GPU is ever given twice or beyond capacity, the
// free count is exact, every share has the requested shape on distinct hosts; for locality and
// random, a job is refused exactly when fewer than numHosts hosts have gpusPerHost free GPUs;
// buddy shares are aligned power-of-two cells.
TEST(GpuPlacementTest, CapacityNeverExceeded)
{
    const std::vector<uint32_t> sizes = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    for (PlacementPolicy policy :
         {PlacementPolicy::LOCALITY_FIRST, PlacementPolicy::RANDOM, PlacementPolicy::BUDDY})
    {
        const auto hosts = GroupedHosts(2, 4, 3); // 24 hosts, 192 GPUs
        GpuPlacer p(hosts, policy, 42);
        std::mt19937_64 rng(123);
        std::map<uint32_t, std::vector<HostShare>> placed;
        uint32_t nextId = 0;
        uint32_t refused = 0;
        uint32_t granted = 0;
        for (int step = 0; step < 3000; ++step)
        {
            if (placed.empty() || rng() % 10 < 6)
            {
                const uint32_t g = sizes[rng() % sizes.size()];
                const JobShape shape = ShapeFor(g, 8);
                uint32_t fitHosts = 0;
                for (uint32_t h = 0; h < hosts.size(); ++h)
                {
                    fitHosts += p.FreeGpusOnHost(h) >= shape.gpusPerHost ? 1 : 0;
                }
                const uint32_t id = nextId++;
                auto r = p.Allocate(id, shape);
                if (policy != PlacementPolicy::BUDDY)
                {
                    EXPECT_EQ(r.has_value(), fitHosts >= shape.numHosts) << "step " << step;
                }
                else if (fitHosts < shape.numHosts)
                {
                    EXPECT_FALSE(r.has_value());
                }
                if (!r)
                {
                    ++refused;
                    EXPECT_EQ(p.Find(id), nullptr);
                    continue;
                }
                ++granted;
                ASSERT_EQ(r->size(), shape.numHosts);
                std::set<uint32_t> hs;
                for (const auto& s : *r)
                {
                    hs.insert(s.host);
                    ASSERT_EQ(s.localGpus.size(), shape.gpusPerHost);
                    if (policy == PlacementPolicy::BUDDY)
                    {
                        const uint32_t cell = CeilPow2(shape.gpusPerHost);
                        EXPECT_EQ(s.localGpus.front() % cell, 0U)
                            << "unaligned buddy cell for " << shape.gpusPerHost << " GPUs";
                        EXPECT_EQ(s.localGpus.back() - s.localGpus.front() + 1, shape.gpusPerHost);
                    }
                }
                EXPECT_EQ(hs.size(), shape.numHosts);
                placed[id] = *r;
            }
            else
            {
                auto it = placed.begin();
                std::advance(it, rng() % placed.size());
                p.Release(it->first);
                placed.erase(it);
            }
            // recount from the shares the test holds
            std::vector<std::vector<int>> use(hosts.size());
            for (uint32_t h = 0; h < hosts.size(); ++h)
            {
                use[h].assign(hosts[h].gpus, 0);
            }
            uint32_t busy = 0;
            for (const auto& [id, shares] : placed)
            {
                for (const auto& s : shares)
                {
                    for (uint32_t gpu : s.localGpus)
                    {
                        ASSERT_LT(gpu, hosts[s.host].gpus);
                        ++use[s.host][gpu];
                        ++busy;
                    }
                }
            }
            for (uint32_t h = 0; h < hosts.size(); ++h)
            {
                uint32_t hostBusy = 0;
                for (uint32_t gpu = 0; gpu < hosts[h].gpus; ++gpu)
                {
                    ASSERT_LE(use[h][gpu], 1) << "GPU given twice";
                    EXPECT_EQ(p.IsBusy(h, gpu), use[h][gpu] == 1);
                    hostBusy += use[h][gpu];
                }
                EXPECT_EQ(p.FreeGpusOnHost(h), hosts[h].gpus - hostBusy);
            }
            ASSERT_EQ(p.FreeGpus(), p.TotalGpus() - busy);
            EXPECT_EQ(p.NumJobs(), placed.size());
        }
        // the sequence exercised both outcomes
        EXPECT_GT(refused, 50U) << ToString(policy);
        EXPECT_GT(granted, 500U) << ToString(policy);
    }
}

TEST(GpuPlacementTest, LocalityFirst)
{
    const auto hosts = GroupedHosts(2, 4, 3); // ToRs of 3 hosts, groups of 4 ToRs
    GpuPlacer p(hosts, PlacementPolicy::LOCALITY_FIRST, 1);
    // a 4-GPU job on an empty cluster: host 0 (all hosts tie, lowest index)
    ASSERT_TRUE(p.Allocate(100, {1, 4}));
    EXPECT_EQ(p.Find(100)->front().host, 0U);
    // best fit: the next 4-GPU job goes to host 0 (fewest free GPUs that suffice)
    auto r = p.Allocate(101, {1, 4});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->front().host, 0U);
    EXPECT_EQ(r->front().localGpus, (std::vector<uint32_t>{4, 5, 6, 7}));
    // a 2-host job that fits in one ToR gets one ToR: ToR 0 (hosts 1, 2: the fewest
    // eligible hosts that suffice)
    r = p.Allocate(102, {2, 8});
    ASSERT_TRUE(r);
    EXPECT_EQ(TorsOf(hosts, *r).size(), 1U);
    EXPECT_EQ(*TorsOf(hosts, *r).begin(), 0U);
    // a 3-host job (ToR 0 is full now, the others have 3 free hosts): one ToR
    r = p.Allocate(103, {3, 8});
    ASSERT_TRUE(r);
    EXPECT_EQ(TorsOf(hosts, *r).size(), 1U);
    // a 5-host job (no ToR has 5 free hosts): two ToRs of one group
    r = p.Allocate(104, {5, 8});
    ASSERT_TRUE(r);
    EXPECT_EQ(TorsOf(hosts, *r).size(), 2U);
    std::set<uint32_t> groups;
    for (const auto& s : *r)
    {
        groups.insert(hosts[s.host].group);
    }
    EXPECT_EQ(groups.size(), 1U);
    // 13 hosts (more than a group of 12): anywhere, two groups
    GpuPlacer q(hosts, PlacementPolicy::LOCALITY_FIRST, 1);
    r = q.Allocate(1, {13, 8});
    ASSERT_TRUE(r);
    EXPECT_EQ(TorsOf(hosts, *r).size(), 5U);
}

TEST(GpuPlacementTest, RandomSpreadsMoreThanLocality)
{
    const auto hosts = SmallHosts(8, 3); // 24 hosts, ToRs of 3
    double torsRandom = 0;
    double torsLocality = 0;
    const int trials = 200;
    for (int s = 0; s < trials; ++s)
    {
        GpuPlacer rnd(hosts, PlacementPolicy::RANDOM, s);
        GpuPlacer loc(hosts, PlacementPolicy::LOCALITY_FIRST, s);
        auto a = rnd.Allocate(1, {4, 8});
        auto b = loc.Allocate(1, {4, 8});
        ASSERT_TRUE(a && b);
        torsRandom += TorsOf(hosts, *a).size();
        torsLocality += TorsOf(hosts, *b).size();
    }
    torsRandom /= trials;
    torsLocality /= trials;
    // locality: 4 hosts over ToRs of 3 -> always 2 ToRs; random: 4 draws out of 8 ToRs x 3
    // hosts, expected distinct ToRs = 8 * (1 - C(21,4)/C(24,4)) = 3.49 (sd of the mean
    // over 200 trials ~0.04)
    EXPECT_DOUBLE_EQ(torsLocality, 2.0);
    EXPECT_GT(torsRandom, 3.3);
    EXPECT_LT(torsRandom, 3.7);
    // reproducible for a seed
    GpuPlacer r1(hosts, PlacementPolicy::RANDOM, 9);
    GpuPlacer r2(hosts, PlacementPolicy::RANDOM, 9);
    for (uint32_t j = 0; j < 5; ++j)
    {
        auto x = r1.Allocate(j, {2, 4});
        auto y = r2.Allocate(j, {2, 4});
        ASSERT_TRUE(x && y);
        for (std::size_t i = 0; i < x->size(); ++i)
        {
            EXPECT_EQ((*x)[i].host, (*y)[i].host);
            EXPECT_EQ((*x)[i].localGpus, (*y)[i].localGpus);
        }
    }
}

TEST(GpuPlacementTest, BuddyAlignedCells)
{
    const auto hosts = SmallHosts(2, 2); // 4 hosts of 8 GPUs
    GpuPlacer b(hosts, PlacementPolicy::BUDDY, 1);
    GpuPlacer l(hosts, PlacementPolicy::LOCALITY_FIRST, 1);
    auto gpus = [](GpuPlacer& p, uint32_t id, JobShape s) {
        auto r = p.Allocate(id, s);
        EXPECT_TRUE(r);
        return r ? r->front() : HostShare{};
    };
    // 1 GPU, then 2, then 4, then 1: buddy packs one host in aligned cells
    HostShare s = gpus(b, 1, {1, 1});
    EXPECT_EQ(s.host, 0U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{0}));
    s = gpus(b, 2, {1, 2});
    EXPECT_EQ(s.host, 0U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{2, 3}));
    s = gpus(b, 3, {1, 4});
    EXPECT_EQ(s.host, 0U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{4, 5, 6, 7}));
    s = gpus(b, 4, {1, 1});
    EXPECT_EQ(s.host, 0U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{1}));
    EXPECT_EQ(b.FreeGpusOnHost(0), 0U);
    // locality-first takes the lowest free GPUs instead (not aligned)
    gpus(l, 1, {1, 1});
    s = gpus(l, 2, {1, 2});
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{1, 2}));
    // 3 GPUs take an aligned 4-cell, leaving its last GPU for a 1-GPU job
    s = gpus(b, 5, {1, 3});
    EXPECT_EQ(s.host, 1U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{0, 1, 2}));
    s = gpus(b, 6, {1, 1});
    EXPECT_EQ(s.host, 1U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{3}));
    // host 1 has GPUs 4..7 free: a 2-GPU job goes there (partly used cell) at 4
    s = gpus(b, 7, {1, 2});
    EXPECT_EQ(s.host, 1U);
    EXPECT_EQ(s.localGpus, (std::vector<uint32_t>{4, 5}));
    // a 2-host job of 8 GPUs each: ToR 1 (hosts 2, 3) is the only ToR cell that can hold it
    auto r = b.Allocate(8, {2, 8});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->at(0).host, 2U);
    EXPECT_EQ(r->at(1).host, 3U);
    // a 4-GPU job no longer fits anywhere (host 1 has 6, 7 free only)
    EXPECT_FALSE(b.Allocate(9, {1, 4}));
    EXPECT_TRUE(b.Allocate(10, {1, 2}));
}

TEST(GpuPlacementTest, FullThenRelease)
{
    for (PlacementPolicy policy :
         {PlacementPolicy::LOCALITY_FIRST, PlacementPolicy::RANDOM, PlacementPolicy::BUDDY})
    {
        const auto hosts = SmallHosts(3, 2); // 6 hosts
        GpuPlacer p(hosts, policy, 5);
        for (uint32_t j = 0; j < 6; ++j)
        {
            ASSERT_TRUE(p.Allocate(j, {1, 8})) << ToString(policy);
        }
        EXPECT_EQ(p.FreeGpus(), 0U);
        EXPECT_FALSE(p.Allocate(10, {1, 1}));
        EXPECT_EQ(p.Find(10), nullptr);
        const uint32_t freedHost = p.Find(3)->front().host;
        p.Release(3);
        EXPECT_EQ(p.FreeGpus(), 8U);
        EXPECT_FALSE(p.Allocate(11, {2, 4})); // 8 GPUs free, but on one host
        auto r = p.Allocate(10, {1, 8});
        ASSERT_TRUE(r);
        EXPECT_EQ(r->front().host, freedHost);
        EXPECT_EQ(p.FreeGpus(), 0U);
    }
}

// Explicit hosts (a scenario's "hosts", a trace's recorded hosts): the listed order is kept,
// each host gives its lowest free GPUs, a busy host means "not now", and impossible requests
// are errors; the placer's other policies see those GPUs as taken.
TEST(GpuPlacementTest, AllocateOnListedHosts)
{
    for (PlacementPolicy policy :
         {PlacementPolicy::LOCALITY_FIRST, PlacementPolicy::RANDOM, PlacementPolicy::BUDDY})
    {
        GpuPlacer p(SmallHosts(2, 2), policy, 3); // 4 hosts x 8 GPUs
        auto a = p.AllocateOn(1, {3, 0}, 4);
        ASSERT_TRUE(a) << ToString(policy);
        ASSERT_EQ(a->size(), 2U);
        EXPECT_EQ((*a)[0].host, 3U);
        EXPECT_EQ((*a)[1].host, 0U);
        EXPECT_EQ((*a)[0].localGpus, (std::vector<uint32_t>{0, 1, 2, 3}));
        auto b = p.AllocateOn(2, {0}, 3);
        ASSERT_TRUE(b);
        EXPECT_EQ(b->front().localGpus, (std::vector<uint32_t>{4, 5, 6}));
        EXPECT_EQ(p.FreeGpusOnHost(0), 1U);
        EXPECT_FALSE(p.AllocateOn(3, {1, 0}, 2)); // host 0 has 1 free GPU: not now
        EXPECT_EQ(p.FreeGpusOnHost(1), 8U);       // nothing taken by the failed call
        EXPECT_EQ(p.Find(3), nullptr);
        EXPECT_THROW(p.AllocateOn(4, {4}, 1), std::invalid_argument);    // no such host
        EXPECT_THROW(p.AllocateOn(4, {1, 1}, 1), std::invalid_argument); // listed twice
        EXPECT_THROW(p.AllocateOn(4, {1}, 9), std::invalid_argument);    // more than it has
        EXPECT_THROW(p.AllocateOn(4, {}, 1), std::invalid_argument);
        EXPECT_THROW(p.AllocateOn(1, {2}, 1), std::invalid_argument); // job 1 already placed
        EXPECT_EQ(p.FreeGpus(), 32U - 11U);
        p.Release(1);
        EXPECT_EQ(p.FreeGpusOnHost(3), 8U);
        EXPECT_EQ(p.FreeGpus(), 32U - 3U);
    }
}

TEST(GpuPlacementTest, BadInput)
{
    const auto hosts = SmallHosts(2, 2);
    GpuPlacer p(hosts, PlacementPolicy::LOCALITY_FIRST, 1);
    ASSERT_TRUE(p.Allocate(1, {1, 2}));
    EXPECT_THROW(p.Allocate(1, {1, 2}), std::invalid_argument); // duplicate id
    EXPECT_THROW(p.Allocate(2, {1, 9}), std::invalid_argument); // more GPUs than a host
    EXPECT_THROW(p.Allocate(2, {5, 1}), std::invalid_argument); // more hosts than exist
    EXPECT_THROW(p.Allocate(2, {0, 1}), std::invalid_argument);
    EXPECT_THROW(p.Allocate(2, {1, 0}), std::invalid_argument);
    EXPECT_THROW(p.Release(2), std::out_of_range);
    EXPECT_THROW(p.FreeGpusOnHost(4), std::out_of_range);
    EXPECT_THROW(GpuPlacer({}, PlacementPolicy::RANDOM, 1), std::invalid_argument);
    EXPECT_THROW(GpuPlacer({{0, 0, 0}}, PlacementPolicy::RANDOM, 1), std::invalid_argument);
    // a failed call changes nothing
    EXPECT_EQ(p.FreeGpus(), 30U);
    p.Release(1);
    EXPECT_EQ(p.FreeGpus(), 32U);
    EXPECT_THROW(p.Release(1), std::out_of_range);
}
