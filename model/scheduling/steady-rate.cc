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

#include "steady-rate.h"

#include "ns3/union-find.h"

#include <algorithm>
#include <cstddef>
#include <tuple>

namespace ns3
{

namespace
{

/// No job (no component root yet, no reference).
constexpr uint32_t NONE = UINT32_MAX;

/**
 * \param r a job's record, with a whole iteration interval after the warm-up
 * \param mean its mean iteration interval in its own window (t_a, t_b], s
 * \param t time, s
 * \param stop the time the simulation stopped, s
 * \return the job's iterations completed by t, interpolated linearly between its completions
 *         (0 until the first iteration's start, k at the k-th completion); past its last
 *         completion, interpolated towards one more at the later of the stop and one mean
 *         interval (t_a, t_b] after it (the next completion is not known: it comes after the
 *         stop, and is expected a mean interval on)
 */
double
CountAt(const CompletionRecord& r, double mean, double t, double stop)
{
    const std::vector<double>& d = r.doneAt;
    const auto next = std::upper_bound(d.begin(), d.end(), t);
    if (next == d.begin())
    {
        return 0; // before the job's first iteration
    }
    const auto k = static_cast<std::size_t>(next - d.begin()) - 1; // d[k] <= t
    const double nextTime = next != d.end() ? *next : std::max(stop, d[k] + mean);
    const double frac = nextTime > d[k] ? (t - d[k]) / (nextTime - d[k]) : 0.0;
    return static_cast<double>(k) + std::min(1.0, frac);
}

} // namespace

std::vector<uint32_t>
LinkComponents(std::size_t numJobs,
               std::size_t numLinks,
               const std::vector<uint32_t>& jobOf,
               const std::vector<std::vector<uint32_t>>& paths)
{
    UnionFind sets(static_cast<uint32_t>(numJobs));
    std::vector<uint32_t> jobOnLink(numLinks, NONE);
    for (std::size_t f = 0; f < paths.size(); ++f)
    {
        for (uint32_t l : paths[f])
        {
            if (jobOnLink[l] == NONE)
            {
                jobOnLink[l] = jobOf[f];
            }
            else
            {
                sets.Join(jobOnLink[l], jobOf[f]);
            }
        }
    }
    std::vector<uint32_t> component(numJobs);
    for (uint32_t j = 0; j < numJobs; ++j)
    {
        component[j] = sets.Find(j);
    }
    return component;
}

std::vector<double>
SteadyIterationRates(const std::vector<CompletionRecord>& jobs, double alignRatio, double stop)
{
    const std::size_t n = jobs.size();
    std::vector<double> interval(n, 0.0); // mean interval in its own window; 0 = none
    for (std::size_t j = 0; j < n; ++j)
    {
        const CompletionRecord& r = jobs[j];
        if (r.warmCount > 0 && r.lastWarm > r.firstWarm)
        {
            interval[j] = (r.lastWarm - r.firstWarm) / static_cast<double>(r.warmCount);
        }
    }
    // Each job's reference: the slowest job with an interval of a strictly higher class in its
    // component, found by walking the jobs sorted by (component, class, index).
    std::vector<uint32_t> order(n);
    for (uint32_t j = 0; j < n; ++j)
    {
        order[j] = j;
    }
    std::sort(order.begin(), order.end(), [&jobs](uint32_t a, uint32_t b) {
        return std::tie(jobs[a].component, jobs[a].cls, a) <
               std::tie(jobs[b].component, jobs[b].cls, b);
    });
    std::vector<uint32_t> refOf(n, NONE);
    for (std::size_t i = 0; i < n;)
    {
        const uint32_t component = jobs[order[i]].component;
        uint32_t best = NONE; // slowest of the classes above the current one
        while (i < n && jobs[order[i]].component == component)
        {
            const uint32_t cls = jobs[order[i]].cls;
            std::size_t g = i;
            for (; g < n && jobs[order[g]].component == component && jobs[order[g]].cls == cls; ++g)
            {
                refOf[order[g]] = best;
            }
            for (; i < g; ++i)
            {
                const uint32_t j = order[i];
                if (interval[j] > 0 && (best == NONE || interval[j] > interval[best]))
                {
                    best = j;
                }
            }
        }
    }
    std::vector<double> rates(n, -1.0);
    for (std::size_t j = 0; j < n; ++j)
    {
        if (!(interval[j] > 0))
        {
            continue;
        }
        const CompletionRecord& r = jobs[j];
        const uint32_t ref = refOf[j];
        if (ref != NONE && interval[ref] >= alignRatio * interval[j])
        {
            // the progress curve over the reference job's window
            const CompletionRecord& w = jobs[ref];
            rates[j] = (CountAt(r, interval[j], w.lastWarm, stop) -
                        CountAt(r, interval[j], w.firstWarm, stop)) /
                       (w.lastWarm - w.firstWarm);
        }
        else
        {
            rates[j] = static_cast<double>(r.warmCount) / (r.lastWarm - r.firstWarm);
        }
    }
    return rates;
}

} // namespace ns3
