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

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

typedef CommDag::NodeId NodeId;
typedef CommDag::NodeList NodeList;
constexpr NodeId NONE = CommDag::NONE;

/// NCCL's Simple-protocol buffer per connection (facts §5.1): the pipeline chunk size.
constexpr uint64_t PIPELINE_CHUNK = 4ull << 20;
/// Upper bound of pipeline chunks per collective (bounds the DAG size).
constexpr uint64_t MAX_PIPELINE_CHUNKS = 64;

/// Validate the common arguments.
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

/// The ready node of member i (NONE: no dependency).
NodeId
ReadyOf(const NodeList& ready, size_t i)
{
    if (ready.empty())
    {
        return NONE;
    }
    return ready.size() == 1 ? ready[0] : ready[i];
}

/// Count-only DAGs keep inter-host bytes only: a collective inside one host adds nothing.
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

/// N = 1 or S = 0: nothing to send; complete one event after the members are ready.
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

/// One stream per member.
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

/**
 * Ring schedule (described as `what`, CommDag::BeginCollective): `steps` steps; in step s rank r
 * sends chunk chunkOf(s, r) of the buffer cut into N chunks to rank r+1; step s > 0 waits for the
 * step s−1 message of rank r−1.
 */
template <typename ChunkOf>
CollectiveNodes
RingSchedule(CommDag& dag,
             const char* what,
             const std::vector<uint32_t>& members,
             uint64_t bytes,
             const NodeList& ready,
             uint32_t steps,
             ChunkOf chunkOf)
{
    const uint32_t n = members.size();
    const auto stream = Streams(dag, n);
    std::vector<NodeId> msg(static_cast<size_t>(n) * steps, NONE); // [s * n + r]
    dag.BeginCollective(what, steps);
    for (uint32_t s = 0; s < steps; ++s)
    {
        dag.SetStep(s);
        for (uint32_t r = 0; r < n; ++r)
        {
            const NodeId dep = s == 0 ? ReadyOf(ready, r) : msg[(s - 1) * n + (r + n - 1) % n];
            msg[s * n + r] = dag.AddMessage(members[r],
                                            members[(r + 1) % n],
                                            Collectives::ChunkBytes(bytes, n, chunkOf(s, r)),
                                            stream[r],
                                            {dep});
        }
    }
    CollectiveNodes out;
    for (uint32_t q = 0; q < n; ++q)
    {
        NodeList deps{ReadyOf(ready, q)};
        for (uint32_t s = 0; s < steps; ++s)
        {
            deps.push_back(msg[s * n + (q + n - 1) % n]);
        }
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

/// Members grouped by host, in order of first appearance: positions into `members`.
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

/// NCCL's ncclGetBtree: parent of rank in a btree of nranks (−1 for the root 0).
int32_t
BtreeParent(int32_t nranks, int32_t rank)
{
    if (rank == 0)
    {
        return -1;
    }
    int32_t bit = 1;
    for (; bit < nranks; bit <<= 1)
    {
        if (bit & rank)
        {
            break;
        }
    }
    int32_t up = (rank ^ bit) | (bit << 1);
    if (up >= nranks)
    {
        up = rank ^ bit;
    }
    return up;
}

/// Bytes of blocks [a, b) of a buffer of `total` bytes cut into n blocks (ChunkBytes).
uint64_t
BlockRangeBytes(uint64_t total, uint32_t n, uint32_t a, uint32_t b)
{
    const uint64_t q = total / n;
    const uint64_t rem = total % n;
    const uint64_t extra = rem > a ? std::min<uint64_t>(b, rem) - a : 0;
    return (b - a) * q + extra;
}

} // namespace

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

uint32_t
Collectives::TreeChunks(uint64_t bytes)
{
    const uint64_t half = (bytes + 1) / 2;
    return static_cast<uint32_t>(
        std::clamp<uint64_t>((half + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK, 1, MAX_PIPELINE_CHUNKS));
}

uint32_t
Collectives::BroadcastChunks(uint64_t bytes)
{
    return static_cast<uint32_t>(std::clamp<uint64_t>((bytes + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK,
                                                      1,
                                                      MAX_PIPELINE_CHUNKS));
}

std::vector<int32_t>
Collectives::TreeParents(uint32_t n, uint32_t tree)
{
    std::vector<int32_t> parent(n, -1);
    const int32_t nn = static_cast<int32_t>(n);
    for (int32_t r = 0; r < nn; ++r)
    {
        if (tree == 0)
        {
            parent[r] = BtreeParent(nn, r);
        }
        else if (n % 2 == 1)
        {
            // shift by one rank (ncclGetDtree, odd nranks)
            const int32_t u = BtreeParent(nn, (r - 1 + nn) % nn);
            parent[r] = u == -1 ? -1 : (u + 1) % nn;
        }
        else
        {
            // mirror (ncclGetDtree, even nranks)
            const int32_t u = BtreeParent(nn, nn - 1 - r);
            parent[r] = u == -1 ? -1 : nn - 1 - u;
        }
    }
    return parent;
}

CollectiveNodes
Collectives::RingAllReduce(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready)
{
    Check(dag, members, ready, "RingAllReduce");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
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
    Check(dag, members, ready, "RingReduceScatter");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
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
    Check(dag, members, ready, "RingAllGather");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
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

CollectiveNodes
Collectives::TreeAllReduce(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready,
                           uint32_t chunks)
{
    Check(dag, members, ready, "TreeAllReduce");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const size_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
    const auto groups = ByHost(dag, members);
    const uint32_t h = groups.size();
    const uint32_t c = chunks > 0 ? chunks : TreeChunks(bytes);
    const uint64_t half[2] = {(bytes + 1) / 2, bytes / 2};
    dag.BeginCollective("all-reduce (double binary tree)");
    std::vector<NodeList> received(n); // per member: nodes after which it holds a final chunk
    for (uint32_t tree = 0; tree < 2; ++tree)
    {
        if (half[tree] == 0)
        {
            continue;
        }
        const auto parent = TreeParents(h, tree);
        std::vector<std::vector<uint32_t>> children(h);
        std::vector<uint32_t> depth(h, 0);
        for (uint32_t x = 0; x < h; ++x)
        {
            if (parent[x] >= 0)
            {
                children[parent[x]].push_back(x);
            }
            for (int32_t y = parent[x]; y >= 0; y = parent[y])
            {
                ++depth[x];
            }
        }
        std::vector<uint32_t> order(h); // root first
        for (uint32_t x = 0; x < h; ++x)
        {
            order[x] = x;
        }
        std::stable_sort(order.begin(), order.end(), [&depth](uint32_t a, uint32_t b) {
            return depth[a] < depth[b];
        });
        const auto up = Streams(dag, n);
        const auto down = Streams(dag, n);
        for (uint32_t ch = 0; ch < c; ++ch)
        {
            const uint64_t b = ChunkBytes(half[tree], c, ch);
            // reduce: up the chain to the host's position 0, then up the tree (deepest first)
            std::vector<NodeId> upMsg(h, NONE);
            std::vector<NodeId> reduced(h, NONE); // root: chunk fully reduced at its head
            for (auto it = order.rbegin(); it != order.rend(); ++it)
            {
                const uint32_t x = *it;
                const auto& chain = groups[x];
                NodeId prev = NONE;
                for (size_t i = chain.size() - 1; i >= 1; --i)
                {
                    prev = dag.AddMessage(members[chain[i]],
                                          members[chain[i - 1]],
                                          b,
                                          up[chain[i]],
                                          {ReadyOf(ready, chain[i]), prev},
                                          tree);
                }
                NodeList deps{ReadyOf(ready, chain[0]), prev};
                for (uint32_t y : children[x])
                {
                    deps.push_back(upMsg[y]);
                }
                if (parent[x] >= 0)
                {
                    upMsg[x] = dag.AddMessage(members[chain[0]],
                                              members[groups[parent[x]][0]],
                                              b,
                                              up[chain[0]],
                                              deps,
                                              tree);
                }
                else
                {
                    reduced[x] = dag.AddBarrier(deps);
                }
            }
            // broadcast: down the tree (root first), then down each chain
            std::vector<NodeId> arrived(h, NONE);
            for (uint32_t x : order)
            {
                const auto& chain = groups[x];
                if (parent[x] < 0)
                {
                    arrived[x] = reduced[x];
                }
                for (uint32_t y : children[x])
                {
                    arrived[y] = dag.AddMessage(members[chain[0]],
                                                members[groups[y][0]],
                                                b,
                                                down[chain[0]],
                                                {arrived[x]},
                                                tree);
                }
                received[chain[0]].push_back(arrived[x]);
                NodeId prev = arrived[x];
                for (size_t i = 1; i < chain.size(); ++i)
                {
                    prev = dag.AddMessage(members[chain[i - 1]],
                                          members[chain[i]],
                                          b,
                                          down[chain[i - 1]],
                                          {prev},
                                          tree);
                    received[chain[i]].push_back(prev);
                }
            }
        }
    }
    CollectiveNodes out;
    for (size_t i = 0; i < n; ++i)
    {
        NodeList deps{ReadyOf(ready, i)};
        deps.insert(deps.end(), received[i].begin(), received[i].end());
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

CollectiveNodes
Collectives::HalvingDoublingAllReduce(CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      const NodeList& ready)
{
    Check(dag, members, ready, "HalvingDoublingAllReduce");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    const uint32_t extra = n - p;
    auto oldRank = [extra](uint32_t nr) { return nr < extra ? 2 * nr + 1 : nr + extra; };
    const auto stream = Streams(dag, n);
    dag.BeginCollective("all-reduce (halving-doubling)");
    // MPICH's fold for non-powers of two: members 0, 2, .., 2r−2 hand their buffer over first
    std::vector<NodeId> pre(n, NONE);
    for (uint32_t i = 0; i + 1 < 2 * extra; i += 2)
    {
        pre[i] = dag.AddMessage(members[i], members[i + 1], bytes, stream[i], {ReadyOf(ready, i)});
    }
    std::vector<NodeId> last(p, NONE); // per participant: last message it received
    std::vector<uint32_t> lo(p, 0);
    std::vector<uint32_t> hi(p, p);
    for (uint32_t nr = 0; nr < p; ++nr)
    {
        const uint32_t i = oldRank(nr);
        last[nr] = i < 2 * extra ? dag.AddBarrier({ReadyOf(ready, i), pre[i - 1]})
                                 : dag.AddBarrier({ReadyOf(ready, i)});
    }
    // recursive halving (reduce-scatter): partner at distance p/2, p/4, ..., 1
    for (uint32_t mask = p / 2; mask >= 1; mask /= 2)
    {
        std::vector<NodeId> sent(p);
        std::vector<uint32_t> nlo(p);
        std::vector<uint32_t> nhi(p);
        for (uint32_t nr = 0; nr < p; ++nr)
        {
            const uint32_t partner = nr ^ mask;
            const uint32_t mid = (lo[nr] + hi[nr]) / 2;
            const bool lower = (nr & mask) == 0;
            nlo[nr] = lower ? lo[nr] : mid;
            nhi[nr] = lower ? mid : hi[nr];
            const uint64_t b = lower ? BlockRangeBytes(bytes, p, mid, hi[nr])
                                     : BlockRangeBytes(bytes, p, lo[nr], mid);
            sent[nr] = dag.AddMessage(members[oldRank(nr)],
                                      members[oldRank(partner)],
                                      b,
                                      stream[oldRank(nr)],
                                      {last[nr]});
        }
        for (uint32_t nr = 0; nr < p; ++nr)
        {
            last[nr] = sent[nr ^ mask];
        }
        lo = nlo;
        hi = nhi;
    }
    // recursive doubling (all-gather): partner at distance 1, 2, ..., p/2
    for (uint32_t mask = 1; mask < p; mask *= 2)
    {
        std::vector<NodeId> sent(p);
        for (uint32_t nr = 0; nr < p; ++nr)
        {
            const uint32_t partner = nr ^ mask;
            sent[nr] = dag.AddMessage(members[oldRank(nr)],
                                      members[oldRank(partner)],
                                      BlockRangeBytes(bytes, p, lo[nr], hi[nr]),
                                      stream[oldRank(nr)],
                                      {last[nr]});
        }
        std::vector<uint32_t> nlo(p);
        std::vector<uint32_t> nhi(p);
        for (uint32_t nr = 0; nr < p; ++nr)
        {
            const uint32_t partner = nr ^ mask;
            last[nr] = sent[partner];
            nlo[nr] = std::min(lo[nr], lo[partner]);
            nhi[nr] = std::max(hi[nr], hi[partner]);
        }
        lo = nlo;
        hi = nhi;
    }
    CollectiveNodes out;
    out.rankDone.assign(n, NONE);
    for (uint32_t nr = 0; nr < p; ++nr)
    {
        const uint32_t i = oldRank(nr);
        out.rankDone[i] = dag.AddBarrier({ReadyOf(ready, i), last[nr]});
        if (i < 2 * extra)
        {
            // hand the result back to the folded member
            const NodeId post =
                dag.AddMessage(members[i], members[i - 1], bytes, stream[i], {last[nr]});
            out.rankDone[i - 1] = dag.AddBarrier({ReadyOf(ready, i - 1), post});
        }
    }
    return out;
}

CollectiveNodes
Collectives::Broadcast(CommDag& dag,
                       const std::vector<uint32_t>& members,
                       uint64_t bytes,
                       const NodeList& ready,
                       uint32_t chunks)
{
    Check(dag, members, ready, "Broadcast");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t c = chunks > 0 ? chunks : BroadcastChunks(bytes);
    const auto stream = Streams(dag, n);
    dag.BeginCollective("broadcast (ring)");
    std::vector<NodeList> received(n);
    for (uint32_t ch = 0; ch < c; ++ch)
    {
        NodeId prev = ReadyOf(ready, 0);
        for (uint32_t i = 0; i + 1 < n; ++i)
        {
            prev = dag.AddMessage(members[i],
                                  members[i + 1],
                                  ChunkBytes(bytes, c, ch),
                                  stream[i],
                                  {prev, ReadyOf(ready, i), ReadyOf(ready, i + 1)});
            received[i + 1].push_back(prev);
        }
    }
    CollectiveNodes out;
    for (uint32_t i = 0; i < n; ++i)
    {
        NodeList deps{ReadyOf(ready, i)};
        deps.insert(deps.end(), received[i].begin(), received[i].end());
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

CollectiveNodes
Collectives::AllToAll(CommDag& dag,
                      const std::vector<uint32_t>& members,
                      uint64_t bytes,
                      const NodeList& ready)
{
    Check(dag, members, ready, "AllToAll");
    if (SkipInCountOnly(dag, members))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    if (n == 1 || bytes == 0)
    {
        return Trivial(dag, members, ready);
    }
    const auto stream = Streams(dag, n);
    std::vector<NodeId> msg(static_cast<size_t>(n) * n, NONE); // [d * n + r]
    dag.BeginCollective("all-to-all", n - 1);
    for (uint32_t d = 1; d < n; ++d)
    {
        dag.SetStep(d - 1);
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t to = (r + d) % n;
            NodeList deps{ReadyOf(ready, r)};
            if (d > 1)
            {
                deps.push_back(msg[(d - 1) * n + r]);                   // own previous send
                deps.push_back(msg[(d - 1) * n + (r + n - d + 1) % n]); // previous receipt
            }
            msg[d * n + r] =
                dag.AddMessage(members[r], members[to], ChunkBytes(bytes, n, to), stream[r], deps);
        }
    }
    CollectiveNodes out;
    for (uint32_t r = 0; r < n; ++r)
    {
        NodeList deps{ReadyOf(ready, r)};
        for (uint32_t d = 1; d < n; ++d)
        {
            deps.push_back(msg[d * n + (r + n - d) % n]);
        }
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

CollectiveNodes
Collectives::SendRecv(CommDag& dag,
                      const std::vector<uint32_t>& members,
                      uint64_t bytes,
                      const NodeList& ready)
{
    Check(dag, members, ready, "SendRecv");
    if (members.size() != 2)
    {
        throw std::invalid_argument("Collectives::SendRecv: needs exactly 2 members, got " +
                                    std::to_string(members.size()));
    }
    CollectiveNodes out;
    out.rankDone.push_back(dag.AddBarrier({ReadyOf(ready, 0)}));
    dag.BeginCollective("send/receive");
    const NodeId m = dag.AddMessage(members[0],
                                    members[1],
                                    bytes,
                                    dag.NewStream(),
                                    {ReadyOf(ready, 0), ReadyOf(ready, 1)});
    out.rankDone.push_back(dag.AddBarrier({m}));
    return out;
}

AllReduceAlgorithm
Collectives::ChooseAllReduce(uint64_t bytes, uint32_t ranks, uint32_t hosts, double busBandwidth)
{
    if (ranks <= 1 || hosts <= 1)
    {
        return AllReduceAlgorithm::RING;
    }
    // NCCL tuning.cc, Simple protocol (facts §5.2): latencies in µs
    const double base = 8.4;
    const double ringIntra = 3.4;
    const double ringInter = 14.0;
    const double treeIntra = 4.0;
    const double treeInter = 14.0;
    const double nsteps = 2.0 * (ranks - 1);
    const double ninter = 2.0 * (hosts - 1);
    const double ringLat = (base + (nsteps - ninter) * ringIntra + ninter * ringInter) * 1.4;
    const double treeLat = base + 2 * ((static_cast<double>(ranks) / hosts - 1) * treeIntra +
                                       std::log2(static_cast<double>(hosts)) * treeInter);
    const double ringBw = busBandwidth * ranks / nsteps;
    const double treeBw = busBandwidth * 0.92 * 0.5;
    const double ring = ringLat * 1e-6 + bytes / ringBw;
    const double tree = treeLat * 1e-6 + bytes / treeBw;
    return tree < ring ? AllReduceAlgorithm::TREE : AllReduceAlgorithm::RING;
}

CollectiveNodes
Collectives::AllReduce(CommDag& dag,
                       const std::vector<uint32_t>& members,
                       uint64_t bytes,
                       AllReduceAlgorithm algorithm,
                       const NodeList& ready)
{
    if (algorithm == AllReduceAlgorithm::AUTO)
    {
        Check(dag, members, ready, "AllReduce");
        algorithm = ChooseAllReduce(bytes, members.size(), ByHost(dag, members).size());
    }
    switch (algorithm)
    {
    case AllReduceAlgorithm::AUTO:
    case AllReduceAlgorithm::RING:
        return RingAllReduce(dag, members, bytes, ready);
    case AllReduceAlgorithm::HIERARCHICAL:
        return HierarchicalAllReduce(dag, members, bytes, ready);
    case AllReduceAlgorithm::TREE:
        return TreeAllReduce(dag, members, bytes, ready);
    case AllReduceAlgorithm::HALVING_DOUBLING:
        return HalvingDoublingAllReduce(dag, members, bytes, ready);
    }
    throw std::invalid_argument("Collectives::AllReduce: unknown algorithm");
}

} // namespace ns3
