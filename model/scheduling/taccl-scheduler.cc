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

#include "taccl-scheduler.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTacclScheduler");

uint32_t
TacclDistance(const SchedJob& job, const PathChoice& choice)
{
    JobLinkBytes(job, choice); // validates the choice
    uint32_t d = 0;
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        const SchedFlow& flow = job.flows[f];
        if (flow.bytesPerIteration > 0)
        {
            d = std::max(d, static_cast<uint32_t>(flow.candidatePaths[choice[f]].size()));
        }
    }
    return d;
}

double
TacclTravelCost(const ClusterModel& model, const SchedJob& job, const PathChoice& choice)
{
    JobLinkBytes(job, choice); // validates the choice
    double cost = 0;
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        const SchedFlow& flow = job.flows[f];
        if (flow.bytesPerIteration > 0)
        {
            double c = 0;
            for (uint32_t e : flow.candidatePaths[choice[f]])
            {
                c += 1.0 / model.links.at(e).bandwidth;
            }
            cost = std::max(cost, c);
        }
    }
    return cost;
}

void
TacclAssignPriorities(const ClusterModel& model, Decision& decision)
{
    if (decision.numLevels == 0)
    {
        throw std::invalid_argument("TacclAssignPriorities: Decision.numLevels must be >= 1");
    }

    struct Key
    {
        uint32_t distance;
        double travel;
        uint32_t id;
    };

    std::vector<Key> keys;
    keys.reserve(model.jobs.size());
    for (const SchedJob& job : model.jobs)
    {
        const PathChoice choice = ChoiceOf(job, decision.jobs.at(job.id));
        keys.push_back({TacclDistance(job, choice), TacclTravelCost(model, job, choice), job.id});
    }
    // [T4] distance descending, travel cost descending, id ascending.
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        if (a.distance != b.distance)
        {
            return a.distance > b.distance;
        }
        if (a.travel != b.travel)
        {
            return a.travel > b.travel;
        }
        return a.id < b.id;
    });
    // [T5] distance classes, longest first.
    std::vector<uint32_t> classes;
    for (const Key& k : keys)
    {
        if (classes.empty() || classes.back() != k.distance)
        {
            classes.push_back(k.distance);
        }
    }
    const uint32_t numClasses = static_cast<uint32_t>(classes.size());
    uint32_t cls = 0;
    for (uint32_t r = 0; r < keys.size(); ++r)
    {
        while (classes[cls] != keys[r].distance)
        {
            ++cls;
        }
        JobDecision& jd = decision.jobs.at(keys[r].id);
        jd.rank = r;
        jd.level = EqualGroupLevel(cls, numClasses, decision.numLevels);
        NS_LOG_DEBUG("job " << keys[r].id << ": distance " << keys[r].distance << " hops, rank "
                            << r << ", level " << jd.level);
    }
    decision.uniquePriorities = false;
}

NS_OBJECT_ENSURE_REGISTERED(TacclScheduler);

TypeId
TacclScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TacclScheduler")
                            .SetParent<CommScheduler>()
                            .SetGroupName("Crux")
                            .AddConstructor<TacclScheduler>();
    return tid;
}

TacclScheduler::TacclScheduler()
    : m_pathSelection(CreateObjectWithAttributes<CruxLeastCongestedPaths>(
          "JobOrder",
          EnumValue(CruxLeastCongestedPaths::ARRIVAL)))
{
    SetName("taccl");
}

Ptr<CruxPathSelection>
TacclScheduler::GetPathSelection() const
{
    return m_pathSelection;
}

Decision
TacclScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    Decision d = DefaultDecision(model, config);
    m_pathSelection->SelectPaths(model, config, d);
    TacclAssignPriorities(model, d);
    return d;
}

} // namespace ns3
