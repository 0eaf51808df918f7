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

} // namespace collectives_detail
} // namespace ns3

#endif // CRUX_COLLECTIVES_DETAIL_H
