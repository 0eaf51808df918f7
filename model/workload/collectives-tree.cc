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

// The tree family of the collectives library (collectives.cc): NCCL's double binary tree
// all-reduce and MPICH's recursive halving-doubling all-reduce.

#include "collectives-detail.h"
#include "collectives.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCollectivesTree");

using namespace collectives_detail;

namespace
{

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

uint32_t
Collectives::TreeChunks(uint64_t bytes)
{
    const uint64_t half = (bytes + 1) / 2;
    return static_cast<uint32_t>(
        std::clamp<uint64_t>((half + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK, 1, MAX_PIPELINE_CHUNKS));
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

void
collectives_detail::TreeChannel(CommDag& dag,
                                const std::vector<uint32_t>& members,
                                const std::vector<std::vector<size_t>>& chains,
                                const std::vector<int32_t>& parent,
                                uint64_t bytes,
                                uint32_t chunks,
                                uint32_t channel,
                                NcclProtocol protocol,
                                const NodeList& ready,
                                std::vector<NodeList>& received)
{
    const size_t n = members.size();
    const uint32_t h = chains.size();
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
    for (uint32_t ch = 0; ch < chunks; ++ch)
    {
        const uint64_t b =
            NcclModel::WireBytes(protocol, Collectives::ChunkBytes(bytes, chunks, ch));
        // reduce: up the chain to the host's head, then up the tree (deepest first)
        std::vector<NodeId> upMsg(h, NONE);
        std::vector<NodeId> reduced(h, NONE); // root: chunk fully reduced at its head
        for (auto it = order.rbegin(); it != order.rend(); ++it)
        {
            const uint32_t x = *it;
            const auto& chain = chains[x];
            NodeId prev = NONE;
            for (size_t i = chain.size() - 1; i >= 1; --i)
            {
                prev = dag.AddMessage(members[chain[i]],
                                      members[chain[i - 1]],
                                      b,
                                      up[chain[i]],
                                      {ReadyOf(ready, chain[i]), prev},
                                      channel);
            }
            NodeList deps{ReadyOf(ready, chain[0]), prev};
            for (uint32_t y : children[x])
            {
                deps.push_back(upMsg[y]);
            }
            if (parent[x] >= 0)
            {
                upMsg[x] = dag.AddMessage(members[chain[0]],
                                          members[chains[parent[x]][0]],
                                          b,
                                          up[chain[0]],
                                          deps,
                                          channel);
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
            const auto& chain = chains[x];
            if (parent[x] < 0)
            {
                arrived[x] = reduced[x];
            }
            for (uint32_t y : children[x])
            {
                arrived[y] = dag.AddMessage(members[chain[0]],
                                            members[chains[y][0]],
                                            b,
                                            down[chain[0]],
                                            {arrived[x]},
                                            channel);
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
                                      channel);
                received[chain[i]].push_back(prev);
            }
        }
    }
}

CollectiveNodes
Collectives::TreeAllReduce(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready,
                           uint32_t chunks)
{
    if (NothingToSend(dag, members, ready, bytes, "TreeAllReduce"))
    {
        return Trivial(dag, members, ready);
    }
    const size_t n = members.size();
    const auto groups = ByHost(dag, members);
    const uint32_t h = groups.size();
    const uint32_t c = chunks > 0 ? chunks : TreeChunks(bytes);
    NS_LOG_LOGIC("double binary tree all-reduce of " << bytes << " bytes over " << n << " ranks on "
                                                     << h << " hosts, " << c << " chunks");
    const uint64_t half[2] = {(bytes + 1) / 2, bytes / 2};
    dag.BeginCollective("all-reduce (double binary tree)");
    std::vector<NodeList> received(n); // per member: nodes after which it holds a final chunk
    for (uint32_t tree = 0; tree < 2; ++tree)
    {
        if (half[tree] == 0)
        {
            continue;
        }
        TreeChannel(dag,
                    members,
                    groups,
                    TreeParents(h, tree),
                    half[tree],
                    c,
                    tree,
                    NcclProtocol::SIMPLE,
                    ready,
                    received);
    }
    return Done(dag, members, ready, received);
}

CollectiveNodes
Collectives::HalvingDoublingAllReduce(CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      const NodeList& ready)
{
    if (NothingToSend(dag, members, ready, bytes, "HalvingDoublingAllReduce"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    const uint32_t extra = n - p;
    NS_LOG_LOGIC("halving-doubling all-reduce of " << bytes << " bytes over " << n
                                                   << " ranks: " << extra << " folded onto " << p);
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

} // namespace ns3
