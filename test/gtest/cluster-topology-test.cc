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

// Production-scale topologies (cluster-topology.h): sizes of each builder, equal-cost path counts
// and shapes, ECMP hash, bad configurations.

#include "ns3/cluster-topology.h"
#include "ns3/lingjun-trace.h"

#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Check that every path is a contiguous walk from srcHost's node to dstHost's node, that the
/// paths are distinct and all have the same length; return that length.
std::size_t
CheckPaths(const ClusterTopology& t,
           const std::vector<std::vector<uint32_t>>& paths,
           uint32_t srcHost,
           uint32_t dstHost)
{
    EXPECT_FALSE(paths.empty());
    std::set<std::vector<uint32_t>> distinct(paths.begin(), paths.end());
    EXPECT_EQ(distinct.size(), paths.size()) << "duplicate paths";
    const std::size_t len = paths.empty() ? 0 : paths.front().size();
    for (const auto& p : paths)
    {
        EXPECT_EQ(p.size(), len);
        if (p.empty())
        {
            continue;
        }
        for (uint32_t l : p)
        {
            EXPECT_LT(l, t.links.size());
        }
        EXPECT_EQ(t.linkEnds[p.front()].first, t.hostNode[srcHost]);
        EXPECT_EQ(t.linkEnds[p.back()].second, t.hostNode[dstHost]);
        for (std::size_t i = 0; i + 1 < p.size(); ++i)
        {
            EXPECT_EQ(t.linkEnds[p[i]].second, t.linkEnds[p[i + 1]].first)
                << "path not contiguous at hop " << i;
        }
        // no host is transited
        for (std::size_t i = 0; i + 1 < p.size(); ++i)
        {
            EXPECT_NE(t.nodes[t.linkEnds[p[i]].second].kind, ClusterNodeKind::HOST);
        }
    }
    return len;
}

/// Structural invariants common to all builders.
void
CheckStructure(const ClusterTopology& t)
{
    ASSERT_EQ(t.links.size(), t.linkEnds.size());
    ASSERT_EQ(t.links.size(), t.linkDelay.size());
    ASSERT_EQ(t.links.size() % 2, 0U);
    for (uint32_t l = 0; l < t.links.size(); ++l)
    {
        EXPECT_GT(t.links[l].bandwidth, 0);
        EXPECT_GE(t.linkDelay[l], 0);
        const auto& e = t.linkEnds[l];
        const auto& r = t.linkEnds[ClusterTopology::Reverse(l)];
        EXPECT_EQ(e.first, r.second);
        EXPECT_EQ(e.second, r.first);
        EXPECT_LT(e.first, t.nodes.size());
        EXPECT_LT(e.second, t.nodes.size());
    }
    ASSERT_EQ(t.hostTor.size(), t.NumHosts());
    ASSERT_EQ(t.torGroup.size(), t.NumTors());
    for (uint32_t h = 0; h < t.NumHosts(); ++h)
    {
        EXPECT_EQ(t.nodes[t.hostNode[h]].kind, ClusterNodeKind::HOST);
        EXPECT_LT(t.hostTor[h], t.NumTors());
    }
    for (uint32_t tor = 0; tor < t.NumTors(); ++tor)
    {
        EXPECT_EQ(t.nodes[t.torNode[tor]].kind, ClusterNodeKind::TOR);
    }
}

uint32_t
CountKind(const ClusterTopology& t, ClusterNodeKind k)
{
    uint32_t n = 0;
    for (const auto& node : t.nodes)
    {
        n += node.kind == k ? 1 : 0;
    }
    return n;
}

/// Distinct nodes of kind k visited by a set of paths.
std::set<uint32_t>
NodesOfKind(const ClusterTopology& t,
            const std::vector<std::vector<uint32_t>>& paths,
            ClusterNodeKind k)
{
    std::set<uint32_t> out;
    for (const auto& p : paths)
    {
        for (uint32_t l : p)
        {
            if (t.nodes[t.linkEnds[l].second].kind == k)
            {
                out.insert(t.linkEnds[l].second);
            }
        }
    }
    return out;
}

/// First pair of distinct hosts satisfying pred, or fail.
std::pair<uint32_t, uint32_t>
FindPair(const ClusterTopology& t, const std::function<bool(uint32_t, uint32_t)>& pred)
{
    for (uint32_t a = 0; a < t.NumHosts(); ++a)
    {
        for (uint32_t b = a + 1; b < t.NumHosts(); ++b)
        {
            if (pred(a, b))
            {
                return {a, b};
            }
        }
    }
    ADD_FAILURE() << "no host pair found";
    return {0, 0};
}

} // namespace

TEST(ClusterTopologyTest, ClosDefaultSizes)
{
    const ClusterTopology t = BuildTwoLayerClos(ClosConfig{});
    CheckStructure(t);
    EXPECT_EQ(t.name, "clos");
    // 250 hosts (ASSUMPTION, 2,000 GPUs) + 173 ToRs + 16 aggregation switches = 439 nodes.
    EXPECT_EQ(t.NumHosts(), 250U);
    EXPECT_EQ(t.NumTors(), 173U);
    EXPECT_EQ(CountKind(t, ClusterNodeKind::AGG), 16U);
    EXPECT_EQ(CountKind(t, ClusterNodeKind::CORE), 0U);
    EXPECT_EQ(t.nodes.size(), 439U);
    // directed links: 2 x (250 hosts x 4 NICs + 173 ToRs x 16 aggs) = 2 x (1000 + 2768) = 7536
    EXPECT_EQ(t.links.size(), 7536U);
    EXPECT_EQ(t.NumGpus(), 2000U);
    // 250 hosts over 173 ToRs in contiguous blocks: 77 ToRs with 2 hosts, 96 with 1
    std::map<uint32_t, uint32_t> perTor;
    for (uint32_t h = 0; h < t.NumHosts(); ++h)
    {
        ++perTor[t.hostTor[h]];
        if (h > 0)
        {
            EXPECT_GE(t.hostTor[h], t.hostTor[h - 1]);
        }
    }
    std::map<uint32_t, uint32_t> histogram;
    for (const auto& [tor, n] : perTor)
    {
        ++histogram[n];
    }
    EXPECT_EQ(perTor.size(), 173U);
    EXPECT_EQ(histogram[1], 96U);
    EXPECT_EQ(histogram[2], 77U);
    // hostsPerTor overrides numHosts
    ClosConfig c;
    c.hostsPerTor = 2;
    const ClusterTopology t2 = BuildTwoLayerClos(c);
    EXPECT_EQ(t2.NumHosts(), 346U);
    EXPECT_EQ(t2.NumGpus(), 2768U);
    EXPECT_EQ(t2.links.size(), 2U * (346 * 4 + 173 * 16));
}

TEST(ClusterTopologyTest, ClosPaths)
{
    const ClusterTopology t = BuildTwoLayerClos(ClosConfig{});
    // same host: one empty path
    const auto self = t.EqualCostPaths(3, 0, 3, 7);
    ASSERT_EQ(self.size(), 1U);
    EXPECT_TRUE(self[0].empty());
    // same ToR: one path host -> ToR -> host
    const auto [a, b] =
        FindPair(t, [&](uint32_t x, uint32_t y) { return t.hostTor[x] == t.hostTor[y]; });
    const auto same = t.EqualCostPaths(a, 0, b, 5);
    ASSERT_EQ(same.size(), 1U);
    EXPECT_EQ(CheckPaths(t, same, a, b), 2U);
    // different ToRs: one path per aggregation switch
    const auto [c, d] =
        FindPair(t, [&](uint32_t x, uint32_t y) { return t.hostTor[x] != t.hostTor[y]; });
    const auto diff = t.EqualCostPaths(c, 2, d, 6);
    ASSERT_EQ(diff.size(), 16U);
    EXPECT_EQ(CheckPaths(t, diff, c, d), 4U);
    EXPECT_EQ(NodesOfKind(t, diff, ClusterNodeKind::AGG).size(), 16U);
    // the GPU's NIC decides the first and last link: GPUs 2 and 3 share NIC 1, GPU 4 does not
    EXPECT_EQ(t.NicOfGpu(2), 1U);
    EXPECT_EQ(t.NicOfGpu(3), 1U);
    EXPECT_EQ(t.NicOfGpu(7), 3U);
    const auto diff3 = t.EqualCostPaths(c, 3, d, 6);
    const auto diff4 = t.EqualCostPaths(c, 4, d, 4); // NIC 2 at both ends
    EXPECT_EQ(diff3, diff);
    EXPECT_NE(diff4.front().front(), diff.front().front());
    EXPECT_NE(diff4.front().back(), diff.front().back());
    for (const auto& p : diff)
    {
        EXPECT_EQ(p.front(), t.nicUp[c][1][0]);
        EXPECT_EQ(p.back(), ClusterTopology::Reverse(t.nicUp[d][3][0]));
    }
    // cap
    EXPECT_EQ(t.EqualCostPaths(c, 2, d, 6, 5).size(), 5U);
    EXPECT_EQ(t.EqualCostPaths(c, 2, d, 6, 5),
              std::vector<std::vector<uint32_t>>(diff.begin(), diff.begin() + 5));
    // deterministic
    EXPECT_EQ(t.EqualCostPaths(c, 2, d, 6), diff);
    // bad ids
    EXPECT_THROW(t.EqualCostPaths(250, 0, 0, 0), std::out_of_range);
    EXPECT_THROW(t.EqualCostPaths(0, 0, 0, 8), std::out_of_range);
    EXPECT_THROW(t.EqualCostPaths(0, 0, 1, 0, 0), std::invalid_argument);
}

TEST(ClusterTopologyTest, DoubleSidedDefaultSizesAndPaths)
{
    const ClusterTopology t = BuildDoubleSided(DoubleSidedConfig{});
    CheckStructure(t);
    EXPECT_EQ(t.name, "double-sided");
    // 250 hosts + 6 ToRs + 12 aggs + 32 cores = 300 nodes
    EXPECT_EQ(t.nodes.size(), 300U);
    EXPECT_EQ(t.NumTors(), 6U);
    EXPECT_EQ(CountKind(t, ClusterNodeKind::AGG), 12U);
    EXPECT_EQ(CountKind(t, ClusterNodeKind::CORE), 32U);
    // directed links: 2 x (250 hosts x 4 NICs x 2 ports + 6 ToRs x 4 pod aggs
    //                      + 12 aggs x 8 plane cores) = 2 x (2000 + 24 + 96) = 4240
    EXPECT_EQ(t.links.size(), 4240U);
    EXPECT_EQ(t.NumGpus(), 2000U);
    // every host: eight uplinks, to exactly two ToRs of one pair (4 each)
    for (uint32_t h = 0; h < t.NumHosts(); ++h)
    {
        std::map<uint32_t, uint32_t> torLinks;
        uint32_t ups = 0;
        for (uint32_t n = 0; n < t.nicsPerHost; ++n)
        {
            ASSERT_EQ(t.nicUp[h][n].size(), 2U);
            for (uint32_t l : t.nicUp[h][n])
            {
                ++ups;
                ++torLinks[t.linkEnds[l].second];
            }
        }
        EXPECT_EQ(ups, 8U);
        ASSERT_EQ(torLinks.size(), 2U);
        EXPECT_EQ(torLinks.begin()->second, 4U);
        EXPECT_EQ(t.hostTor[h] % 2, 0U);
        EXPECT_EQ(torLinks.begin()->first, t.torNode[t.hostTor[h]]);
        EXPECT_EQ(std::next(torLinks.begin())->first, t.torNode[t.hostTor[h] + 1]);
    }
    // hosts per pod: 83 / 83 / 84 (contiguous blocks of 250 / 3)
    std::map<uint32_t, uint32_t> perPod;
    for (uint32_t h = 0; h < t.NumHosts(); ++h)
    {
        ++perPod[t.torGroup[t.hostTor[h]]];
    }
    EXPECT_EQ(perPod[0], 83U);
    EXPECT_EQ(perPod[1], 83U);
    EXPECT_EQ(perPod[2], 84U);

    // same pod (same ToR pair): one path through each of the two ToRs
    const auto same = t.EqualCostPaths(0, 0, 1, 7);
    ASSERT_EQ(same.size(), 2U);
    EXPECT_EQ(CheckPaths(t, same, 0, 1), 2U);
    EXPECT_EQ(NodesOfKind(t, same, ClusterNodeKind::TOR).size(), 2U);
    // different pods: 2 source ToRs x 4 aggs x 8 cores (of the agg's plane) x 2 destination ToRs
    const auto all = t.EqualCostPaths(0, 0, 249, 3, 1000);
    ASSERT_EQ(all.size(), 128U);
    EXPECT_EQ(CheckPaths(t, all, 0, 249), 6U);
    EXPECT_EQ(NodesOfKind(t, all, ClusterNodeKind::CORE).size(), 32U);
    EXPECT_EQ(NodesOfKind(t, all, ClusterNodeKind::AGG).size(), 8U);
    // default cap 64: the first 64 of that order, still over all 32 cores and all 4 ToRs
    const auto capped = t.EqualCostPaths(0, 0, 249, 3);
    ASSERT_EQ(capped.size(), 64U);
    EXPECT_EQ(capped, std::vector<std::vector<uint32_t>>(all.begin(), all.begin() + 64));
    CheckPaths(t, capped, 0, 249);
    EXPECT_EQ(NodesOfKind(t, capped, ClusterNodeKind::CORE).size(), 32U);
    EXPECT_EQ(NodesOfKind(t, capped, ClusterNodeKind::TOR).size(), 4U);
}

TEST(ClusterTopologyTest, ThreeTierLingjun)
{
    std::vector<TraceWarning> w;
    const LingjunTopology lt =
        ReadLingjunTopology(std::string(CRUX_SOURCE_DIR) + "/data/lingjun-2023/topo.csv", w);
    const ClusterTopology t = BuildThreeTier(lt.hostTor, lt.torPsw, ThreeTierConfig{});
    CheckStructure(t);
    EXPECT_EQ(t.name, "lingjun");
    EXPECT_EQ(t.NumHosts(), 847U);
    EXPECT_EQ(t.NumTors(), 119U);
    EXPECT_EQ(t.NumGpus(), 6776U);
    EXPECT_EQ(std::set<uint32_t>(t.torGroup.begin(), t.torGroup.end()).size(), 3U);
    // 847 hosts + 119 ToRs + 3 groups x 8 aggs + 64 cores = 1054 nodes
    EXPECT_EQ(CountKind(t, ClusterNodeKind::AGG), 24U);
    EXPECT_EQ(CountKind(t, ClusterNodeKind::CORE), 64U);
    EXPECT_EQ(t.nodes.size(), 1054U);
    // directed links: 2 x (847 x 4 NICs + 119 ToRs x 8 aggs + 24 aggs x 8 plane cores)
    //               = 2 x (3388 + 952 + 192) = 9064
    EXPECT_EQ(t.links.size(), 9064U);
    EXPECT_EQ(t.hostTor, lt.hostTor);

    const auto [a, b] =
        FindPair(t, [&](uint32_t x, uint32_t y) { return t.hostTor[x] == t.hostTor[y]; });
    const auto same = t.EqualCostPaths(a, 1, b, 1);
    ASSERT_EQ(same.size(), 1U);
    EXPECT_EQ(CheckPaths(t, same, a, b), 2U);

    const auto [c, d] = FindPair(t, [&](uint32_t x, uint32_t y) {
        return t.hostTor[x] != t.hostTor[y] && t.torGroup[t.hostTor[x]] == t.torGroup[t.hostTor[y]];
    });
    const auto group = t.EqualCostPaths(c, 0, d, 4);
    ASSERT_EQ(group.size(), 8U);
    EXPECT_EQ(CheckPaths(t, group, c, d), 4U);

    const auto [e, f] = FindPair(t, [&](uint32_t x, uint32_t y) {
        return t.torGroup[t.hostTor[x]] != t.torGroup[t.hostTor[y]];
    });
    const auto cross = t.EqualCostPaths(e, 0, f, 4, 1000);
    ASSERT_EQ(cross.size(), 64U);
    EXPECT_EQ(CheckPaths(t, cross, e, f), 6U);
    EXPECT_EQ(NodesOfKind(t, cross, ClusterNodeKind::CORE).size(), 64U);
}

TEST(ClusterTopologyTest, ThreeTierSmallMembership)
{
    // 5 hosts; ToRs 0,1 in group 0, ToR 2 in group 1; 2 aggs per group, 4 cores (2 planes)
    ThreeTierConfig c;
    c.aggsPerGroup = 2;
    c.cores = 4;
    c.nicsPerHost = 2;
    c.gpusPerHost = 4;
    c.name = "small";
    const ClusterTopology t = BuildThreeTier({0, 0, 1, 2, 2}, {0, 0, 1}, c);
    CheckStructure(t);
    EXPECT_EQ(t.nodes.size(), 5U + 3 + 4 + 4);
    EXPECT_EQ(t.links.size(), 2U * (5 * 2 + 3 * 2 + 4 * 2));
    EXPECT_EQ(t.EqualCostPaths(0, 0, 1, 3).size(), 1U);
    EXPECT_EQ(t.EqualCostPaths(0, 0, 2, 3).size(), 2U);
    EXPECT_EQ(t.EqualCostPaths(0, 0, 3, 3).size(), 4U);
    CheckPaths(t, t.EqualCostPaths(4, 3, 1, 0), 4, 1);
}

TEST(ClusterTopologyTest, EcmpPathIndexDeterministicAndUniform)
{
    const uint32_t paths = 16;
    std::vector<uint32_t> counts(paths, 0);
    uint32_t sameAsOtherSeed = 0;
    for (uint32_t job = 0; job < 400; ++job)
    {
        for (uint32_t flow = 0; flow < 40; ++flow)
        {
            const uint32_t i = EcmpPathIndex(7, job, flow, paths);
            ASSERT_LT(i, paths);
            EXPECT_EQ(i, EcmpPathIndex(7, job, flow, paths));
            ++counts[i];
            sameAsOtherSeed += i == EcmpPathIndex(8, job, flow, paths) ? 1 : 0;
        }
    }
    // 16,000 draws: expected 1,000 per path, standard deviation ~31; allow +-15 %
    for (uint32_t p = 0; p < paths; ++p)
    {
        EXPECT_GT(counts[p], 850U) << "path " << p;
        EXPECT_LT(counts[p], 1150U) << "path " << p;
    }
    // another seed gives an (almost) independent choice: about 1/16 agree
    EXPECT_LT(sameAsOtherSeed, 16000U / 8);
    EXPECT_EQ(EcmpPathIndex(1, 2, 3, 1), 0U);
    EXPECT_THROW(EcmpPathIndex(1, 2, 3, 0), std::invalid_argument);
}

namespace
{

template <typename F>
void
ExpectInvalid(F f, const std::string& field)
{
    try
    {
        f();
        ADD_FAILURE() << "no exception for " << field;
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
            << "message '" << e.what() << "' does not name " << field;
    }
}

} // namespace

TEST(ClusterTopologyTest, BadConfigNamesTheField)
{
    {
        ClosConfig c;
        c.tors = 0;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "tors");
    }
    {
        ClosConfig c;
        c.aggs = 0;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "aggs");
    }
    {
        ClosConfig c;
        c.numHosts = 0;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "numHosts");
    }
    {
        ClosConfig c;
        c.hostLinkBps = 0;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "hostLinkBps");
    }
    {
        ClosConfig c;
        c.torAggBps = -1;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "torAggBps");
    }
    {
        ClosConfig c;
        c.delay = -1e-6;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "delay");
    }
    {
        DoubleSidedConfig c;
        c.tors = 5;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "tors");
    }
    {
        DoubleSidedConfig c;
        c.aggs = 13;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "aggs");
    }
    {
        DoubleSidedConfig c;
        c.cores = 30;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "cores");
    }
    {
        DoubleSidedConfig c;
        c.aggCoreBps = 0;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "aggCoreBps");
    }
    {
        DoubleSidedConfig c;
        c.nicsPerHost = 0;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "nicsPerHost");
    }
    {
        ThreeTierConfig c;
        c.cores = 10;
        ExpectInvalid([&] { BuildThreeTier({0}, {0}, c); }, "cores");
    }
    {
        ThreeTierConfig c;
        c.aggsPerGroup = 0;
        ExpectInvalid([&] { BuildThreeTier({0}, {0}, c); }, "aggsPerGroup");
    }
    {
        ThreeTierConfig c;
        c.gpusPerHost = 0;
        ExpectInvalid([&] { BuildThreeTier({0}, {0}, c); }, "gpusPerHost");
    }
    ExpectInvalid([&] { BuildThreeTier({0, 2}, {0, 0}, ThreeTierConfig{}); }, "hostTor");
    ExpectInvalid([&] { BuildThreeTier({}, {0}, ThreeTierConfig{}); }, "hostTor");
    ExpectInvalid([&] { BuildThreeTier({0}, {}, ThreeTierConfig{}); }, "torGroup");
}

// A typo in a count is refused before anything is allocated (it used to allocate for hours):
// 65,536 ToRs x 65,536 aggregation switches = 2^32 cables; the bound is 2^22 cables.
TEST(ClusterTopologyTest, OversizedFabricRefusedBeforeAllocation)
{
    {
        ClosConfig c;
        c.tors = 65536;
        c.aggs = 65536;
        c.hostsPerTor = 1;
        c.nicsPerHost = 1;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "4295032832 cables");
    }
    {
        // one over the bound: 1,024 host cables + 1,024 ToRs x 4,096 aggs = 4,195,328 cables
        ClosConfig c;
        c.tors = 1024;
        c.aggs = 4096;
        c.hostsPerTor = 1;
        c.nicsPerHost = 1;
        ExpectInvalid([&] { BuildTwoLayerClos(c); }, "4195328 cables");
    }
    {
        DoubleSidedConfig c;
        c.tors = 2;
        c.aggs = 4096;
        c.cores = 4096 * 1024;
        ExpectInvalid([&] { BuildDoubleSided(c); }, "cables");
    }
    {
        ThreeTierConfig c;
        c.aggsPerGroup = 1;
        c.cores = 1 << 22;
        ExpectInvalid([&] { BuildThreeTier({0}, {0}, c); }, "cables");
    }
    ExpectInvalid([&] { BuildThreeTier(std::vector<uint32_t>(65537, 0), {0}, ThreeTierConfig{}); },
                  "65537 hosts");
}

// ------------------------------------------------------------------ intra-host links (issue 12)

namespace
{

/// The testbed Clos (12 hosts x 8 GPUs, 4 NICs: one NIC per GPU pair) with intra-host links.
ClusterTopology
TestbedWithIntraHost()
{
    ClusterTopology t = BuildTwoLayerClos(TestbedClosConfig());
    AddIntraHostLinks(t, IntraHostConfig());
    return t;
}

} // namespace

TEST(CruxIntraHost, NodesLinksAndNetworkPartUnchanged)
{
    const ClusterTopology plain = BuildTwoLayerClos(TestbedClosConfig());
    const ClusterTopology t = TestbedWithIntraHost();
    EXPECT_FALSE(plain.HasIntraHostLinks());
    EXPECT_TRUE(t.HasIntraHostLinks());
    // per host: 8 GPUs + 4 PCIe switches + 1 NVSwitch; 2 x (2 x 8 + 4) directed links
    EXPECT_EQ(t.nodes.size(), plain.nodes.size() + 12 * 13);
    EXPECT_EQ(t.links.size(), plain.links.size() + 12 * 2 * (2 * 8 + 4));
    EXPECT_EQ(t.NumNetworkLinks(), plain.links.size());
    EXPECT_EQ(t.NumNetworkNodes(), plain.nodes.size());
    EXPECT_EQ(t.NumSwitches(), plain.NumSwitches());
    for (uint32_t l = 0; l < plain.links.size(); ++l)
    {
        EXPECT_EQ(t.links[l].name, plain.links[l].name);
        EXPECT_EQ(t.linkEnds[l], plain.linkEnds[l]);
    }
    EXPECT_EQ(t.nodePorts[t.hostNode[3]], plain.nodePorts[plain.hostNode[3]]);
    // the network routing does not see the intra-host part
    EXPECT_EQ(t.EqualCostPaths(0, 0, 5, 3), plain.EqualCostPaths(0, 0, 5, 3));
    EXPECT_EQ(t.ShortestPathHops(t.torNode[1]).size(), t.nodes.size());
    // defaults with their sources (IntraHostConfig)
    EXPECT_DOUBLE_EQ(t.links[t.gpuPcie[0][0]].bandwidth, 192e9);
    EXPECT_DOUBLE_EQ(t.links[t.gpuNvlink[0][0]].bandwidth, 2400e9);
    EXPECT_DOUBLE_EQ(t.linkDelay[t.pcieNic[0][0]], 0.5e-6);
    EXPECT_DOUBLE_EQ(t.linkDelay[t.gpuNvlink[0][0]], 0.3e-6);
    EXPECT_THROW(AddIntraHostLinks(const_cast<ClusterTopology&>(t), IntraHostConfig()),
                 std::invalid_argument);
}

TEST(CruxIntraHost, GpuPairSharesPcieSwitchAndNic)
{
    const ClusterTopology t = TestbedWithIntraHost();
    // GPUs 2 and 3 of host 1 hang off the PCIe switch of NIC 1; the switch's uplink is shared
    for (uint32_t g : {2U, 3U})
    {
        const uint32_t up = t.gpuPcie[1][g];
        EXPECT_EQ(t.nodes[t.linkEnds[up].first].name, "h1.g" + std::to_string(g));
        EXPECT_EQ(t.nodes[t.linkEnds[up].second].name, "h1.pcie1");
        EXPECT_EQ(t.nodes[t.linkEnds[up].second].kind, ClusterNodeKind::PCIE);
    }
    const uint32_t nic = t.pcieNic[1][1];
    EXPECT_EQ(t.linkEnds[nic].second, t.hostNode[1]);
    EXPECT_EQ(t.links[nic].name, "h1.pcie1->h1.n1");
    const auto paths = t.EqualCostGpuPaths(1, 3, 7, 6);
    const auto net = t.EqualCostPaths(1, 3, 7, 6);
    ASSERT_EQ(paths.size(), net.size());
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        ASSERT_EQ(paths[i].size(), net[i].size() + 4);
        EXPECT_EQ(paths[i][0], t.gpuPcie[1][3]);
        EXPECT_EQ(paths[i][1], t.pcieNic[1][1]);
        EXPECT_EQ(std::vector<uint32_t>(paths[i].begin() + 2, paths[i].end() - 2), net[i]);
        EXPECT_EQ(paths[i][paths[i].size() - 2], ClusterTopology::Reverse(t.pcieNic[7][3]));
        EXPECT_EQ(paths[i].back(), ClusterTopology::Reverse(t.gpuPcie[7][6]));
        // consecutive links
        for (std::size_t k = 0; k + 1 < paths[i].size(); ++k)
        {
            EXPECT_EQ(t.linkEnds[paths[i][k]].second, t.linkEnds[paths[i][k + 1]].first);
        }
    }
    // same host: GPU -> NVSwitch -> GPU, no PCIe, no NIC
    const auto nv = t.EqualCostGpuPaths(4, 0, 4, 5);
    ASSERT_EQ(nv.size(), 1U);
    EXPECT_EQ(
        nv[0],
        (std::vector<uint32_t>{t.gpuNvlink[4][0], ClusterTopology::Reverse(t.gpuNvlink[4][5])}));
    EXPECT_EQ(t.nodes[t.linkEnds[nv[0][0]].second].kind, ClusterNodeKind::NVSWITCH);
    EXPECT_TRUE(t.GpuPath(4, 2, 4, 2, {}).empty());
    EXPECT_THROW(t.GpuPath(4, 8, 4, 2, {}), std::out_of_range);
}

TEST(CruxIntraHost, BadFieldsNamed)
{
    ClusterTopology t = BuildTwoLayerClos(TestbedClosConfig());
    IntraHostConfig c;
    c.pcieBps = 0;
    try
    {
        AddIntraHostLinks(t, c);
        FAIL() << "no error for pcieBps = 0";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("intraHost.pcieBps"), std::string::npos);
    }
    c = IntraHostConfig();
    c.nvlinkDelay = -1;
    EXPECT_THROW(AddIntraHostLinks(t, c), std::invalid_argument);
    EXPECT_FALSE(t.HasIntraHostLinks()); // nothing half-added
    EXPECT_EQ(t.links.size(), BuildTwoLayerClos(TestbedClosConfig()).links.size());
}
