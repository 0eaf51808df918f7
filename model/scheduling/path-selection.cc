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

#include "ns3/log.h"

#include <algorithm>
#include <cmath>

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

} // namespace

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

} // namespace ns3
