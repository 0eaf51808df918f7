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

#include "sincronia-scheduler.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxSincroniaScheduler");

namespace
{

/// Relative tolerance under which two loads or two ratios are considered equal ([S3]).
constexpr double TIE_TOLERANCE = 1e-12;
/// Scaled weights below this fraction of the largest initial weight are set to 0 ([S2]).
constexpr double ZERO_WEIGHT_FRACTION = 1e-12;

/// \return true if a is smaller than b beyond the relative tie tolerance
bool
Less(double a, double b)
{
    return a < b - TIE_TOLERANCE * std::max(std::abs(a), std::abs(b));
}

/// \return the load of link \p link in \p load (0 if absent)
double
LoadOn(const std::map<uint32_t, double>& load, uint32_t link)
{
    auto it = load.find(link);
    return it == load.end() ? 0.0 : it->second;
}

/// \return the model's jobs sorted by ascending id
std::vector<const SchedJob*>
JobsById(const ClusterModel& model)
{
    std::vector<const SchedJob*> jobs;
    jobs.reserve(model.jobs.size());
    for (const SchedJob& job : model.jobs)
    {
        jobs.push_back(&job);
    }
    std::sort(jobs.begin(), jobs.end(), [](const SchedJob* a, const SchedJob* b) {
        return a->id < b->id;
    });
    return jobs;
}

} // namespace

std::vector<uint32_t>
SincroniaBssiOrder(const std::vector<uint32_t>& ids,
                   const std::vector<std::map<uint32_t, double>>& loads,
                   const std::vector<double>& weights)
{
    const std::size_t n = ids.size();
    if (loads.size() != n)
    {
        throw std::invalid_argument("SincroniaBssiOrder: " + std::to_string(n) + " ids but " +
                                    std::to_string(loads.size()) + " load maps");
    }
    if (!weights.empty() && weights.size() != n)
    {
        throw std::invalid_argument("SincroniaBssiOrder: " + std::to_string(n) + " ids but " +
                                    std::to_string(weights.size()) + " weights");
    }
    std::set<uint32_t> seen;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (!seen.insert(ids[i]).second)
        {
            throw std::invalid_argument("SincroniaBssiOrder: duplicate job id " +
                                        std::to_string(ids[i]));
        }
        for (const auto& [link, d] : loads[i])
        {
            if (!(std::isfinite(d) && d >= 0))
            {
                throw std::invalid_argument("SincroniaBssiOrder: job " + std::to_string(ids[i]) +
                                            " has an invalid load on link " + std::to_string(link) +
                                            " (must be finite, >= 0)");
            }
        }
        if (!weights.empty() && !(std::isfinite(weights[i]) && weights[i] > 0))
        {
            throw std::invalid_argument("SincroniaBssiOrder: job " + std::to_string(ids[i]) +
                                        " has an invalid weight (must be finite, > 0)");
        }
    }

    std::vector<double> w = weights.empty() ? std::vector<double>(n, 1.0) : weights;
    const double zeroWeight =
        ZERO_WEIGHT_FRACTION * (n == 0 ? 1.0 : *std::max_element(w.begin(), w.end()));
    std::vector<bool> unordered(n, true);
    std::vector<uint32_t> order(n);
    std::size_t left = n;
    while (left > 0)
    {
        // Bottleneck: the most loaded link over the unordered jobs; ties -> lowest link id.
        std::map<uint32_t, double> total;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (unordered[i])
            {
                for (const auto& [link, d] : loads[i])
                {
                    total[link] += d;
                }
            }
        }
        bool found = false;
        uint32_t bottleneck = 0;
        double bottleneckLoad = 0;
        for (const auto& [link, sum] : total)
        {
            if (sum > 0 && (!found || Less(bottleneckLoad, sum)))
            {
                found = true;
                bottleneck = link;
                bottleneckLoad = sum;
            }
        }
        if (!found)
        {
            // [S4] only jobs without load remain: they go first, in ascending id.
            std::vector<uint32_t> rest;
            for (std::size_t i = 0; i < n; ++i)
            {
                if (unordered[i])
                {
                    rest.push_back(ids[i]);
                }
            }
            std::sort(rest.begin(), rest.end());
            std::copy(rest.begin(), rest.end(), order.begin());
            break;
        }

        // Select the job that goes last: smallest w / d at the bottleneck; ties -> larger id.
        std::size_t s = n;
        double bestRatio = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            const double d = unordered[i] ? LoadOn(loads[i], bottleneck) : 0.0;
            if (d <= 0)
            {
                continue;
            }
            const double ratio = w[i] / d;
            if (s == n || Less(ratio, bestRatio) || (!Less(bestRatio, ratio) && ids[i] > ids[s]))
            {
                s = i;
                bestRatio = ratio;
            }
        }
        order[--left] = ids[s];
        unordered[s] = false;
        NS_LOG_DEBUG("BSSI: job " << ids[s] << " at position " << left << ", bottleneck link "
                                  << bottleneck << " (load " << bottleneckLoad << ")");

        // Scale: the other jobs pay for s's use of the bottleneck.
        const double ds = LoadOn(loads[s], bottleneck);
        for (std::size_t i = 0; i < n; ++i)
        {
            const double d = unordered[i] ? LoadOn(loads[i], bottleneck) : 0.0;
            if (d > 0)
            {
                w[i] -= w[s] * d / ds;
                if (w[i] < zeroWeight)
                {
                    w[i] = 0;
                }
            }
        }
    }
    return order;
}

std::map<uint32_t, double>
JobLinkTimes(const ClusterModel& model, const SchedJob& job, const PathChoice& choice)
{
    std::map<uint32_t, double> times;
    for (const auto& [link, bytes] : JobLinkBytes(job, choice))
    {
        if (bytes > 0)
        {
            times[link] = bytes * 8.0 / model.links.at(link).bandwidth;
        }
    }
    return times;
}

void
SincroniaAssignPriorities(const ClusterModel& model, Decision& decision)
{
    std::vector<uint32_t> ids;
    std::vector<std::map<uint32_t, double>> loads;
    for (const SchedJob* job : JobsById(model))
    {
        ids.push_back(job->id);
        loads.push_back(JobLinkTimes(model, *job, ChoiceOf(*job, decision.jobs.at(job->id))));
    }
    const std::vector<uint32_t> order = SincroniaBssiOrder(ids, loads);
    for (uint32_t r = 0; r < order.size(); ++r)
    {
        decision.jobs.at(order[r]).rank = r;
    }
}

void
SincroniaCompressPriorities(Decision& decision)
{
    // [S5] level K-1-rank for rank < K-1, else 0: numerically TopRankLevel.
    CompressRanksToLevels(decision, RankLevelRule::TOP_RANKS, "SincroniaCompressPriorities");
}

NS_OBJECT_ENSURE_REGISTERED(SincroniaScheduler);

TypeId
SincroniaScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SincroniaScheduler")
                            .SetParent<CommScheduler>()
                            .SetGroupName("Crux")
                            .AddConstructor<SincroniaScheduler>();
    return tid;
}

SincroniaScheduler::SincroniaScheduler()
{
    SetName("sincronia");
}

Decision
SincroniaScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    Decision d = DefaultDecision(model, config);
    SincroniaAssignPriorities(model, d);
    SincroniaCompressPriorities(d);
    return d;
}

} // namespace ns3
