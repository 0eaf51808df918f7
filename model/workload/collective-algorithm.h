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

#ifndef CRUX_COLLECTIVE_ALGORITHM_H
#define CRUX_COLLECTIVE_ALGORITHM_H

// No Simulator calls: an algorithm only adds nodes to a CommDag; CommDagRunner runs it.

#include "collectives.h"

#include "ns3/object.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief An all-reduce algorithm family of the collectives library, chosen by name (a plan's
 * "collectives.allReduce", ChakraTrace::SetAllReduce) through a registered TypeId: how a job's
 * all-reduces are built as a DAG of point-to-point messages, and the reduce-scatter and
 * all-gather the same job runs (sequence-parallel TP, the distributed optimizer, Chakra's
 * REDUCE_SCATTER / ALL_GATHER nodes).
 *
 * Built in (AllReduceAlgorithmNames(), doc/crux.rst "Collectives"): "nccl"
 * (ns3::NcclAllReduce: NCCL's choice of ring or tree, protocol and channels, NcclModel),
 * "ring" (ns3::NcclRingAllReduce), "ring-flow" (ns3::NcclRingFlowAllReduce: the channel ring
 * in flow form, RingForm::FLOW, also for reduce-scatter and all-gather), "tree"
 * (ns3::NcclTreeAllReduce), "hierarchical"
 * (ns3::PipelinedHierarchicalAllReduce), "halving-doubling" (ns3::HalvingDoublingAllReduce),
 * "classic-ring", "classic-hierarchical", "classic-tree" (ns3::ClassicRingAllReduce, ...: the
 * whole-buffer closed forms). The NCCL ones run reduce-scatter and all-gather on NCCL's channel
 * rings; the classic ones and halving-doubling on the one classic ring.
 *
 * A user adds an algorithm without touching the library: derive from this class, give it a
 * TypeId with a constructor, and RegisterCollectiveAlgorithm("my-name", MyAlgorithm::GetTypeId())
 * before the scenario is read; "my-name" is then a valid "collectives.allReduce". Implementations
 * are stateless (one instance per name serves every job) and deterministic, and follow the
 * conventions of Collectives (members, ready, CollectiveNodes).
 */
class CollectiveAlgorithm : public Object
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Add an all-reduce of \p bytes over \p members to \p dag.
     * \param dag the DAG \param members job-local ranks in rank order (N)
     * \param bytes the buffer S per rank, bytes \param ready empty, one or N nodes
     * \return per member the node after which its result buffer is final
     * \throws std::invalid_argument as the Collectives functions (bad members or ready list)
     */
    virtual CollectiveNodes AllReduce(CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      const CommDag::NodeList& ready) const = 0;

    /**
     * \brief Add a reduce-scatter as this family runs it (default: NCCL's channel ring,
     * Collectives::ChannelRingReduceScatter).
     * \param dag the DAG \param members ranks (N) \param bytes the full vector S, bytes
     * \param ready empty, one or N nodes \return per-member completion nodes
     */
    virtual CollectiveNodes ReduceScatter(CommDag& dag,
                                          const std::vector<uint32_t>& members,
                                          uint64_t bytes,
                                          const CommDag::NodeList& ready) const;

    /**
     * \brief Add an all-gather as this family runs it (default: NCCL's channel ring,
     * Collectives::ChannelRingAllGather).
     * \param dag the DAG \param members ranks (N) \param bytes the full vector S, bytes
     * \param ready empty, one or N nodes \return per-member completion nodes
     */
    virtual CollectiveNodes AllGather(CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      const CommDag::NodeList& ready) const;
};

/**
 * \ingroup crux
 * \brief Register an all-reduce algorithm by name (see CollectiveAlgorithm).
 * \param name the name plans and scenario files use: letters, digits, '.', '_', '-', starting
 *        with a letter or digit; not a known name
 * \param tid a TypeId derived from ns3::CollectiveAlgorithm, with a constructor
 * \throws std::invalid_argument for a malformed or taken name, or a TypeId that is not a
 *         CollectiveAlgorithm or has no constructor
 */
void RegisterCollectiveAlgorithm(const std::string& name, TypeId tid);

/**
 * \ingroup crux
 * \brief The algorithm registered under a name (one instance per name, made on first use).
 * Thread-safe.
 * \param name a name of AllReduceAlgorithmNames(); "" = "nccl"
 * \return the algorithm
 * \throws std::invalid_argument "unknown all-reduce algorithm 'x' (known: ...)"
 */
Ptr<const CollectiveAlgorithm> GetCollectiveAlgorithm(const std::string& name);

} // namespace ns3

#endif // CRUX_COLLECTIVE_ALGORITHM_H
