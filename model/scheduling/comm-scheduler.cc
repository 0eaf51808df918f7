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

#include "comm-scheduler.h"

#include "cassini-scheduler.h"
#include "crux-scheduler.h"
#include "ecmp-scheduler.h"
#include "optimal-scheduler.h"
#include "sincronia-scheduler.h"
#include "taccl-scheduler.h"
#include "varys-scheduler.h"

#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CommScheduler");

NS_OBJECT_ENSURE_REGISTERED(CommScheduler);

TypeId
CommScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CommScheduler").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

CommScheduler::CommScheduler()
{
    NS_LOG_FUNCTION(this);
}

CommScheduler::~CommScheduler()
{
    NS_LOG_FUNCTION(this);
}

std::string
CommScheduler::GetName() const
{
    return m_name.empty() ? GetInstanceTypeId().GetName() : m_name;
}

void
CommScheduler::SetName(const std::string& name)
{
    m_name = name;
}

Decision
CommScheduler::Schedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels << config.seed);
    Validate(model, config);
    Decision decision = DoSchedule(model, config);
    const std::string name = GetName();
    ValidateDecision(model, config, decision, name);
    decision.scheduler = name;
    NS_LOG_LOGIC(name << ": " << decision.jobs.size() << " jobs on " << decision.numLevels
                      << " levels");
    return decision;
}

void
ValidateDecision(const ClusterModel& model,
                 const SchedulerConfig& config,
                 const Decision& decision,
                 const std::string& scheduler)
{
    auto fail = [&scheduler](const std::string& what) {
        throw std::invalid_argument("scheduler '" + scheduler +
                                    "' returned an invalid decision: " + what);
    };
    if (decision.numLevels != config.numLevels)
    {
        fail("Decision.numLevels = " + std::to_string(decision.numLevels) +
             " but K = " + std::to_string(config.numLevels));
    }
    const auto n = static_cast<uint32_t>(model.jobs.size());
    std::set<uint32_t> ranks;
    for (const SchedJob& job : model.jobs)
    {
        const std::string jname = "job " + std::to_string(job.id);
        auto it = decision.jobs.find(job.id);
        if (it == decision.jobs.end())
        {
            fail(jname + " has no decision");
        }
        const JobDecision& jd = it->second;
        if (jd.level >= config.numLevels)
        {
            fail(jname + ": level " + std::to_string(jd.level) +
                 " >= K = " + std::to_string(config.numLevels));
        }
        if (jd.rank >= n)
        {
            fail(jname + ": rank " + std::to_string(jd.rank) + " >= the number of jobs (" +
                 std::to_string(n) + ")");
        }
        ranks.insert(jd.rank);
        if (!(std::isfinite(jd.commTime) && jd.commTime >= 0))
        {
            fail(jname + ": commTime must be finite and >= 0 s");
        }
        if (!(std::isfinite(jd.timeShift) && jd.timeShift >= 0))
        {
            fail(jname + ": timeShift must be finite and >= 0 s");
        }
        if (jd.flowPath.size() != job.flows.size())
        {
            fail(jname + ": " + std::to_string(jd.flowPath.size()) + " flow paths for " +
                 std::to_string(job.flows.size()) + " flows");
        }
        for (const SchedFlow& flow : job.flows)
        {
            auto f = jd.flowPath.find(flow.id);
            if (f == jd.flowPath.end())
            {
                fail(jname + ": flow " + std::to_string(flow.id) + " has no path");
            }
            if (f->second >= flow.candidatePaths.size())
            {
                fail(jname + " flow " + std::to_string(flow.id) + ": path index " +
                     std::to_string(f->second) + " >= its " +
                     std::to_string(flow.candidatePaths.size()) + " candidate paths");
            }
        }
    }
    if (decision.jobs.size() != model.jobs.size())
    {
        for (const auto& [id, jd] : decision.jobs)
        {
            const bool known = std::any_of(model.jobs.begin(),
                                           model.jobs.end(),
                                           [id = id](const SchedJob& j) { return j.id == id; });
            if (!known)
            {
                fail("job " + std::to_string(id) + " is not in the model");
            }
        }
    }
    if (decision.uniquePriorities && ranks.size() != n)
    {
        fail("uniquePriorities is set but the ranks are not 0.." + std::to_string(n - 1) +
             " (one per job)");
    }
}

// ------------------------------------------------------------------------------- registry

namespace
{

/// One registered scheduler: by TypeId (with presets) or by factory.
struct RegistryEntry
{
    std::string name;                //!< short name
    TypeId tid;                      //!< TypeId (if no factory)
    CommSchedulerAttributes presets; //!< attribute presets (TypeId entries)
    CommSchedulerFactory factory;    //!< factory (empty for TypeId entries)
};

/// The registry: entries in registration order, and the lock that serialises registration and
/// creation (ns-3's TypeId tables and attribute values are not thread-safe).
struct Registry
{
    std::recursive_mutex mutex;         //!< lock
    std::vector<RegistryEntry> entries; //!< entries
};

/// \return the short name rule's violation in \p name, or "" if it is fine
std::string
NameProblem(const std::string& name)
{
    if (name.empty())
    {
        return "the name is empty";
    }
    if (!std::isalnum(static_cast<unsigned char>(name[0])))
    {
        return "it must start with a letter or digit";
    }
    for (char c : name)
    {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
        {
            return "it may only hold letters, digits, '.', '_' and '-'";
        }
    }
    if (name == "alone")
    {
        return "'alone' is the scenario runs' stand-alone mode";
    }
    return "";
}

/// \return the names of the settable attributes of \p tid and its parents, comma-separated
std::string
AttributeNames(TypeId tid)
{
    std::string names;
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            if (info.flags & TypeId::ATTR_SET)
            {
                names += (names.empty() ? "" : ", ") + info.name;
            }
        }
        if (t == t.GetParent())
        {
            break;
        }
    }
    return names.empty() ? "none" : names;
}

/**
 * \brief Parses one attribute value with the attribute's checker.
 * \param scheduler short name (for the message)
 * \param tid the TypeId holding the attribute
 * \param attribute attribute name
 * \param value text
 * \return the checked value
 * \throws std::invalid_argument naming the scheduler, the attribute and the expected type
 */
Ptr<AttributeValue>
CheckedValue(const std::string& scheduler,
             TypeId tid,
             const std::string& attribute,
             const std::string& value)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attribute, &info) || !(info.flags & TypeId::ATTR_SET))
    {
        throw std::invalid_argument("scheduler '" + scheduler + "': " + tid.GetName() +
                                    " has no attribute '" + attribute +
                                    "' (attributes: " + AttributeNames(tid) + ")");
    }
    Ptr<AttributeValue> v = info.checker->CreateValidValue(StringValue(value));
    if (!v)
    {
        std::string expected = info.checker->GetValueTypeName();
        if (info.checker->HasUnderlyingTypeInformation())
        {
            expected = info.checker->GetUnderlyingTypeInformation();
        }
        throw std::invalid_argument("scheduler '" + scheduler + "': invalid value '" + value +
                                    "' for attribute " + attribute + " (expected " + expected +
                                    "; " + info.help + ")");
    }
    return v;
}

/// Registers the built-in schedulers (explicit GetTypeId() calls, so that a static library
/// never drops one).
void
AddBuiltIns(std::vector<RegistryEntry>& entries)
{
    // Crux's §6.3 ablation: the same scheduler with other stage objects.
    const std::string defaultPaths = CruxDefaultPaths::GetTypeId().GetName();
    const std::string unique = CruxUniquePriorities::GetTypeId().GetName();
    entries = {
        {"ecmp", EcmpScheduler::GetTypeId(), {}, {}},
        {"crux", CruxScheduler::GetTypeId(), {}, {}},
        {"crux-full", CruxScheduler::GetTypeId(), {}, {}},
        {"crux-pa",
         CruxScheduler::GetTypeId(),
         {{"PathSelection", defaultPaths}, {"Compression", unique}},
         {}},
        {"crux-ps-pa", CruxScheduler::GetTypeId(), {{"Compression", unique}}, {}},
        {"sincronia", SincroniaScheduler::GetTypeId(), {}, {}},
        {"varys", VarysScheduler::GetTypeId(), {}, {}},
        {"taccl", TacclScheduler::GetTypeId(), {}, {}},
        {"cassini", CassiniScheduler::GetTypeId(), {}, {}},
        {"optimal", OptimalScheduler::GetTypeId(), {}, {}},
    };
}

/// \return the registry (built-ins added on first use)
Registry&
GetRegistry()
{
    static Registry registry;
    static std::once_flag once;
    std::call_once(once, [] {
        std::lock_guard<std::recursive_mutex> lock(registry.mutex);
        AddBuiltIns(registry.entries);
    });
    return registry;
}

/// \throws std::invalid_argument if \p name is malformed or taken (registry locked)
void
CheckNewName(const Registry& registry, const std::string& name)
{
    const std::string problem = NameProblem(name);
    if (!problem.empty())
    {
        throw std::invalid_argument("RegisterCommScheduler: bad scheduler name '" + name +
                                    "': " + problem);
    }
    for (const auto& e : registry.entries)
    {
        if (e.name == name)
        {
            throw std::invalid_argument("RegisterCommScheduler: scheduler '" + name +
                                        "' is already registered");
        }
    }
}

} // namespace

void
RegisterCommScheduler(const std::string& name, TypeId tid, const CommSchedulerAttributes& presets)
{
    Registry& registry = GetRegistry();
    std::lock_guard<std::recursive_mutex> lock(registry.mutex);
    CheckNewName(registry, name);
    if (tid != CommScheduler::GetTypeId() && !tid.IsChildOf(CommScheduler::GetTypeId()))
    {
        throw std::invalid_argument("RegisterCommScheduler: '" + name + "': " + tid.GetName() +
                                    " is not derived from ns3::CommScheduler");
    }
    if (!tid.HasConstructor())
    {
        throw std::invalid_argument("RegisterCommScheduler: '" + name + "': " + tid.GetName() +
                                    " has no constructor (AddConstructor in its GetTypeId)");
    }
    for (const auto& [attribute, value] : presets)
    {
        CheckedValue(name, tid, attribute, value);
    }
    registry.entries.push_back({name, tid, presets, {}});
}

void
RegisterCommScheduler(const std::string& name, CommSchedulerFactory factory)
{
    Registry& registry = GetRegistry();
    std::lock_guard<std::recursive_mutex> lock(registry.mutex);
    CheckNewName(registry, name);
    if (!factory)
    {
        throw std::invalid_argument("RegisterCommScheduler: '" + name + "': empty factory");
    }
    registry.entries.push_back({name, CommScheduler::GetTypeId(), {}, std::move(factory)});
}

std::vector<std::string>
KnownCommSchedulers()
{
    Registry& registry = GetRegistry();
    std::lock_guard<std::recursive_mutex> lock(registry.mutex);
    std::vector<std::string> names;
    for (const auto& entry : registry.entries)
    {
        names.push_back(entry.name);
    }
    return names;
}

Ptr<CommScheduler>
CreateCommScheduler(const std::string& name, const CommSchedulerAttributes& attributes)
{
    Registry& registry = GetRegistry();
    std::lock_guard<std::recursive_mutex> lock(registry.mutex);
    auto it = std::find_if(registry.entries.begin(),
                           registry.entries.end(),
                           [&name](const RegistryEntry& e) { return e.name == name; });
    if (it == registry.entries.end())
    {
        std::string known;
        for (const auto& entry : registry.entries)
        {
            known += (known.empty() ? "" : ", ") + entry.name;
        }
        throw std::invalid_argument("unknown scheduler '" + name + "' (known: " + known + ")");
    }
    const RegistryEntry entry = *it; // the factory may register more schedulers
    Ptr<CommScheduler> scheduler;
    if (entry.factory)
    {
        scheduler = entry.factory();
        if (!scheduler)
        {
            throw std::invalid_argument("scheduler '" + name + "': its factory returned null");
        }
    }
    else
    {
        ObjectFactory factory(entry.tid.GetName());
        for (const auto& [attribute, value] : entry.presets)
        {
            factory.Set(attribute, *CheckedValue(name, entry.tid, attribute, value));
        }
        scheduler = factory.Create<CommScheduler>();
    }
    const TypeId tid = scheduler->GetInstanceTypeId();
    for (const auto& [attribute, value] : attributes)
    {
        scheduler->SetAttribute(attribute, *CheckedValue(name, tid, attribute, value));
    }
    scheduler->SetName(name);
    try
    {
        scheduler->Initialize(); // DoInitialize checks attribute combinations
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("scheduler '" + name + "': " + e.what());
    }
    return scheduler;
}

// ------------------------------------------------------------------------------- building blocks

namespace
{

/// MakeDefaultDecision() after its Validate(). \param model the cluster \param config the
/// configuration \param scheduler the name \return the decision
Decision
DefaultDecisionOf(const ClusterModel& model,
                  const SchedulerConfig& config,
                  const std::string& scheduler)
{
    Decision d;
    d.scheduler = scheduler;
    d.numLevels = config.numLevels;
    for (const SchedJob& job : model.jobs)
    {
        JobDecision& jd = d.jobs[job.id];
        for (const SchedFlow& flow : job.flows)
        {
            jd.flowPath[flow.id] = flow.defaultPath;
        }
        jd.commTime = JobCommTime(model, job, DefaultPathChoice(job));
        jd.intensity = GpuIntensity(job.flopsPerIteration, jd.commTime);
    }
    return d;
}

} // namespace

Decision
MakeDefaultDecision(const ClusterModel& model,
                    const SchedulerConfig& config,
                    const std::string& scheduler)
{
    Validate(model, config);
    return DefaultDecisionOf(model, config, scheduler);
}

Decision
CommScheduler::DefaultDecision(const ClusterModel& model, const SchedulerConfig& config) const
{
    return DefaultDecisionOf(model, config, GetName());
}

PathChoice
ChoiceOf(const SchedJob& job, const JobDecision& decision)
{
    PathChoice choice;
    choice.reserve(job.flows.size());
    for (const SchedFlow& flow : job.flows)
    {
        choice.push_back(decision.flowPath.at(flow.id));
    }
    return choice;
}

void
UpdateIntensities(const ClusterModel& model, Decision& decision)
{
    for (const SchedJob& job : model.jobs)
    {
        JobDecision& jd = decision.jobs.at(job.id);
        jd.commTime = JobCommTime(model, job, ChoiceOf(job, jd));
        jd.intensity = GpuIntensity(job.flopsPerIteration, jd.commTime);
    }
}

void
AssignLevelsByRank(Decision& decision)
{
    for (auto& [id, jd] : decision.jobs)
    {
        jd.level = TopRankLevel(jd.rank, decision.numLevels);
    }
    decision.uniquePriorities = true;
}

uint32_t
TopRankLevel(uint32_t rank, uint32_t numLevels)
{
    return rank < numLevels ? numLevels - 1 - rank : 0;
}

void
CompressRanksToLevels(Decision& decision, RankLevelRule rule, const std::string& caller)
{
    const uint32_t k = decision.numLevels;
    if (k == 0)
    {
        throw std::invalid_argument(caller + ": Decision.numLevels must be >= 1");
    }
    const uint32_t n = static_cast<uint32_t>(decision.jobs.size());
    for (auto& [id, jd] : decision.jobs)
    {
        jd.level = rule == RankLevelRule::TOP_RANKS ? TopRankLevel(jd.rank, k)
                                                    : EqualGroupLevel(jd.rank, n, k);
    }
    decision.uniquePriorities = false;
}

uint32_t
EqualGroupLevel(uint32_t position, uint32_t count, uint32_t numLevels)
{
    if (numLevels == 0)
    {
        throw std::invalid_argument("EqualGroupLevel: numLevels must be >= 1 (got 0)");
    }
    if (position >= count)
    {
        throw std::invalid_argument("EqualGroupLevel: position " + std::to_string(position) +
                                    " out of range (count " + std::to_string(count) + ")");
    }
    const uint64_t groups = std::min(numLevels, count);
    const uint64_t group = static_cast<uint64_t>(position) * groups / count;
    return numLevels - 1 - static_cast<uint32_t>(group);
}

} // namespace ns3
