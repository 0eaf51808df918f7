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

#include "shared-link-timeline.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

namespace
{

/// Progress of one job's current iteration.
struct JobState
{
    double iterStart{0};     //!< start time of the current iteration, s
    bool computeDone{false}; //!< computation of the current iteration finished
    bool commReady{false};   //!< communication of the current iteration may be sent
    bool commDone{false};    //!< communication of the current iteration fully sent
    double remaining{0};     //!< link seconds still to send in the current iteration
};

/// Upper bound on simulation steps (guards against pathological horizons).
constexpr uint64_t MAX_STEPS = 100000000ULL;

/// The phased form (at least one job has phases; see TimelineJob). Inputs already checked.
TimelineResult
SimulatePhases(const std::array<TimelineJob, 2>& jobs, uint32_t highPriority, double horizon)
{
    struct Phase
    {
        double release{0};
        std::vector<SchedPhaseDep> deps;
        double linkTime{0};
    };

    struct State
    {
        std::vector<Phase> phases;
        std::vector<std::vector<SchedPhaseDep>> dependants;
        std::vector<double> endLag;
        double compute{0};
        // current iteration
        double iterStart{0};
        std::vector<uint32_t> depsLeft;
        std::vector<double> startAt;
        std::vector<double> remaining;
        // dependencies done, not yet released: min-heap of (startAt, phase) (a phase's startAt
        // no longer changes once it is armed)
        std::vector<std::pair<double, uint32_t>> armed;
        // released, data left to send: min-heap of phase indices (the link serves the lowest)
        std::vector<uint32_t> ready;
        uint32_t left{0};
        double endAt{0};
    };

    std::array<State, 2> st;
    for (uint32_t x = 0; x < 2; ++x)
    {
        const TimelineJob& j = jobs[x];
        State& s = st[x];
        if (j.phases.empty())
        {
            s.phases.push_back(Phase{j.overlapStart * j.computeTime, {}, j.commTime});
            s.endLag.assign(1, 0.0);
            s.compute = j.computeTime;
        }
        else
        {
            for (const TimelinePhase& p : j.phases)
            {
                s.phases.push_back(Phase{p.release, p.deps, p.linkTime});
            }
            s.endLag.assign(s.phases.size(), -1.0);
            for (const SchedPhaseDep& d : j.endDeps)
            {
                s.endLag.at(d.phase) = std::max(s.endLag.at(d.phase), d.lag);
            }
            s.compute = std::max(j.computeTime, j.span);
        }
        s.dependants.assign(s.phases.size(), {});
        for (uint32_t p = 0; p < s.phases.size(); ++p)
        {
            for (const SchedPhaseDep& d : s.phases[p].deps)
            {
                if (d.phase >= p)
                {
                    throw std::invalid_argument("SimulateSharedLink: a phase depends on a later "
                                                "phase");
                }
                s.dependants[d.phase].push_back(SchedPhaseDep{p, d.lag});
            }
        }
    }
    auto reset = [](State& s, double t) {
        s.iterStart = t;
        const std::size_t n = s.phases.size();
        s.depsLeft.assign(n, 0);
        s.startAt.assign(n, 0);
        s.remaining.assign(n, 0);
        s.armed.clear();
        s.ready.clear();
        for (std::size_t p = 0; p < n; ++p)
        {
            s.depsLeft[p] = static_cast<uint32_t>(s.phases[p].deps.size());
            s.startAt[p] = t + s.phases[p].release;
            s.remaining[p] = s.phases[p].linkTime;
            if (s.depsLeft[p] == 0)
            {
                s.armed.emplace_back(s.startAt[p], static_cast<uint32_t>(p));
            }
        }
        std::make_heap(s.armed.begin(), s.armed.end(), std::greater<>());
        s.left = static_cast<uint32_t>(n);
        s.endAt = t;
    };
    auto done = [](State& s, uint32_t p, double t) {
        --s.left;
        if (s.endLag[p] >= 0)
        {
            s.endAt = std::max(s.endAt, t + s.endLag[p]);
        }
        for (const SchedPhaseDep& d : s.dependants[p])
        {
            s.startAt[d.phase] = std::max(s.startAt[d.phase], t + d.lag);
            if (--s.depsLeft[d.phase] == 0)
            {
                s.armed.emplace_back(s.startAt[d.phase], d.phase);
                std::push_heap(s.armed.begin(), s.armed.end(), std::greater<>());
            }
        }
    };
    for (State& s : st)
    {
        reset(s, 0);
    }
    TimelineResult result;
    const double end = horizon * (1 + 1e-9);
    const std::array<uint32_t, 2> order = {highPriority, 1 - highPriority};
    double now = 0;
    while (true)
    {
        for (uint32_t x = 0; x < 2; ++x)
        {
            State& s = st[x];
            bool changed = true;
            while (changed)
            {
                changed = false;
                // release the armed phases that are due (in any order: no number depends on it)
                while (!s.armed.empty() && now >= s.armed.front().first)
                {
                    const uint32_t p = s.armed.front().second;
                    std::pop_heap(s.armed.begin(), s.armed.end(), std::greater<>());
                    s.armed.pop_back();
                    if (s.remaining[p] <= 0)
                    {
                        done(s, p, now);
                    }
                    else
                    {
                        s.ready.push_back(p);
                        std::push_heap(s.ready.begin(), s.ready.end(), std::greater<>());
                    }
                    changed = true;
                }
                if (s.left == 0 && now >= s.iterStart + s.compute && now >= s.endAt &&
                    s.iterStart < now)
                {
                    result.completedIterations[x]++;
                    reset(s, now);
                    changed = true;
                }
            }
        }
        if (now >= end)
        {
            break;
        }
        if (++result.events > MAX_STEPS)
        {
            throw std::runtime_error("SimulateSharedLink: more than 1e8 steps; horizon too "
                                     "long for the iteration times");
        }
        int sender = -1;
        for (uint32_t x : order)
        {
            if (!st[x].ready.empty())
            {
                sender = static_cast<int>(x);
                break;
            }
        }
        double next = end;
        for (const State& s : st)
        {
            if (s.iterStart + s.compute > now)
            {
                next = std::min(next, s.iterStart + s.compute);
            }
            if (s.left == 0 && s.endAt > now)
            {
                next = std::min(next, s.endAt);
            }
            if (!s.armed.empty())
            {
                next = std::min(next, s.armed.front().first);
            }
        }
        if (sender >= 0)
        {
            State& s = st[sender];
            const uint32_t phase = s.ready.front();
            const double finish = now + s.remaining[phase];
            next = std::min(next, finish);
            result.sendTime[sender] +=
                std::max(0.0, std::min(next, horizon) - std::min(now, horizon));
            if (next == finish)
            {
                s.remaining[phase] = 0;
                std::pop_heap(s.ready.begin(), s.ready.end(), std::greater<>());
                s.ready.pop_back();
                done(s, phase, next);
            }
            else
            {
                s.remaining[phase] -= next - now;
            }
        }
        now = next;
    }
    double gpus = 0;
    double busy = 0;
    for (uint32_t x = 0; x < 2; ++x)
    {
        const auto iterations = static_cast<double>(result.completedIterations[x]);
        result.gpuBusySeconds[x] = jobs[x].numGpus * jobs[x].computeTime * iterations;
        result.completedFlops[x] = jobs[x].flopsPerIteration * iterations;
        gpus += jobs[x].numGpus;
        busy += result.gpuBusySeconds[x];
    }
    result.utilization = gpus > 0 ? busy / (gpus * horizon) : 0;
    return result;
}

} // namespace

TimelineResult
SimulateSharedLink(const std::array<TimelineJob, 2>& jobs, uint32_t highPriority, double horizon)
{
    if (highPriority > 1)
    {
        throw std::invalid_argument("SimulateSharedLink: highPriority must be 0 or 1 (got " +
                                    std::to_string(highPriority) + ")");
    }
    if (!(std::isfinite(horizon) && horizon > 0))
    {
        throw std::invalid_argument("SimulateSharedLink: horizon must be > 0 s");
    }
    for (uint32_t x = 0; x < 2; ++x)
    {
        const TimelineJob& j = jobs[x];
        const std::string name = "SimulateSharedLink: jobs[" + std::to_string(x) + "].";
        if (!(std::isfinite(j.computeTime) && j.computeTime >= 0))
        {
            throw std::invalid_argument(name + "computeTime must be >= 0 s");
        }
        if (!(std::isfinite(j.commTime) && j.commTime >= 0))
        {
            throw std::invalid_argument(name + "commTime must be >= 0 s");
        }
        if (!(j.overlapStart >= 0 && j.overlapStart <= 1))
        {
            throw std::invalid_argument(name + "overlapStart must be in [0, 1]");
        }
        if (j.computeTime == 0 && j.commTime == 0 && j.span == 0)
        {
            throw std::invalid_argument(name +
                                        "computeTime and commTime are both 0 (empty iteration)");
        }
    }
    if (!jobs[0].phases.empty() || !jobs[1].phases.empty())
    {
        return SimulatePhases(jobs, highPriority, horizon);
    }

    TimelineResult result;
    std::array<JobState, 2> st;
    for (uint32_t x = 0; x < 2; ++x)
    {
        st[x].remaining = jobs[x].commTime;
    }
    const double end = horizon * (1 + 1e-9);
    const std::array<uint32_t, 2> order = {highPriority, 1 - highPriority};
    double now = 0;

    while (true)
    {
        // Settle every state change that is due at 'now' (possibly several iterations of a
        // job whose phases have zero length, but never an endless loop: c + t > 0).
        for (uint32_t x = 0; x < 2; ++x)
        {
            const TimelineJob& j = jobs[x];
            JobState& s = st[x];
            while (true)
            {
                if (!s.computeDone && now >= s.iterStart + j.computeTime)
                {
                    s.computeDone = true;
                }
                if (!s.commReady && now >= s.iterStart + j.overlapStart * j.computeTime)
                {
                    s.commReady = true;
                }
                if (s.commReady && !s.commDone && s.remaining <= 0)
                {
                    s.commDone = true;
                }
                if (s.computeDone && s.commDone && s.iterStart < now)
                {
                    result.completedIterations[x]++;
                    s = JobState();
                    s.iterStart = now;
                    s.remaining = j.commTime;
                    continue;
                }
                break;
            }
        }
        if (now >= end)
        {
            break;
        }
        if (++result.events > MAX_STEPS)
        {
            throw std::runtime_error("SimulateSharedLink: more than 1e8 steps; horizon too "
                                     "long for the iteration times");
        }

        // Who owns the link until the next event?
        int sender = -1;
        for (uint32_t x : order)
        {
            if (st[x].commReady && !st[x].commDone)
            {
                sender = static_cast<int>(x);
                break;
            }
        }
        double next = end;
        for (uint32_t x = 0; x < 2; ++x)
        {
            const TimelineJob& j = jobs[x];
            const JobState& s = st[x];
            if (!s.computeDone)
            {
                next = std::min(next, s.iterStart + j.computeTime);
            }
            if (!s.commReady)
            {
                next = std::min(next, s.iterStart + j.overlapStart * j.computeTime);
            }
        }
        double finish = 0;
        if (sender >= 0)
        {
            finish = now + st[sender].remaining;
            next = std::min(next, finish);
        }
        if (sender >= 0)
        {
            JobState& s = st[sender];
            result.sendTime[sender] +=
                std::max(0.0, std::min(next, horizon) - std::min(now, horizon));
            if (next == finish)
            {
                s.remaining = 0;
                s.commDone = true;
            }
            else
            {
                s.remaining -= next - now;
            }
        }
        now = next;
    }

    double gpus = 0;
    double busy = 0;
    for (uint32_t x = 0; x < 2; ++x)
    {
        const auto iterations = static_cast<double>(result.completedIterations[x]);
        result.gpuBusySeconds[x] = jobs[x].numGpus * jobs[x].computeTime * iterations;
        result.completedFlops[x] = jobs[x].flopsPerIteration * iterations;
        gpus += jobs[x].numGpus;
        busy += result.gpuBusySeconds[x];
    }
    result.utilization = gpus > 0 ? busy / (gpus * horizon) : 0;
    return result;
}

} // namespace ns3
