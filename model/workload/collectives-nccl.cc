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

// NCCL's collectives as NCCL runs them (collectives.cc): rings and trees on C channels spread
// over the NICs of a host, NCCL's protocols and cost-model choice, and the pipelined
// hierarchical all-reduce; the dispatch of the all-reduce, reduce-scatter and all-gather.

#include "collective-algorithm.h"
#include "collectives-detail.h"
#include "collectives.h"

#include "ns3/log.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCollectivesNccl");

using namespace collectives_detail;

namespace
{

/// Upper bound of the tree's pipeline chunks per channel (bounds the DAG; beyond it the chunks
/// are larger than NCCL's).
constexpr uint64_t MAX_TREE_CHUNKS = 1024;
/// Upper bound of the pipelined hierarchical all-reduce's pieces.
constexpr uint64_t MAX_HIERARCHICAL_PIECES = 1024;

/// The members of each host and the NICs they use.
struct Layout
{
    std::vector<std::vector<size_t>> sorted; //!< per host: member positions by local GPU
    std::vector<std::vector<uint32_t>> nic;  //!< per host: NIC of sorted[g][i]
    std::vector<std::vector<uint32_t>> nics; //!< per host: distinct NICs, ascending
};

Layout
MakeLayout(const CommDag& dag, const std::vector<uint32_t>& members)
{
    const auto& hw = dag.GetCollectiveConfig().hardware;
    Layout l;
    l.sorted = ByHost(dag, members);
    for (auto& g : l.sorted)
    {
        std::stable_sort(g.begin(), g.end(), [&](size_t a, size_t b) {
            return dag.Gpu(members[a]).localGpu < dag.Gpu(members[b]).localGpu;
        });
        std::vector<uint32_t> nic;
        std::set<uint32_t> distinct;
        for (size_t i : g)
        {
            nic.push_back(hw.NicOf(dag.Gpu(members[i]).localGpu));
            distinct.insert(nic.back());
        }
        l.nic.push_back(nic);
        l.nics.emplace_back(distinct.begin(), distinct.end());
    }
    return l;
}

uint32_t
MaxNics(const Layout& l)
{
    size_t k = 1;
    for (const auto& n : l.nics)
    {
        k = std::max(k, n.size());
    }
    return static_cast<uint32_t>(k);
}

/// Index into l.sorted[g] of the first member on NIC `nic` (its size if none).
size_t
FirstOn(const Layout& l, size_t g, uint32_t nic, size_t skip = SIZE_MAX)
{
    for (size_t i = 0; i < l.nic[g].size(); ++i)
    {
        if (l.nic[g][i] == nic && i != skip)
        {
            return i;
        }
    }
    return l.nic[g].size();
}

/// sorted[g] from index `entry` on, cyclically, without `exit`, then `exit` (if it is set).
std::vector<size_t>
CyclicPath(const Layout& l, size_t g, size_t entry, size_t exit)
{
    const auto& s = l.sorted[g];
    std::vector<size_t> out{s[entry]};
    for (size_t d = 1; d < s.size(); ++d)
    {
        const size_t i = (entry + d) % s.size();
        if (i != exit)
        {
            out.push_back(s[i]);
        }
    }
    if (exit < s.size() && exit != entry)
    {
        out.push_back(s[exit]);
    }
    return out;
}

/// Ring order inside host g (at position g of the ring's host order) for channel c.
std::vector<size_t>
HostRing(const Layout& l, size_t g, uint32_t c, bool oneHost)
{
    const auto& s = l.sorted[g];
    if (s.size() == 1)
    {
        return s;
    }
    if (oneHost)
    {
        return CyclicPath(l, g, c % s.size(), SIZE_MAX);
    }
    const auto& nics = l.nics[g];
    const uint32_t a = nics[c % nics.size()];
    const size_t entry = FirstOn(l, g, a);
    const size_t second = FirstOn(l, g, a, entry);
    if (second < s.size())
    {
        // two GPUs on the channel's NIC: NET a -> GPU -> ... -> GPU -> NET a (NCCL's ring)
        return CyclicPath(l, g, entry, second);
    }
    // one GPU per NIC: enter on NIC a, leave on the next NIC b, the reverse on odd hosts, so
    // that every host-crossing hop stays on one rail (see the doc: in place of NCCL's PXN)
    const uint32_t b = nics[(c + 1) % nics.size()];
    size_t in = entry;
    size_t out = FirstOn(l, g, b);
    if (g % 2 == 1)
    {
        std::swap(in, out);
    }
    return CyclicPath(l, g, in, out);
}

/// Chain inside host g for tree channel c: the head is the first GPU on the channel's NIC.
std::vector<size_t>
HostChain(const Layout& l, size_t g, uint32_t c, bool oneHost)
{
    const auto& s = l.sorted[g];
    if (oneHost)
    {
        return CyclicPath(l, g, c % s.size(), SIZE_MAX);
    }
    const auto& nics = l.nics[g];
    return CyclicPath(l, g, FirstOn(l, g, nics[c % nics.size()]), SIZE_MAX);
}

/// Ring kinds.
enum class RingKind
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER
};

NcclFunction
FunctionOf(RingKind k)
{
    return k == RingKind::ALL_REDUCE       ? NcclFunction::ALL_REDUCE
           : k == RingKind::REDUCE_SCATTER ? NcclFunction::REDUCE_SCATTER
                                           : NcclFunction::ALL_GATHER;
}

NodeList
Permute(const NodeList& ready, const std::vector<size_t>& order)
{
    if (ready.size() <= 1)
    {
        return ready;
    }
    NodeList out;
    for (size_t i : order)
    {
        out.push_back(ready[i]);
    }
    return out;
}

std::string
ChannelText(const char* what, uint32_t c, uint32_t channels, NcclProtocol p)
{
    return std::string(what) + ", channel " + std::to_string(c + 1) + " of " +
           std::to_string(channels) + ", " + ToString(p) + ")";
}

CollectiveNodes
ChannelRing(CommDag& dag,
            const std::vector<uint32_t>& members,
            uint64_t bytes,
            const NodeList& ready,
            RingKind kind,
            uint32_t channels,
            std::optional<NcclProtocol> protocol,
            RingForm form,
            const char* who)
{
    if (NothingToSend(dag, members, ready, bytes, who))
    {
        return Trivial(dag, members, ready);
    }
    NcclProtocol proto = NcclProtocol::SIMPLE;
    if (channels == 0 || !protocol)
    {
        const auto plan =
            Collectives::NcclPlan(dag, members, bytes, FunctionOf(kind), NcclAlgorithm::RING);
        channels = channels > 0 ? channels : plan.channels;
        proto = protocol ? *protocol : plan.protocol;
    }
    else
    {
        proto = *protocol;
    }
    const uint32_t n = members.size();
    if (ByHost(dag, members).size() == 1)
    {
        // one host: every channel's ring crosses the same NVLinks (NVSwitch), so C rings of
        // S/C each send what one ring of S sends on every GPU's link, step by step; one ring
        // keeps the DAG C times smaller (NCCL uses 24-28 channels on one 8-GPU host)
        channels = 1;
    }
    const auto orders = Collectives::ChannelRingOrders(dag, members, channels);
    // the flow form starts every ring edge once all members are ready (one barrier for all)
    const NodeList start =
        form == RingForm::FLOW && ready.size() > 1 ? NodeList{dag.AddBarrier(ready)} : ready;
    const char* what = kind == RingKind::ALL_REDUCE       ? "all-reduce (ring"
                       : kind == RingKind::REDUCE_SCATTER ? "reduce-scatter (ring"
                                                          : "all-gather (ring";
    const uint32_t steps = kind == RingKind::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    std::vector<NodeList> received(n);
    dag.BeginOperation(); // the channels are one operation (OperationOf())
    for (uint32_t c = 0; c < channels; ++c)
    {
        const auto& order = orders[c];
        std::vector<uint32_t> ring;
        for (size_t i : order)
        {
            ring.push_back(members[i]);
        }
        const uint64_t part = Collectives::ChunkBytes(bytes, channels, c);
        // the chunk member r sends in step s: the all-reduce's schedule, or the reduce-scatter's
        // and all-gather's (rank r sends chunk r − s)
        const bool allReduce = kind == RingKind::ALL_REDUCE;
        const auto chunkOf = [n, allReduce](uint32_t s, uint32_t r) {
            return allReduce ? Collectives::RingChunkOfStep(s, r, n) : (r + n - s) % n;
        };
        const std::string text = ChannelText(what, c, channels, proto);
        const CollectiveNodes done =
            form == RingForm::FLOW
                ? RingFlowSchedule(dag, text, ring, part, start, steps, chunkOf, c, proto)
                : RingSchedule(dag,
                               text,
                               ring,
                               part,
                               Permute(ready, order),
                               steps,
                               chunkOf,
                               c,
                               proto);
        for (size_t q = 0; q < order.size(); ++q)
        {
            received[order[q]].push_back(done.rankDone[q]);
        }
    }
    dag.EndOperation();
    return Done(dag, members, ready, received);
}

CollectiveNodes
ChannelTree(CommDag& dag,
            const std::vector<uint32_t>& members,
            uint64_t bytes,
            const NodeList& ready,
            uint32_t channels,
            uint32_t commChannels,
            NcclProtocol proto)
{
    const uint32_t n = members.size();
    const auto chains = Collectives::ChannelTreeChains(dag, members, channels);
    const uint32_t h = chains.empty() ? 1 : chains.front().size();
    const auto layout = MakeLayout(dag, members);
    const NcclModel model(dag.GetCollectiveConfig().hardware, n, h, MaxNics(layout));
    const uint64_t chunk = model.TreeChunkBytes(proto, bytes, channels);
    std::vector<NodeList> received(n);
    dag.BeginOperation(); // the channels are one operation (OperationOf())
    for (uint32_t c = 0; c < channels; ++c)
    {
        const uint64_t part = Collectives::ChunkBytes(bytes, channels, c);
        if (part == 0)
        {
            continue;
        }
        // connect.cc: channel c + nChannels of the duplicated channels runs the dual tree
        const uint32_t tree = 2 * static_cast<uint64_t>(c) >= commChannels ? 1 : 0;
        const uint32_t chunks = static_cast<uint32_t>(
            std::clamp<uint64_t>((part + chunk - 1) / chunk, 1, MAX_TREE_CHUNKS));
        dag.BeginCollective(ChannelText("all-reduce (tree", c, channels, proto));
        TreeChannel(dag,
                    members,
                    chains[c],
                    Collectives::TreeParents(h, tree),
                    part,
                    chunks,
                    c,
                    proto,
                    ready,
                    received);
    }
    dag.EndOperation();
    return Done(dag, members, ready, received);
}

} // namespace

std::vector<std::vector<size_t>>
Collectives::ChannelRingOrders(const CommDag& dag,
                               const std::vector<uint32_t>& members,
                               uint32_t channels)
{
    const Layout l = MakeLayout(dag, members);
    const bool oneHost = l.sorted.size() == 1;
    std::vector<std::vector<size_t>> out(std::max<uint32_t>(channels, 1));
    for (uint32_t c = 0; c < out.size(); ++c)
    {
        for (size_t g = 0; g < l.sorted.size(); ++g)
        {
            const auto part = HostRing(l, g, c, oneHost);
            out[c].insert(out[c].end(), part.begin(), part.end());
        }
    }
    return out;
}

std::vector<std::vector<std::vector<size_t>>>
Collectives::ChannelTreeChains(const CommDag& dag,
                               const std::vector<uint32_t>& members,
                               uint32_t channels)
{
    const Layout l = MakeLayout(dag, members);
    const bool oneHost = l.sorted.size() == 1;
    std::vector<std::vector<std::vector<size_t>>> out(std::max<uint32_t>(channels, 1));
    for (uint32_t c = 0; c < out.size(); ++c)
    {
        for (size_t g = 0; g < l.sorted.size(); ++g)
        {
            out[c].push_back(HostChain(l, g, c, oneHost));
        }
    }
    return out;
}

NcclModel::Choice
Collectives::NcclPlan(const CommDag& dag,
                      const std::vector<uint32_t>& members,
                      uint64_t bytes,
                      NcclFunction function,
                      std::optional<NcclAlgorithm> algorithm)
{
    const Layout l = MakeLayout(dag, members);
    const auto& cfg = dag.GetCollectiveConfig();
    const NcclModel model(cfg.hardware, members.size(), l.sorted.size(), MaxNics(l));
    return model.Choose(function, bytes, algorithm, cfg.protocol, cfg.channels);
}

CollectiveNodes
Collectives::ChannelRingAllReduce(CommDag& dag,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  const NodeList& ready,
                                  uint32_t channels,
                                  std::optional<NcclProtocol> protocol,
                                  RingForm form)
{
    return ChannelRing(dag,
                       members,
                       bytes,
                       ready,
                       RingKind::ALL_REDUCE,
                       channels,
                       protocol,
                       form,
                       "ChannelRingAllReduce");
}

CollectiveNodes
Collectives::ChannelRingReduceScatter(CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      const NodeList& ready,
                                      uint32_t channels,
                                      std::optional<NcclProtocol> protocol,
                                      RingForm form)
{
    return ChannelRing(dag,
                       members,
                       bytes,
                       ready,
                       RingKind::REDUCE_SCATTER,
                       channels,
                       protocol,
                       form,
                       "ChannelRingReduceScatter");
}

CollectiveNodes
Collectives::ChannelRingAllGather(CommDag& dag,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  const NodeList& ready,
                                  uint32_t channels,
                                  std::optional<NcclProtocol> protocol,
                                  RingForm form)
{
    return ChannelRing(dag,
                       members,
                       bytes,
                       ready,
                       RingKind::ALL_GATHER,
                       channels,
                       protocol,
                       form,
                       "ChannelRingAllGather");
}

CollectiveNodes
Collectives::ChannelTreeAllReduce(CommDag& dag,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  const NodeList& ready,
                                  uint32_t channels,
                                  std::optional<NcclProtocol> protocol)
{
    if (NothingToSend(dag, members, ready, bytes, "ChannelTreeAllReduce"))
    {
        return Trivial(dag, members, ready);
    }
    uint32_t comm = channels;
    NcclProtocol proto = protocol.value_or(NcclProtocol::SIMPLE);
    if (channels == 0 || !protocol)
    {
        const auto plan =
            NcclPlan(dag, members, bytes, NcclFunction::ALL_REDUCE, NcclAlgorithm::TREE);
        if (channels == 0)
        {
            channels = plan.channels;
            comm = plan.commChannels;
        }
        proto = protocol ? *protocol : plan.protocol;
    }
    return ChannelTree(dag, members, bytes, ready, channels, comm, proto);
}

uint32_t
Collectives::HierarchicalPieces(uint64_t bytes, uint32_t perHost, uint32_t hosts)
{
    // one NCCL ring loop of the inter-host rings: each of their 2(H−1) steps moves NCCL's
    // chunk (N ranks × chunk per loop, src/device/all_reduce.h), so a member's shard of a
    // piece is H chunks and the piece k × H chunks
    const uint64_t piece = static_cast<uint64_t>(std::max<uint32_t>(perHost, 1)) *
                           std::max<uint32_t>(hosts, 1) * NcclModel::RingChunkBytes();
    return static_cast<uint32_t>(
        std::clamp<uint64_t>((bytes + piece - 1) / piece, 1, MAX_HIERARCHICAL_PIECES));
}

CollectiveNodes
Collectives::PipelinedHierarchicalAllReduce(CommDag& dag,
                                            const std::vector<uint32_t>& members,
                                            uint64_t bytes,
                                            const NodeList& ready,
                                            uint32_t pieces)
{
    Check(dag, members, ready, "PipelinedHierarchicalAllReduce");
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
        // nothing to split in phases: NCCL's ring (or nothing)
        return ChannelRingAllReduce(dag, members, bytes, ready);
    }
    const size_t h = groups.size();
    const size_t n = members.size();
    const uint32_t p = pieces > 0 ? pieces : HierarchicalPieces(bytes, k, h);
    // one stream per member and phase for all pieces: a member sends the pieces of a phase in
    // order (as an NCCL channel loops over its chunks)
    std::vector<std::vector<uint32_t>> rsStream(h);
    std::vector<std::vector<uint32_t>> agStream(h);
    std::vector<std::vector<uint32_t>> railStream(k);
    for (size_t g = 0; g < h; ++g)
    {
        rsStream[g] = Streams(dag, k);
        agStream[g] = Streams(dag, k);
    }
    for (size_t j = 0; j < k; ++j)
    {
        railStream[j] = Streams(dag, h);
    }
    std::vector<NodeList> received(n);
    for (uint32_t piece = 0; piece < p; ++piece)
    {
        const uint64_t b = ChunkBytes(bytes, p, piece);
        const std::string of = " piece " + std::to_string(piece + 1) + " of " + std::to_string(p);
        // 1. intra-host reduce-scatter: local member j ends with shard (j + 1) mod k
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
            rs[g] = RingSchedule(
                        dag,
                        "hierarchical all-reduce: intra-host reduce-scatter," + of,
                        local,
                        b,
                        ready.empty() ? NodeList{} : localReady,
                        k - 1,
                        [k](uint32_t s, uint32_t r) { return (r + k - s) % k; },
                        0,
                        NcclProtocol::SIMPLE,
                        &rsStream[g])
                        .rankDone;
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
            const uint64_t shard = ChunkBytes(b, k, (j + 1) % k);
            const uint32_t hh = h;
            const auto done =
                RingSchedule(
                    dag,
                    "hierarchical all-reduce: inter-host ring, rail " + std::to_string(j) + "," +
                        of,
                    rail,
                    shard,
                    railReady,
                    2 * (hh - 1),
                    [hh](uint32_t s, uint32_t r) { return RingChunkOfStep(s, r, hh); },
                    0,
                    NcclProtocol::SIMPLE,
                    &railStream[j])
                    .rankDone;
            for (size_t g = 0; g < h; ++g)
            {
                ar[g][j] = done[g];
            }
        }
        // 3. intra-host all-gather of the k shards
        for (size_t g = 0; g < h; ++g)
        {
            std::vector<uint32_t> local;
            for (size_t i : groups[g])
            {
                local.push_back(members[i]);
            }
            const auto done = RingSchedule(
                                  dag,
                                  "hierarchical all-reduce: intra-host all-gather," + of,
                                  local,
                                  b,
                                  ar[g],
                                  k - 1,
                                  [k](uint32_t s, uint32_t r) { return (r + 1 + k - s) % k; },
                                  0,
                                  NcclProtocol::SIMPLE,
                                  &agStream[g])
                                  .rankDone;
            for (size_t j = 0; j < k; ++j)
            {
                received[groups[g][j]].push_back(done[j]);
            }
        }
    }
    return Done(dag, members, ready, received);
}

CollectiveNodes
Collectives::NcclAllReduce(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const NodeList& ready)
{
    if (NothingToSend(dag, members, ready, bytes, "AllReduce"))
    {
        return Trivial(dag, members, ready);
    }
    const auto plan = NcclPlan(dag, members, bytes, NcclFunction::ALL_REDUCE, std::nullopt);
    NS_LOG_DEBUG("all-reduce of " << bytes << " bytes over " << members.size()
                                  << " ranks: NCCL's cost model picks " << ToString(plan.algorithm)
                                  << "/" << ToString(plan.protocol) << " on " << plan.channels
                                  << " channels");
    if (plan.algorithm == NcclAlgorithm::TREE)
    {
        return ChannelTree(dag,
                           members,
                           bytes,
                           ready,
                           plan.channels,
                           plan.commChannels,
                           plan.protocol);
    }
    return ChannelRingAllReduce(dag, members, bytes, ready, plan.channels, plan.protocol);
}

CollectiveNodes
Collectives::AllReduce(CommDag& dag,
                       const std::vector<uint32_t>& members,
                       uint64_t bytes,
                       const std::string& algorithm,
                       const NodeList& ready)
{
    return GetCollectiveAlgorithm(algorithm)->AllReduce(dag, members, bytes, ready);
}

CollectiveNodes
Collectives::ReduceScatter(CommDag& dag,
                           const std::vector<uint32_t>& members,
                           uint64_t bytes,
                           const std::string& family,
                           const NodeList& ready)
{
    return GetCollectiveAlgorithm(family)->ReduceScatter(dag, members, bytes, ready);
}

CollectiveNodes
Collectives::AllGather(CommDag& dag,
                       const std::vector<uint32_t>& members,
                       uint64_t bytes,
                       const std::string& family,
                       const NodeList& ready)
{
    return GetCollectiveAlgorithm(family)->AllGather(dag, members, bytes, ready);
}

} // namespace ns3
