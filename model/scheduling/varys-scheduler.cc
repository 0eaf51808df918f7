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

#include "varys-scheduler.h"

#include "ns3/log.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxVarysScheduler");

double
VarysEffectiveBottleneck(const ClusterModel& model, const SchedJob& job, const PathChoice& choice)
{
    return AnalyticCommTime(model, JobLinkBytes(job, choice));
}

void
VarysAssignPriorities(const ClusterModel& model, Decision& decision)
{
    std::vector<std::pair<double, uint32_t>> keyed; // (Γ_j, job id)
    keyed.reserve(model.jobs.size());
    for (const SchedJob& job : model.jobs)
    {
        keyed.emplace_back(
            VarysEffectiveBottleneck(model, job, ChoiceOf(job, decision.jobs.at(job.id))),
            job.id);
    }
    std::sort(keyed.begin(), keyed.end()); // ascending Γ, ties by ascending id ([V2])
    for (uint32_t r = 0; r < keyed.size(); ++r)
    {
        decision.jobs.at(keyed[r].second).rank = r;
        NS_LOG_DEBUG("job " << keyed[r].second << ": rank " << r << ", effective bottleneck "
                            << keyed[r].first << " s");
    }
}

void
VarysCompressPriorities(Decision& decision)
{
    CompressRanksToLevels(decision, RankLevelRule::EQUAL_GROUPS, "VarysCompressPriorities");
}

NS_OBJECT_ENSURE_REGISTERED(VarysScheduler);

TypeId
VarysScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::VarysScheduler")
                            .SetParent<CommScheduler>()
                            .SetGroupName("Crux")
                            .AddConstructor<VarysScheduler>();
    return tid;
}

VarysScheduler::VarysScheduler()
{
    SetName("varys");
}

Decision
VarysScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    Decision d = DefaultDecision(model, config);
    VarysAssignPriorities(model, d);
    VarysCompressPriorities(d);
    return d;
}

} // namespace ns3
