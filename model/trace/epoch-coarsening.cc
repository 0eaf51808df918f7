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

#include "epoch-rate-model.h"

#include "ns3/log.h"
#include "ns3/union-find.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

// The time-scale split and the coarsening of ExactEpochRateModel (CoarseEpochRateModel): which jobs
// a component's evaluation takes apart and by how much it dilates the fast ones; the component
// evaluation, its cache and its threads are in epoch-rate-model.cc.

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EpochCoarsening");

namespace
{

/// Dilatable jobs on a common link whose stand-alone iterations are within this factor of each
/// other share one dilation factor (ExactEpochRateModel::Coarsen): 2, the width of the window
/// (T/(2K), T/K] a dilated period falls into, since the power of two of each job alone maps any
/// ratio into (1/2, 2) and so can reverse two jobs within a factor 2 (doc/crux.rst, "Groups and
/// separation").
constexpr double DILATION_GROUP_RATIO = 2.0;

/// A dilated job's period stays at most 1/DILATION_SEPARATION of every slower job's on its links
/// outside its group (ExactEpochRateModel::Coarsen), so that dilation never brings a fast job to
/// a slower neighbour's time scale, where it could lock into its gaps. 2: an assumption, chosen
/// by measurement (4 was as accurate per evaluation for 1.6 times the fluid events; doc/crux.rst,
/// "Groups and separation").
constexpr double DILATION_SEPARATION = 2.0;

/**
 * The jobs on each link of a sub-model, on path 0 of their flows.
 * \param sub the sub-model \return per link of sub.links, the positions in sub.jobs of the jobs
 * with a flow across it, each once, in increasing order
 */
std::vector<std::vector<uint32_t>>
JobsPerLink(const ClusterModel& sub)
{
    std::vector<std::vector<uint32_t>> on(sub.links.size());
    for (uint32_t k = 0; k < sub.jobs.size(); ++k)
    {
        for (const SchedFlow& f : sub.jobs[k].flows)
        {
            for (uint32_t l : f.candidatePaths.at(0))
            {
                if (on[l].empty() || on[l].back() != k)
                {
                    on[l].push_back(k);
                }
            }
        }
    }
    return on;
}

} // namespace

bool
ExactEpochRateModel::SplitByTimescale(const ClusterModel& sub,
                                      const EvaluationInput& in,
                                      const std::vector<double>& alone,
                                      std::vector<uint32_t>& fast,
                                      std::vector<uint32_t>& slow) const
{
    fast.clear();
    slow.clear();
    const uint32_t n = static_cast<uint32_t>(sub.jobs.size());
    if (m_timescaleRatio <= 0 || n < 2 ||
        std::all_of(in.priority.begin(), in.priority.end(), [&in](int64_t p) {
            return p == in.priority.front();
        }))
    {
        return false;
    }
    // Jobs with traffic by stand-alone iteration time (ties by position: deterministic).
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < n; ++k)
    {
        if (!sub.jobs[k].flows.empty())
        {
            order.push_back(k);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&alone](uint32_t a, uint32_t b) {
        return alone[a] < alone[b];
    });
    // The slowest boundary first: the fewest slow jobs, the fast part split again in its turn.
    // A fast job joins the slow part when a job of the slow part at its class or above shares a
    // link with it (it would move the fast job's rate), until none does.
    std::vector<uint8_t> inSlow(n, 0);
    const std::vector<std::vector<uint32_t>> on = JobsPerLink(sub);
    for (size_t i = order.size(); i-- > 1;)
    {
        if (!(alone[order[i]] >= m_timescaleRatio * alone[order[i - 1]]) ||
            !(alone[order[i - 1]] > 0))
        {
            continue;
        }
        std::fill(inSlow.begin(), inSlow.end(), 0);
        for (size_t j = i; j < order.size(); ++j)
        {
            inSlow[order[j]] = 1;
        }
        for (bool moved = true; moved;)
        {
            moved = false;
            for (const auto& jobs : on)
            {
                int64_t top = INT64_MIN; // the highest class of the slow part on the link
                for (uint32_t k : jobs)
                {
                    if (inSlow[k])
                    {
                        top = std::max(top, in.priority[k]);
                    }
                }
                for (uint32_t k : jobs)
                {
                    if (!inSlow[k] && in.priority[k] <= top)
                    {
                        inSlow[k] = 1;
                        moved = true;
                    }
                }
            }
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            (inSlow[k] ? slow : fast).push_back(k);
        }
        if (fast.empty() || std::none_of(fast.begin(), fast.end(), [&sub](uint32_t k) {
                return !sub.jobs[k].flows.empty();
            }))
        {
            fast.clear();
            slow.clear();
            continue;
        }
        NS_LOG_LOGIC(fast.size() << " fast jobs above " << slow.size()
                                 << " slow ones: evaluated apart");
        return true;
    }
    return false;
}

std::vector<double>
ExactEpochRateModel::Coarsen(const ClusterModel& sub,
                             const EvaluationInput& in,
                             const std::vector<double>& alone,
                             double longestCap) const
{
    std::vector<double> factor(sub.jobs.size(), 1.0);
    if (m_timescaleRatio <= 0 || sub.jobs.size() < 2)
    {
        return factor;
    }
    double longest = *std::max_element(alone.begin(), alone.end());
    if (longestCap > 0)
    {
        longest = std::min(longest, longestCap);
    }
    // Only a component of one class is coarsened. Under strict priority a dilated job's longer
    // bursts (or waits) meet the other classes' transfers in whole stretches where the exact run
    // interleaves them finely, and a lower class lives on the residual capacity whose fine time
    // structure the dilation changes even when the dilated job itself shares its links with its
    // own class only (measured: per-job JCT up to 2x on the Clos with 25 Gbit/s uplinks under
    // crux-pa and varys; a low-class job at 0.64x its exact rate in crux-coarse-evaluator).
    for (size_t k = 1; k < sub.jobs.size(); ++k)
    {
        if (in.priority.at(k) != in.priority.at(0))
        {
            return factor;
        }
    }
    const double target = longest / m_timescaleRatio; // T / K
    if (!std::isfinite(target))
    {
        return factor; // no finite longest iteration: the doubling below would not end
    }
    const uint32_t n = static_cast<uint32_t>(sub.jobs.size());
    // A job is dilated if its iteration is positive and at most T / (2K); the others are
    // simulated as they are.
    auto dilatable = [&alone, target](uint32_t k) {
        return alone[k] > 0 && 2 * alone[k] <= target;
    };
    const std::vector<std::vector<uint32_t>> on = JobsPerLink(sub);
    // Groups: dilatable jobs on a common link within DILATION_GROUP_RATIO of each other, joined
    // transitively, share one factor, so their periods keep their exact ratios.
    UnionFind group(n);
    for (const auto& jobs : on)
    {
        for (size_t a = 0; a < jobs.size(); ++a)
        {
            for (size_t b = a + 1; b < jobs.size(); ++b)
            {
                const uint32_t j = jobs[a];
                const uint32_t k = jobs[b];
                if (dilatable(j) && dilatable(k) &&
                    std::max(alone[j], alone[k]) <
                        DILATION_GROUP_RATIO * std::min(alone[j], alone[k]))
                {
                    group.Join(j, k);
                }
            }
        }
    }
    std::vector<double> groupLongest(n, 0.0); // per group root: its slowest member's iteration
    std::vector<std::vector<uint32_t>> members(n);
    for (uint32_t k = 0; k < n; ++k)
    {
        if (dilatable(k))
        {
            const uint32_t r = group.Find(k);
            groupLongest[r] = std::max(groupLongest[r], alone[k]);
            members[r].push_back(k);
        }
    }
    std::vector<uint32_t> roots;
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!members[r].empty())
        {
            roots.push_back(r);
        }
    }
    // Slowest group first, so that a group's slower neighbours have their dilated periods.
    std::stable_sort(roots.begin(), roots.end(), [&groupLongest](uint32_t a, uint32_t b) {
        return groupLongest[a] > groupLongest[b];
    });
    std::vector<double> period(alone.begin(), alone.end()); // dilated where decided
    std::vector<double> groupFactor(n, 1.0);
    for (uint32_t r : roots)
    {
        // The largest power of two m with m x (the group's slowest) <= T / K, and m x t_k <=
        // P_j / DILATION_SEPARATION for every member k and every slower job j on one of its
        // links outside the group (P_j: j's period, dilated if decided, else its iteration).
        double mMax = target / groupLongest[r];
        for (uint32_t k : members[r])
        {
            for (const SchedFlow& f : sub.jobs[k].flows)
            {
                for (uint32_t l : f.candidatePaths.at(0))
                {
                    for (uint32_t j : on[l])
                    {
                        if (alone[j] > alone[k] && group.Find(j) != r)
                        {
                            mMax = std::min(mMax, period[j] / (DILATION_SEPARATION * alone[k]));
                        }
                    }
                }
            }
        }
        double m = 1;
        while (2 * m <= mMax)
        {
            m *= 2;
        }
        groupFactor[r] = m;
        for (uint32_t k : members[r])
        {
            period[k] = m * alone[k];
        }
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        const double m = dilatable(k) ? groupFactor[group.Find(k)] : 1.0;
        if (m >= 2) // else not dilatable, or held by a slower neighbour: simulated as it is
        {
            factor[k] = m;
            NS_LOG_LOGIC("job " << sub.jobs[k].id << ": iteration " << alone[k] << " s, longest "
                                << longest << " s, group's slowest " << groupLongest[group.Find(k)]
                                << " s: dilated by " << m);
        }
    }
    return factor;
}

std::vector<std::vector<uint32_t>>
ExactEpochRateModel::WeakCut(const ClusterModel& sub,
                             const std::vector<double>& alone,
                             const std::vector<int64_t>& prio,
                             double bound,
                             WeakLinkRule rule)
{
    const uint32_t n = static_cast<uint32_t>(sub.jobs.size());

    // Each job's mean load on each link, as a fraction of its capacity: bytes per iteration x 8
    // over its stand-alone iteration (its iteration with others is longer, so this bounds it).
    struct OnLink
    {
        uint32_t job;   //!< position in sub.jobs
        double load;    //!< mean load, fraction of the capacity
        uint32_t flows; //!< its flows across the link
    };

    std::vector<std::vector<OnLink>> on(sub.links.size());
    std::vector<uint32_t> path;
    for (uint32_t k = 0; k < n; ++k)
    {
        for (const SchedFlow& f : sub.jobs[k].flows)
        {
            path = f.candidatePaths.at(0);
            std::sort(path.begin(), path.end());
            path.erase(std::unique(path.begin(), path.end()), path.end());
            for (uint32_t l : path)
            {
                const double load =
                    alone[k] > 0 ? f.bytesPerIteration * 8 / alone[k] / sub.links[l].bandwidth
                                 : INFINITY;
                if (!on[l].empty() && on[l].back().job == k)
                {
                    on[l].back().load += load;
                    ++on[l].back().flows;
                }
                else
                {
                    on[l].push_back({k, load, 1});
                }
            }
        }
    }
    UnionFind piece(n);

    // Per link, each class's summed mean load and flows, classes from the highest down, and
    // the loads of the classes above each: linear in the jobs on the link after a sort.
    struct ClassSum
    {
        int64_t prio;   //!< the class
        double load;    //!< Σ its jobs' mean loads on the link
        uint32_t flows; //!< Σ its jobs' flows across the link
        double above;   //!< Σ the mean loads of the classes above it
    };

    std::vector<ClassSum> classes;
    for (const auto& jobs : on)
    {
        if (jobs.size() < 2)
        {
            continue;
        }
        classes.clear();
        for (const OnLink& o : jobs)
        {
            classes.push_back({prio[o.job], 0.0, 0, 0.0});
        }
        std::sort(classes.begin(), classes.end(), [](const ClassSum& a, const ClassSum& b) {
            return a.prio > b.prio;
        });
        classes.erase(
            std::unique(classes.begin(),
                        classes.end(),
                        [](const ClassSum& a, const ClassSum& b) { return a.prio == b.prio; }),
            classes.end());
        auto classOf = [&classes](int64_t p) {
            return std::lower_bound(classes.begin(),
                                    classes.end(),
                                    p,
                                    [](const ClassSum& c, int64_t q) { return c.prio > q; });
        };
        for (const OnLink& o : jobs) // in the link's job order, as each sum always was
        {
            auto c = classOf(prio[o.job]);
            c->load += o.load;
            c->flows += o.flows;
        }
        for (std::size_t c = 1; c < classes.size(); ++c)
        {
            classes[c].above = classes[c - 1].above + classes[c - 1].load;
        }
        bool weak = true;
        for (const OnLink& o : jobs)
        {
            // Strict priority: a job of a lower class takes nothing from j; one of a higher
            // class sends at most its mean load's bits meanwhile, all of which can delay j.
            const ClassSum& c = *classOf(prio[o.job]);
            const double total = c.load; // j's class
            const double above = c.above;
            const uint32_t flows = c.flows;
            weak = weak && std::isfinite(total) && std::isfinite(above);
            // Max-min fairness per flow within the class: one transfer of the job gets at least
            // 1 / (the others' flows + 1) of what the class has, so its transfers there take at
            // most (others' flows + 1) times as long as alone.
            double lengthening = std::min(total - o.load, (flows - o.flows) * o.load);
            if (rule == WeakLinkRule::OVERLAP)
            {
                // the expected lengthening: the others are on the link a fraction (their loads)
                // of the time; meanwhile j's flows get o.flows / flows of it
                lengthening =
                    std::min(lengthening, o.load * (total - o.load) * (flows - o.flows) / o.flows);
            }
            weak = weak && above + lengthening <= bound;
        }
        if (!weak)
        {
            for (const OnLink& o : jobs)
            {
                piece.Join(jobs.front().job, o.job);
            }
        }
    }
    std::vector<std::vector<uint32_t>> pieces;
    std::vector<int64_t> index(n, -1); // piece of each root, in the order of first members
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t r = piece.Find(k);
        if (index[r] < 0)
        {
            index[r] = static_cast<int64_t>(pieces.size());
            pieces.emplace_back();
        }
        pieces[index[r]].push_back(k);
    }
    return pieces;
}

void
ExactEpochRateModel::Dilate(ClusterModel& sub,
                            EvaluationInput& in,
                            const std::vector<double>& factor)
{
    for (uint32_t k = 0; k < sub.jobs.size(); ++k)
    {
        const double m = factor.at(k);
        if (m == 1)
        {
            continue;
        }
        SchedJob& sj = sub.jobs[k];
        sj.flopsPerIteration *= m;
        sj.computeTime *= m;
        sj.span *= m;
        for (SchedFlow& f : sj.flows)
        {
            f.bytesPerIteration *= m;
        }
        for (SchedPhase& ph : sj.phases)
        {
            ph.release *= m;
            for (SchedPhaseDep& d : ph.deps)
            {
                d.lag *= m;
            }
            for (double& b : ph.bytes)
            {
                b *= m;
            }
        }
        for (SchedPhaseDep& d : sj.endDeps)
        {
            d.lag *= m;
        }
        if (k < in.timeShift.size())
        {
            in.timeShift[k] *= m;
        }
    }
}

} // namespace ns3
