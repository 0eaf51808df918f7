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

#include "collective-algorithm.h"

#include "parallel-plan.h"

#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCollectiveAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

CollectiveNodes
CollectiveAlgorithm::ReduceScatter(CommDag& dag,
                                   const std::vector<uint32_t>& members,
                                   uint64_t bytes,
                                   const CommDag::NodeList& ready) const
{
    return Collectives::ChannelRingReduceScatter(dag, members, bytes, ready);
}

CollectiveNodes
CollectiveAlgorithm::AllGather(CommDag& dag,
                               const std::vector<uint32_t>& members,
                               uint64_t bytes,
                               const CommDag::NodeList& ready) const
{
    return Collectives::ChannelRingAllGather(dag, members, bytes, ready);
}

namespace
{

/// "nccl": NCCL's choice of ring or tree, protocol and channels (Collectives::NcclAllReduce).
class NcclAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NcclAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<NcclAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::NcclAllReduce(dag, members, bytes, ready);
    }
};

/// "ring": NCCL's ring on C channels (Collectives::ChannelRingAllReduce).
class NcclRingAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NcclRingAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<NcclRingAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::ChannelRingAllReduce(dag, members, bytes, ready);
    }
};

/// "ring-flow": NCCL's ring on C channels in flow form (RingForm::FLOW), all-reduce,
/// reduce-scatter and all-gather: N messages per channel instead of N² (flow-level runs of
/// large rings, issue 28 "Scale").
class NcclRingFlowAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NcclRingFlowAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<NcclRingFlowAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::ChannelRingAllReduce(dag, members, bytes, ready, 0, {}, RingForm::FLOW);
    }

    CollectiveNodes ReduceScatter(CommDag& dag,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  const CommDag::NodeList& ready) const override
    {
        return Collectives::ChannelRingReduceScatter(dag,
                                                     members,
                                                     bytes,
                                                     ready,
                                                     0,
                                                     {},
                                                     RingForm::FLOW);
    }

    CollectiveNodes AllGather(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::ChannelRingAllGather(dag, members, bytes, ready, 0, {}, RingForm::FLOW);
    }
};

/// "tree": NCCL's double binary tree on C channels (Collectives::ChannelTreeAllReduce).
class NcclTreeAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NcclTreeAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<NcclTreeAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::ChannelTreeAllReduce(dag, members, bytes, ready);
    }
};

/// "hierarchical": the pipelined three-phase all-reduce
/// (Collectives::PipelinedHierarchicalAllReduce).
class PipelinedHierarchicalAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::PipelinedHierarchicalAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<PipelinedHierarchicalAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::PipelinedHierarchicalAllReduce(dag, members, bytes, ready);
    }
};

/// The classic families (and halving-doubling): reduce-scatter and all-gather on the one
/// classic ring (Collectives::RingReduceScatter, RingAllGather).
class ClassicFamily : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ClassicCollectiveAlgorithm")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux");
        return tid;
    }

    CollectiveNodes ReduceScatter(CommDag& dag,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  const CommDag::NodeList& ready) const override
    {
        return Collectives::RingReduceScatter(dag, members, bytes, ready);
    }

    CollectiveNodes AllGather(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::RingAllGather(dag, members, bytes, ready);
    }
};

/// "halving-doubling": Rabenseifner (Collectives::HalvingDoublingAllReduce).
class HalvingDoublingAllReduce : public ClassicFamily
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::HalvingDoublingAllReduce")
                                .SetParent<ClassicFamily>()
                                .SetGroupName("Crux")
                                .AddConstructor<HalvingDoublingAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::HalvingDoublingAllReduce(dag, members, bytes, ready);
    }
};

/// "classic-ring": one ring in rank order on the whole buffer (Collectives::RingAllReduce).
class ClassicRingAllReduce : public ClassicFamily
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ClassicRingAllReduce")
                                .SetParent<ClassicFamily>()
                                .SetGroupName("Crux")
                                .AddConstructor<ClassicRingAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::RingAllReduce(dag, members, bytes, ready);
    }
};

/// "classic-hierarchical": the three phases one after another on whole buffers
/// (Collectives::HierarchicalAllReduce).
class ClassicHierarchicalAllReduce : public ClassicFamily
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ClassicHierarchicalAllReduce")
                                .SetParent<ClassicFamily>()
                                .SetGroupName("Crux")
                                .AddConstructor<ClassicHierarchicalAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::HierarchicalAllReduce(dag, members, bytes, ready);
    }
};

/// "classic-tree": double binary tree, one chain per host and tree (Collectives::TreeAllReduce).
class ClassicTreeAllReduce : public ClassicFamily
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ClassicTreeAllReduce")
                                .SetParent<ClassicFamily>()
                                .SetGroupName("Crux")
                                .AddConstructor<ClassicTreeAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        return Collectives::TreeAllReduce(dag, members, bytes, ready);
    }
};

NS_OBJECT_ENSURE_REGISTERED(NcclAllReduce);
NS_OBJECT_ENSURE_REGISTERED(NcclRingAllReduce);
NS_OBJECT_ENSURE_REGISTERED(NcclRingFlowAllReduce);
NS_OBJECT_ENSURE_REGISTERED(NcclTreeAllReduce);
NS_OBJECT_ENSURE_REGISTERED(PipelinedHierarchicalAllReduce);
NS_OBJECT_ENSURE_REGISTERED(ClassicFamily);
NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAllReduce);
NS_OBJECT_ENSURE_REGISTERED(ClassicRingAllReduce);
NS_OBJECT_ENSURE_REGISTERED(ClassicHierarchicalAllReduce);
NS_OBJECT_ENSURE_REGISTERED(ClassicTreeAllReduce);

/// \return the checked TypeId \p tid: derived from CollectiveAlgorithm, with a constructor
/// \param name the algorithm's name (for messages) \param tid the TypeId
TypeId
CheckedAlgorithmTypeId(const std::string& name, TypeId tid)
{
    if (!tid.IsChildOf(CollectiveAlgorithm::GetTypeId()))
    {
        throw std::invalid_argument("collective algorithm '" + name + "': " + tid.GetName() +
                                    " is not an ns3::CollectiveAlgorithm");
    }
    if (!tid.HasConstructor())
    {
        throw std::invalid_argument("collective algorithm '" + name + "': " + tid.GetName() +
                                    " has no constructor");
    }
    return tid;
}

} // namespace

void
RegisterCollectiveAlgorithm(const std::string& name, TypeId tid)
{
    CheckedAlgorithmTypeId(name, tid);
    AddAllReduceAlgorithmName(name, tid.GetName());
    NS_LOG_INFO("all-reduce algorithm '" << name << "' registered: " << tid.GetName());
}

Ptr<const CollectiveAlgorithm>
GetCollectiveAlgorithm(const std::string& name)
{
    static std::mutex lock;
    static std::map<std::string, Ptr<const CollectiveAlgorithm>> made;
    const std::string key = name.empty() ? std::string("nccl") : name;
    std::lock_guard<std::mutex> guard(lock);
    auto it = made.find(key);
    if (it != made.end())
    {
        return it->second;
    }
    const std::string tidName = AllReduceAlgorithmTypeId(key);
    TypeId tid;
    if (tidName.empty() || !TypeId::LookupByNameFailSafe(tidName, &tid))
    {
        std::string known;
        for (const std::string& n : AllReduceAlgorithmNames())
        {
            known += (known.empty() ? "" : ", ") + n;
        }
        throw std::invalid_argument("unknown all-reduce algorithm '" + key + "' (known: " + known +
                                    ")");
    }
    ObjectFactory factory;
    factory.SetTypeId(CheckedAlgorithmTypeId(key, tid));
    Ptr<const CollectiveAlgorithm> a = factory.Create<CollectiveAlgorithm>();
    made.emplace(key, a);
    NS_LOG_DEBUG("all-reduce algorithm '" << key << "': " << tid.GetName());
    return a;
}

} // namespace ns3
