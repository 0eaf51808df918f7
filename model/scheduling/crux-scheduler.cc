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

#include "crux-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxScheduler");

WeightedDag
BuildContentionDag(const ClusterModel& model,
                   const Decision& decision,
                   std::vector<uint32_t>* nodeJobs)
{
    const std::vector<uint32_t> order = decision.PriorityOrder();
    const uint32_t n = static_cast<uint32_t>(order.size());
    std::map<uint32_t, uint32_t> nodeOf; // job id -> node
    for (uint32_t i = 0; i < n; ++i)
    {
        nodeOf[order[i]] = i;
    }
    // users[e] = nodes that put > 0 bytes on link e
    std::vector<std::vector<uint32_t>> users(model.links.size());
    for (const SchedJob& job : model.jobs)
    {
        const uint32_t node = nodeOf.at(job.id);
        for (const auto& [link, bytes] : JobLinkBytes(job, ChoiceOf(job, decision.jobs.at(job.id))))
        {
            if (bytes > 0)
            {
                users[link].push_back(node);
            }
        }
    }
    std::vector<bool> shared(static_cast<std::size_t>(n) * n, false);
    WeightedDag dag;
    dag.numNodes = n;
    for (const auto& u : users)
    {
        for (std::size_t a = 0; a < u.size(); ++a)
        {
            for (std::size_t b = a + 1; b < u.size(); ++b)
            {
                const uint32_t hi = std::min(u[a], u[b]);
                const uint32_t lo = std::max(u[a], u[b]);
                if (hi == lo || shared[static_cast<std::size_t>(hi) * n + lo])
                {
                    continue;
                }
                shared[static_cast<std::size_t>(hi) * n + lo] = true;
                dag.edges.push_back({hi, lo, decision.jobs.at(order[hi]).intensity});
            }
        }
    }
    if (nodeJobs)
    {
        *nodeJobs = order;
    }
    return dag;
}

NS_OBJECT_ENSURE_REGISTERED(CruxPriorityCompression);

TypeId
CruxPriorityCompression::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxPriorityCompression").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

CruxPriorityCompression::~CruxPriorityCompression() = default;

NS_OBJECT_ENSURE_REGISTERED(CruxMaxKCutCompression);

TypeId
CruxMaxKCutCompression::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxMaxKCutCompression")
            .SetParent<CruxPriorityCompression>()
            .SetGroupName("Crux")
            .AddConstructor<CruxMaxKCutCompression>()
            .AddAttribute("TopoOrderSamples",
                          "m: random topological orders sampled by the compression (Crux §4.3 "
                          "uses m = 10); 0 = every topological order (exact, at most 10 jobs).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&CruxMaxKCutCompression::m_topoOrderSamples),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("IncludePriorityOrder",
                          "Also evaluate the priority-sorted order (always topological) in the "
                          "compression ([D8] in crux-scheduler.h).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CruxMaxKCutCompression::m_includePriorityOrder),
                          MakeBooleanChecker());
    return tid;
}

void
CruxMaxKCutCompression::Compress(const ClusterModel& model,
                                 const SchedulerConfig& config,
                                 Decision& decision) const
{
    std::vector<uint32_t> nodeJobs;
    const WeightedDag dag = BuildContentionDag(model, decision, &nodeJobs);
    DagMaxKCutOptions cutOptions;
    if (m_topoOrderSamples == 0 && dag.numNodes > cutOptions.maxExhaustiveNodes)
    {
        throw std::invalid_argument(
            "ns3::CruxMaxKCutCompression::TopoOrderSamples = 0 (exhaustive compression) "
            "supports at most " +
            std::to_string(cutOptions.maxExhaustiveNodes) + " jobs (got " +
            std::to_string(dag.numNodes) + ")");
    }
    cutOptions.samples = m_topoOrderSamples;
    cutOptions.seed = config.seed;
    if (m_includePriorityOrder)
    {
        cutOptions.firstOrder.resize(dag.numNodes);
        std::iota(cutOptions.firstOrder.begin(), cutOptions.firstOrder.end(), 0u);
    }
    const uint32_t k = decision.numLevels;
    const DagCut cut = SolveDagMaxKCut(dag, k, cutOptions);
    for (uint32_t v = 0; v < dag.numNodes; ++v)
    {
        decision.jobs.at(nodeJobs[v]).level = k - 1 - cut.block[v];
        NS_LOG_DEBUG("job " << nodeJobs[v] << " (rank " << v << "): level "
                            << decision.jobs.at(nodeJobs[v]).level);
    }
    NS_LOG_INFO("compression: " << dag.numNodes << " jobs, " << dag.edges.size()
                                << " contention edges onto " << k << " levels, cut " << cut.value);
    decision.compressionCut = cut.value;
    decision.uniquePriorities = false;
}

NS_OBJECT_ENSURE_REGISTERED(CruxUniquePriorities);

TypeId
CruxUniquePriorities::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CruxUniquePriorities")
                            .SetParent<CruxPriorityCompression>()
                            .SetGroupName("Crux")
                            .AddConstructor<CruxUniquePriorities>();
    return tid;
}

void
CruxUniquePriorities::Compress(const ClusterModel& /* model */,
                               const SchedulerConfig& /* config */,
                               Decision& decision) const
{
    AssignLevelsByRank(decision);
}

namespace
{

/**
 * Checker of a stage Attribute of CruxScheduler: a TypeIdValue naming a TypeId derived from the
 * stage's base with a constructor (so a wrong or abstract TypeId is refused by the checker,
 * i.e. by the registry, Config::SetDefault and the command line, before any object is made).
 */
class StageTypeIdChecker : public TypeIdChecker
{
  public:
    /// \param base the stage's abstract base (e.g. ns3::CruxPathSelection)
    explicit StageTypeIdChecker(TypeId base)
        : m_base(base)
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* v = dynamic_cast<const TypeIdValue*>(&value);
        return v && v->Get().IsChildOf(m_base) && v->Get().HasConstructor();
    }

    std::string GetValueTypeName() const override
    {
        return "ns3::TypeIdValue";
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return "a TypeId derived from " + m_base.GetName() + " with a constructor";
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<TypeIdValue>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* src = dynamic_cast<const TypeIdValue*>(&source);
        auto* dst = dynamic_cast<TypeIdValue*>(&destination);
        if (!src || !dst)
        {
            return false;
        }
        *dst = *src;
        return true;
    }

  private:
    TypeId m_base; //!< the stage's base
};

/// \return the checker of a stage Attribute whose objects derive from \p base
Ptr<const AttributeChecker>
MakeStageChecker(TypeId base)
{
    return ns3::Create<StageTypeIdChecker>(base);
}

/**
 * \return a new stage object of TypeId \p tid with its attribute defaults
 * \throws std::invalid_argument if \p tid does not make a T
 */
template <typename T>
Ptr<T>
CreateStage(TypeId tid)
{
    ObjectFactory factory;
    factory.SetTypeId(tid);
    Ptr<T> stage = factory.Create<T>();
    if (!stage)
    {
        throw std::invalid_argument("CruxScheduler: " + tid.GetName() + " is not a " +
                                    T::GetTypeId().GetName());
    }
    return stage;
}

/// \throws std::invalid_argument if \p stage is null
template <typename T>
Ptr<T>
NotNull(Ptr<T> stage, const std::string& setter)
{
    if (!stage)
    {
        throw std::invalid_argument("CruxScheduler::" + setter + ": null stage object");
    }
    return stage;
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(CruxScheduler);

TypeId
CruxScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxScheduler")
            .SetParent<CommScheduler>()
            .SetGroupName("Crux")
            .AddConstructor<CruxScheduler>()
            .AddAttribute("PathSelection",
                          "The path-selection stage, a TypeId derived from ns3::CruxPathSelection: "
                          "ns3::CruxLeastCongestedPaths (Crux §4.1: most GPU-intensive job first, "
                          "least congested candidate per flow) or ns3::CruxDefaultPaths (every "
                          "flow keeps its ECMP default path, Crux-PA of §6.3), or your own. A new "
                          "object with its TypeId's attribute defaults.",
                          TypeIdValue(CruxLeastCongestedPaths::GetTypeId()),
                          MakeTypeIdAccessor(&CruxScheduler::SetPathSelectionType,
                                             &CruxScheduler::GetPathSelectionType),
                          MakeStageChecker(CruxPathSelection::GetTypeId()))
            .AddAttribute("PriorityAssignment",
                          "The priority-assignment stage, a TypeId derived from "
                          "ns3::CruxPriorityAssignment: ns3::CruxIntensityPriorities (Crux §4.2: "
                          "P = k I with the two-timeline correction factor k), or your own. A new "
                          "object with its TypeId's attribute defaults.",
                          TypeIdValue(CruxIntensityPriorities::GetTypeId()),
                          MakeTypeIdAccessor(&CruxScheduler::SetPriorityAssignmentType,
                                             &CruxScheduler::GetPriorityAssignmentType),
                          MakeStageChecker(CruxPriorityAssignment::GetTypeId()))
            .AddAttribute("Compression",
                          "The compression stage, a TypeId derived from "
                          "ns3::CruxPriorityCompression: ns3::CruxMaxKCutCompression (Crux §4.3: "
                          "DAG max K-cut onto the K levels) or ns3::CruxUniquePriorities (unique "
                          "priorities, rank r on level K-1-r while r < K, else 0: Crux-PA / "
                          "Crux-PS-PA of §6.3, [D9]), or your own. A new object with its TypeId's "
                          "attribute defaults.",
                          TypeIdValue(CruxMaxKCutCompression::GetTypeId()),
                          MakeTypeIdAccessor(&CruxScheduler::SetCompressionType,
                                             &CruxScheduler::GetCompressionType),
                          MakeStageChecker(CruxPriorityCompression::GetTypeId()));
    return tid;
}

CruxScheduler::CruxScheduler()
    : m_pathSelection(CreateObject<CruxLeastCongestedPaths>()),
      m_priorityAssignment(CreateObject<CruxIntensityPriorities>()),
      m_compression(CreateObject<CruxMaxKCutCompression>())
{
    SetName("crux");
}

Ptr<CruxPathSelection>
CruxScheduler::GetPathSelection() const
{
    return m_pathSelection;
}

void
CruxScheduler::SetPathSelection(Ptr<CruxPathSelection> stage)
{
    m_pathSelection = NotNull(stage, "SetPathSelection");
}

Ptr<CruxPriorityAssignment>
CruxScheduler::GetPriorityAssignment() const
{
    return m_priorityAssignment;
}

void
CruxScheduler::SetPriorityAssignment(Ptr<CruxPriorityAssignment> stage)
{
    m_priorityAssignment = NotNull(stage, "SetPriorityAssignment");
}

Ptr<CruxPriorityCompression>
CruxScheduler::GetCompression() const
{
    return m_compression;
}

void
CruxScheduler::SetCompression(Ptr<CruxPriorityCompression> stage)
{
    m_compression = NotNull(stage, "SetCompression");
}

void
CruxScheduler::SetPathSelectionType(TypeId tid)
{
    m_pathSelection = CreateStage<CruxPathSelection>(tid);
}

TypeId
CruxScheduler::GetPathSelectionType() const
{
    return m_pathSelection->GetInstanceTypeId();
}

void
CruxScheduler::SetPriorityAssignmentType(TypeId tid)
{
    m_priorityAssignment = CreateStage<CruxPriorityAssignment>(tid);
}

TypeId
CruxScheduler::GetPriorityAssignmentType() const
{
    return m_priorityAssignment->GetInstanceTypeId();
}

void
CruxScheduler::SetCompressionType(TypeId tid)
{
    m_compression = CreateStage<CruxPriorityCompression>(tid);
}

TypeId
CruxScheduler::GetCompressionType() const
{
    return m_compression->GetInstanceTypeId();
}

Decision
CruxScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    // The stages are called through the members (no Ptr copies: no reference counting while
    // schedulers run in the microbenchmark's worker threads).
    Decision d = DefaultDecision(model, config);
    m_pathSelection->SelectPaths(model, config, d);
    m_priorityAssignment->AssignPriorities(model, config, d);
    m_compression->Compress(model, config, d);
    return d;
}

} // namespace ns3
