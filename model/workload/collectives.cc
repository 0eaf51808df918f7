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

#include "collectives.h"

#include "collectives-detail.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

// The collectives library, in three files by algorithm family: this one (argument checks and
// building blocks, ring family and the hierarchical all-reduce built from rings, the all-reduce
// dispatch), collectives-tree.cc (double binary tree, halving-doubling), collectives-p2p.cc
// (broadcast, all-to-all, send/receive).

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCollectives");

namespace collectives_detail
{

void
Check(const CommDag& dag,
      const std::vector<uint32_t>& members,
      const NodeList& ready,
      const char* who)
{
    if (members.empty())
    {
        throw std::invalid_argument(std::string("Collectives::") + who + ": no members");
    }
    std::set<uint32_t> seen;
    for (uint32_t m : members)
    {
        if (m >= dag.NumRanks())
        {
            throw std::invalid_argument(std::string("Collectives::") + who + ": member rank " +
                                        std::to_string(m) +
                                        " >= " + std::to_string(dag.NumRanks()) + " ranks");
        }
        if (!seen.insert(m).second)
        {
            throw std::invalid_argument(std::string("Collectives::") + who + ": member rank " +
                                        std::to_string(m) + " listed twice");
        }
    }
    if (ready.size() > 1 && ready.size() != members.size())
    {
        throw std::invalid_argument(std::string("Collectives::") + who + ": " +
                                    std::to_string(ready.size()) + " ready nodes for " +
                                    std::to_string(members.size()) + " members");
    }
}

NodeId
ReadyOf(const NodeList& ready, size_t i)
{
    if (ready.empty())
    {
        return NONE;
    }
    return ready.size() == 1 ? ready[0] : ready[i];
}

bool
SkipInCountOnly(const CommDag& dag, const std::vector<uint32_t>& members)
{
    if (!dag.IsCountOnly())
    {
        return false;
    }
    const uint32_t host = dag.Gpu(members.front()).host;
    for (uint32_t m : members)
    {
        if (dag.Gpu(m).host != host)
        {
            return false;
        }
    }
    return true;
}

CollectiveNodes
Trivial(CommDag& dag, const std::vector<uint32_t>& members, const NodeList& ready)
{
    const NodeId d = dag.AddDelay(Time(0), ready);
    CollectiveNodes out;
    for (size_t i = 0; i < members.size(); ++i)
    {
        out.rankDone.push_back(dag.AddBarrier({d, ReadyOf(ready, i)}));
    }
    return out;
}

bool
NothingToSend(const CommDag& dag,
              const std::vector<uint32_t>& members,
              const NodeList& ready,
              uint64_t bytes,
              const char* who)
{
    Check(dag, members, ready, who);
    return SkipInCountOnly(dag, members) || members.size() == 1 || bytes == 0;
}

std::vector<uint32_t>
Streams(CommDag& dag, size_t n)
{
    std::vector<uint32_t> s(n);
    for (auto& x : s)
    {
        x = dag.NewStream();
    }
    return s;
}

std::vector<std::vector<size_t>>
ByHost(const CommDag& dag, const std::vector<uint32_t>& members)
{
    std::vector<std::vector<size_t>> groups;
    std::vector<uint32_t> hosts;
    for (size_t i = 0; i < members.size(); ++i)
    {
        const uint32_t h = dag.Gpu(members[i]).host;
        auto it = std::find(hosts.begin(), hosts.end(), h);
        if (it == hosts.end())
        {
            hosts.push_back(h);
            groups.emplace_back();
            groups.back().push_back(i);
        }
        else
        {
            groups[it - hosts.begin()].push_back(i);
        }
    }
    return groups;
}

CollectiveNodes
Done(CommDag& dag,
     const std::vector<uint32_t>& members,
     const NodeList& ready,
     const std::vector<NodeList>& received)
{
    CollectiveNodes out;
    for (size_t i = 0; i < members.size(); ++i)
    {
        NodeList deps{ReadyOf(ready, i)};
        deps.insert(deps.end(), received[i].begin(), received[i].end());
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

} // namespace collectives_detail

using namespace collectives_detail;

uint64_t
Collectives::ChunkBytes(uint64_t total, uint32_t n, uint32_t chunk)
{
    if (n == 0)
    {
        throw std::invalid_argument("Collectives::ChunkBytes: n must be >= 1");
    }
    return total / n + (chunk < total % n ? 1 : 0);
}

uint32_t
Collectives::RingChunkOfStep(uint32_t s, uint32_t r, uint32_t n)
{
    if (s < n - 1)
    {
        // reduce-scatter: rank r forwards the partial sum of chunk r - s
        return (r + n - s) % n;
    }
    // all-gather: rank r forwards the finished chunk r + 1 - s'
    const uint32_t sp = s - (n - 1);
    return (r + 1 + n - sp) % n;
}

uint64_t
Collectives::RingAllReduceBytesSent(uint64_t total, uint32_t n, uint32_t rank)
{
    uint64_t sum = 0;
    for (uint32_t s = 0; n > 1 && s < 2 * (n - 1); ++s)
    {
        sum += ChunkBytes(total, n, RingChunkOfStep(s, rank, n));
    }
    return sum;
}

CollectiveNodes
Collectives::RingAllReduce(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready)
{
    if (NothingToSend(dag, members, ready, bytes, "RingAllReduce"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    NS_LOG_LOGIC("ring all-reduce of " << bytes << " bytes over " << n << " ranks");
    return RingSchedule(dag,
                        "all-reduce (ring)",
                        members,
                        bytes,
                        ready,
                        2 * (n - 1),
                        [n](uint32_t s, uint32_t r) { return RingChunkOfStep(s, r, n); });
}

CollectiveNodes
Collectives::RingReduceScatter(CommDag& dag,
                               const std::vector<uint32_t>& members,
                               uint64_t bytes,
                               const NodeList& ready)
{
    if (NothingToSend(dag, members, ready, bytes, "RingReduceScatter"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    return RingSchedule(dag,
                        "reduce-scatter (ring)",
                        members,
                        bytes,
                        ready,
                        n - 1,
                        [n](uint32_t s, uint32_t r) { return (r + n - s) % n; });
}

CollectiveNodes
Collectives::RingAllGather(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready,
                           uint32_t offset)
{
    if (NothingToSend(dag, members, ready, bytes, "RingAllGather"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    const uint32_t o = offset % n;
    return RingSchedule(dag,
                        "all-gather (ring)",
                        members,
                        bytes,
                        ready,
                        n - 1,
                        [n, o](uint32_t s, uint32_t r) { return (r + o + n - s) % n; });
}

CollectiveNodes
Collectives::HierarchicalAllReduce(CommDag& dag,
                                   const std::vector<uint32_t>& members,
                                   uint64_t bytes,
                                   const NodeList& ready)
{
    Check(dag, members, ready, "HierarchicalAllReduce");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const auto groups = ByHost(dag, members);
    const size_t k = groups.front().size();
    const bool even =
        std::all_of(groups.begin(), groups.end(), [k](const auto& g) { return g.size() == k; });
    if (!even || k == 1 || groups.size() == 1 || bytes == 0)
    {
        // uneven hosts fall back to the flat ring; one member per host is the inter-host
        // ring alone, one host the intra-host ring alone
        NS_LOG_DEBUG("hierarchical all-reduce over " << groups.size() << " hosts ("
                                                     << (even ? "" : "uneven, ") << k
                                                     << " on the first): the flat ring instead");
        return RingAllReduce(dag, members, bytes, ready);
    }
    const size_t h = groups.size();
    // 1. intra-host reduce-scatter: local member j ends with chunk (j + 1) mod k
    std::vector<NodeList> rs(h);
    for (size_t g = 0; g < h; ++g)
    {
        std::vector<uint32_t> local;
        NodeList localReady;
        for (size_t i : groups[g])
        {
            local.push_back(members[i]);
            localReady.push_back(ReadyOf(ready, i));
        }
        rs[g] =
            RingReduceScatter(dag, local, bytes, ready.empty() ? NodeList{} : localReady).rankDone;
    }
    // 2. one inter-host ring all-reduce per rail j over its shard
    std::vector<NodeList> ar(h, NodeList(k, NONE));
    for (size_t j = 0; j < k; ++j)
    {
        std::vector<uint32_t> rail;
        NodeList railReady;
        for (size_t g = 0; g < h; ++g)
        {
            rail.push_back(members[groups[g][j]]);
            railReady.push_back(rs[g][j]);
        }
        const uint64_t shard = ChunkBytes(bytes, k, (j + 1) % k);
        const auto done = RingAllReduce(dag, rail, shard, railReady).rankDone;
        for (size_t g = 0; g < h; ++g)
        {
            ar[g][j] = done[g];
        }
    }
    // 3. intra-host all-gather of the k shards
    CollectiveNodes out;
    out.rankDone.assign(members.size(), NONE);
    for (size_t g = 0; g < h; ++g)
    {
        std::vector<uint32_t> local;
        for (size_t i : groups[g])
        {
            local.push_back(members[i]);
        }
        const auto done = RingAllGather(dag, local, bytes, ar[g], 1).rankDone;
        for (size_t j = 0; j < k; ++j)
        {
            out.rankDone[groups[g][j]] = done[j];
        }
    }
    return out;
}

} // namespace ns3
