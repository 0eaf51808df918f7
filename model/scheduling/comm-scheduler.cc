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

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// One entry of the factory table: name and constructor.
using SchedulerEntry = std::pair<std::string, std::function<std::unique_ptr<CommScheduler>()>>;

/// The factory table (explicit, so that a static library never drops a registration).
const std::vector<SchedulerEntry>&
Registry()
{
    static const std::vector<SchedulerEntry> registry = {
        {"ecmp", [] { return std::make_unique<EcmpScheduler>(); }},
        {"crux", [] { return std::make_unique<CruxScheduler>("crux"); }},
        {"crux-full", [] { return std::make_unique<CruxScheduler>("crux-full"); }},
        {"crux-pa", [] { return std::make_unique<CruxPaScheduler>(); }},
        {"crux-ps-pa", [] { return std::make_unique<CruxPsPaScheduler>(); }},
        {"sincronia", [] { return std::make_unique<SincroniaScheduler>(); }},
        {"varys", [] { return std::make_unique<VarysScheduler>(); }},
        {"taccl", [] { return std::make_unique<TacclScheduler>(); }},
        {"cassini", [] { return std::make_unique<CassiniScheduler>(); }},
        {"optimal", [] { return std::make_unique<OptimalScheduler>(); }},
    };
    return registry;
}

} // namespace

std::vector<std::string>
KnownCommSchedulers()
{
    std::vector<std::string> names;
    for (const auto& entry : Registry())
    {
        names.push_back(entry.first);
    }
    return names;
}

std::unique_ptr<CommScheduler>
CreateCommScheduler(const std::string& name)
{
    for (const auto& entry : Registry())
    {
        if (entry.first == name)
        {
            return entry.second();
        }
    }
    std::string known;
    for (const auto& entry : Registry())
    {
        known += (known.empty() ? "" : ", ") + entry.first;
    }
    throw std::invalid_argument("unknown scheduler '" + name + "' (known: " + known + ")");
}

Decision
MakeDefaultDecision(const ClusterModel& model,
                    const SchedulerConfig& config,
                    const std::string& scheduler)
{
    Validate(model, config);
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
