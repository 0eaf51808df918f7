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

#include "path-selection.h"

#include "ns3/enum.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxPathSelection");

namespace
{

/// Relative tolerance under which two congestion values are considered equal ([D1], [T2]).
constexpr double TIE_TOLERANCE = 1e-12;

/// \return true if a is smaller than b beyond the relative tie tolerance
bool
Less(double a, double b)
{
    return a < b - TIE_TOLERANCE * std::max(std::abs(a), std::abs(b));
}

/**
 * The greedy rule of CruxLeastCongestedPaths for jobs in a given order (see the class).
 * \param model the cluster
 * \param order the jobs to route, in routing order (pointers into model.jobs)
 * \param decision updated in place (flowPath of the listed jobs, commTime and intensity of all)
 */
void
SelectLeastCongestedPaths(const ClusterModel& model,
                          const std::vector<const SchedJob*>& order,
                          Decision& decision)
{
    std::vector<double> load(model.links.size(), 0.0); // L_e, bytes per iteration
    for (const SchedJob* job : order)
    {
        JobDecision& jd = decision.jobs.at(job->id);
        for (const SchedFlow& flow : job->flows)
        {
            uint32_t best = 0;
            double bestCong = 0;
            double bestSum = 0;
            for (uint32_t p = 0; p < flow.candidatePaths.size(); ++p)
            {
                double cong = 0;
                double sum = 0;
                for (uint32_t e : flow.candidatePaths[p])
                {
                    const double b = model.links[e].bandwidth;
                    cong = std::max(cong, (load[e] + flow.bytesPerIteration) * 8.0 / b);
                    sum += load[e] * 8.0 / b;
                }
                if (p == 0 || Less(cong, bestCong) || (!Less(bestCong, cong) && Less(sum, bestSum)))
                {
                    best = p;
                    bestCong = cong;
                    bestSum = sum;
                }
            }
            jd.flowPath[flow.id] = best;
            NS_LOG_DEBUG("job " << job->id << " flow " << flow.id << ": candidate " << best
                                << " of " << flow.candidatePaths.size() << ", congestion "
                                << bestCong << " s");
            for (uint32_t e : flow.candidatePaths[best])
            {
                load[e] += flow.bytesPerIteration;
            }
        }
    }
    UpdateIntensities(model, decision);
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(CruxPathSelection);

TypeId
CruxPathSelection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CruxPathSelection").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

CruxPathSelection::~CruxPathSelection() = default;

NS_OBJECT_ENSURE_REGISTERED(CruxLeastCongestedPaths);

TypeId
CruxLeastCongestedPaths::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxLeastCongestedPaths")
            .SetParent<CruxPathSelection>()
            .SetGroupName("Crux")
            .AddConstructor<CruxLeastCongestedPaths>()
            .AddAttribute("JobOrder",
                          "Order in which jobs pick their least-congested paths: GpuIntensity "
                          "(Crux §4.1: decreasing GPU intensity on the ECMP default paths, ties "
                          "by smaller job id) or Arrival (TACCL*: ascending job id, [T1] in "
                          "taccl-scheduler.h).",
                          EnumValue(CruxLeastCongestedPaths::GPU_INTENSITY),
                          MakeEnumAccessor(&CruxLeastCongestedPaths::m_jobOrder),
                          MakeEnumChecker(CruxLeastCongestedPaths::GPU_INTENSITY,
                                          "GpuIntensity",
                                          CruxLeastCongestedPaths::ARRIVAL,
                                          "Arrival"));
    return tid;
}

void
CruxLeastCongestedPaths::SelectPaths(const ClusterModel& model,
                                     const SchedulerConfig& /* config */,
                                     Decision& decision) const
{
    std::vector<const SchedJob*> jobs;
    for (const SchedJob& job : model.jobs)
    {
        jobs.push_back(&job);
    }
    if (m_jobOrder == ARRIVAL)
    {
        std::sort(jobs.begin(), jobs.end(), [](const SchedJob* a, const SchedJob* b) {
            return a->id < b->id;
        });
    }
    else
    {
        std::sort(jobs.begin(), jobs.end(), [&decision](const SchedJob* a, const SchedJob* b) {
            const double ia = decision.jobs.at(a->id).intensity;
            const double ib = decision.jobs.at(b->id).intensity;
            if (ia != ib)
            {
                return ia > ib;
            }
            return a->id < b->id;
        });
    }
    NS_LOG_DEBUG("path selection over "
                 << jobs.size() << " jobs, "
                 << (m_jobOrder == ARRIVAL ? "in arrival order" : "most GPU-intensive first"));
    SelectLeastCongestedPaths(model, jobs, decision);
}

NS_OBJECT_ENSURE_REGISTERED(CruxDefaultPaths);

TypeId
CruxDefaultPaths::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CruxDefaultPaths")
                            .SetParent<CruxPathSelection>()
                            .SetGroupName("Crux")
                            .AddConstructor<CruxDefaultPaths>();
    return tid;
}

void
CruxDefaultPaths::SelectPaths(const ClusterModel& model,
                              const SchedulerConfig& /* config */,
                              Decision& decision) const
{
    for (const SchedJob& job : model.jobs)
    {
        JobDecision& jd = decision.jobs.at(job.id);
        for (const SchedFlow& flow : job.flows)
        {
            jd.flowPath[flow.id] = flow.defaultPath;
        }
    }
    UpdateIntensities(model, decision);
}

} // namespace ns3
