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

#ifndef CRUX_COLLECTIVES_DETAIL_H
#define CRUX_COLLECTIVES_DETAIL_H

// Internal to the collectives library (collectives.cc, collectives-tree.cc, collectives-p2p.cc):
// the argument checks and DAG building blocks every algorithm family uses. Not installed.

#include "collectives.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace collectives_detail
{

typedef CommDag::NodeId NodeId;        //!< node id
typedef CommDag::NodeList NodeList;    //!< node list
constexpr NodeId NONE = CommDag::NONE; //!< no node

/// NCCL's Simple-protocol buffer per connection (facts §5.1): the pipeline chunk size.
constexpr uint64_t PIPELINE_CHUNK = 4ull << 20;
/// Upper bound of pipeline chunks per collective (bounds the DAG size).
constexpr uint64_t MAX_PIPELINE_CHUNKS = 64;

/**
 * Validate the common arguments (std::invalid_argument naming "Collectives::<who>").
 * \param dag the DAG \param members member ranks \param ready per-member ready nodes (or empty)
 * \param who the collective's name for the messages
 */
void Check(const CommDag& dag,
           const std::vector<uint32_t>& members,
           const NodeList& ready,
           const char* who);

/// \return the ready node of member i (NONE: no dependency) \param ready ready nodes \param i
/// member position
NodeId ReadyOf(const NodeList& ready, size_t i);

/// \return true if a count-only DAG skips this collective (all members on one host: count-only
/// DAGs keep inter-host bytes only) \param dag the DAG \param members member ranks
bool SkipInCountOnly(const CommDag& dag, const std::vector<uint32_t>& members);

/// N = 1 or S = 0: nothing to send; complete one event after the members are ready.
/// \return the members' completion nodes \param dag the DAG \param members member ranks
/// \param ready per-member ready nodes
CollectiveNodes Trivial(CommDag& dag, const std::vector<uint32_t>& members, const NodeList& ready);

/**
 * The common start of a collective: Check() the arguments, then whether it sends nothing (a
 * count-only DAG skipping it, one member, or zero bytes: the caller returns Trivial()).
 * \param dag the DAG \param members member ranks \param ready per-member ready nodes
 * \param bytes the collective's size \param who its name for the messages
 * \return true if it sends nothing
 */
bool NothingToSend(const CommDag& dag,
                   const std::vector<uint32_t>& members,
                   const NodeList& ready,
                   uint64_t bytes,
                   const char* who);

/// \return one new stream per member \param dag the DAG \param n number of members
std::vector<uint32_t> Streams(CommDag& dag, size_t n);

/// \return the members grouped by host, in order of first appearance: positions into
/// `members` \param dag the DAG \param members member ranks
std::vector<std::vector<size_t>> ByHost(const CommDag& dag, const std::vector<uint32_t>& members);

/**
 * One tree of a tree all-reduce on one channel: the buffer of `bytes` in `chunks` pipeline
 * chunks; per chunk: reduce up each host's chain (chains[x][0] is host x's head) and up the
 * tree (parent over host indices, −1 = root), then broadcast down the tree and the chains,
 * each hop as soon as its data is there; up and down sends on separate streams.
 * \param dag the DAG \param members member ranks \param chains per host: member positions,
 * head first \param parent per host: parent host (−1: root) \param bytes data bytes
 * \param chunks pipeline chunks (>= 1) \param channel the connections' channel
 * \param protocol wire format \param ready per-member ready nodes
 * \param received per member position: appended with the nodes after which it holds a chunk
 */
void TreeChannel(CommDag& dag,
                 const std::vector<uint32_t>& members,
                 const std::vector<std::vector<size_t>>& chains,
                 const std::vector<int32_t>& parent,
                 uint64_t bytes,
                 uint32_t chunks,
                 uint32_t channel,
                 NcclProtocol protocol,
                 const NodeList& ready,
                 std::vector<NodeList>& received);

/// \return per member: a barrier after its ready node and every node of received[i]
/// \param dag the DAG \param members member ranks \param ready ready nodes
/// \param received per member position: nodes it waits for
CollectiveNodes Done(CommDag& dag,
                     const std::vector<uint32_t>& members,
                     const NodeList& ready,
                     const std::vector<NodeList>& received);

/**
 * Ring schedule (described as `what`, CommDag::BeginCollective): `steps` steps; in step s rank r
 * sends chunk chunkOf(s, r) of the buffer cut into N chunks to rank r+1; step s > 0 waits for the
 * step s−1 message of rank r−1. Messages carry NcclModel::WireBytes(protocol, chunk) bytes on
 * connections of `channel`.
 * \param dag the DAG \param what description \param members ring order
 * \param bytes buffer \param ready per-member ready nodes \param steps steps
 * \param chunkOf (step, rank) → chunk index \param channel NCCL channel of the connections
 * \param protocol wire format \param streams per-member streams (nullptr: new ones)
 * \return per-member (ring position) completion nodes
 */
template <typename ChunkOf>
CollectiveNodes
RingSchedule(CommDag& dag,
             const std::string& what,
             const std::vector<uint32_t>& members,
             uint64_t bytes,
             const NodeList& ready,
             uint32_t steps,
             ChunkOf chunkOf,
             uint32_t channel = 0,
             NcclProtocol protocol = NcclProtocol::SIMPLE,
             const std::vector<uint32_t>* streams = nullptr)
{
    const uint32_t n = members.size();
    const auto stream = streams ? *streams : Streams(dag, n);
    std::vector<NodeId> msg(static_cast<size_t>(n) * steps, NONE); // [s * n + r]
    dag.BeginCollective(what, steps);
    for (uint32_t s = 0; s < steps; ++s)
    {
        dag.SetStep(s);
        for (uint32_t r = 0; r < n; ++r)
        {
            const NodeId dep = s == 0 ? ReadyOf(ready, r) : msg[(s - 1) * n + (r + n - 1) % n];
            msg[s * n + r] = dag.AddMessage(
                members[r],
                members[(r + 1) % n],
                NcclModel::WireBytes(protocol, Collectives::ChunkBytes(bytes, n, chunkOf(s, r))),
                stream[r],
                {dep},
                channel);
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

/**
 * The flow form of RingSchedule() (RingForm::FLOW): rank r sends one message to rank r+1 with
 * the wire bytes of all `steps` chunks RingSchedule() has it send, after its ready node; every
 * rank is done when all N messages have arrived (the ring's slowest edge). Arguments as
 * RingSchedule() (the caller passes one ready node for all members).
 * \return per-member (ring position) completion nodes
 */
template <typename ChunkOf>
CollectiveNodes
RingFlowSchedule(CommDag& dag,
                 const std::string& what,
                 const std::vector<uint32_t>& members,
                 uint64_t bytes,
                 const NodeList& ready,
                 uint32_t steps,
                 ChunkOf chunkOf,
                 uint32_t channel,
                 NcclProtocol protocol)
{
    const uint32_t n = members.size();
    const auto stream = Streams(dag, n);
    std::vector<NodeId> msg(n, NONE);
    dag.BeginCollective(what, 1);
    dag.SetStep(0);
    for (uint32_t r = 0; r < n; ++r)
    {
        uint64_t wire = 0;
        for (uint32_t s = 0; s < steps; ++s)
        {
            wire +=
                NcclModel::WireBytes(protocol, Collectives::ChunkBytes(bytes, n, chunkOf(s, r)));
        }
        msg[r] = dag.AddMessage(members[r],
                                members[(r + 1) % n],
                                wire,
                                stream[r],
                                {ReadyOf(ready, r)},
                                channel);
    }
    // the ring ends with its slowest edge: every member's result holds data that crossed every
    // edge (and NCCL's bounded FIFOs keep no edge far ahead of the others)
    const NodeId ringEnd = dag.AddBarrier(msg);
    CollectiveNodes out;
    for (uint32_t q = 0; q < n; ++q)
    {
        out.rankDone.push_back(dag.AddBarrier({ReadyOf(ready, q), ringEnd}));
    }
    return out;
}

} // namespace collectives_detail
} // namespace ns3

#endif // CRUX_COLLECTIVES_DETAIL_H
