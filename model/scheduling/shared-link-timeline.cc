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
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

namespace
{

/// Upper bound on simulation steps (guards against pathological horizons).
constexpr uint64_t MAX_STEPS = 100000000ULL;

/// Two offsets of the low-priority job's iteration start into the high-priority job's
/// iteration are the same state when they differ by at most this fraction of the high-priority
/// iteration (SharedLinkRun::SKIP_PERIODS). ASSUMPTION: rounding of the absolute times over the
/// horizons used (<= 1e5 iterations) stays far below it; a locked (periodic) run repeats its
/// offset to within it, a drifting one does not.
constexpr double PERIOD_TOLERANCE = 1e-12;

/// ... and by at most this many units in the last place of the time: rounding, not a drift.
constexpr double PERIOD_ULPS = 64;

/// One job of the shared-link simulation (SimulatePhases): its phases and the progress of its
/// current iteration.
struct PhasedJob
{
    /// One phase: released `release` seconds into the iteration once its dependencies are
    /// done, then sends `linkTime` seconds of data on the shared link.
    struct Phase
    {
        double release{0};               //!< release time in the iteration, s
        std::vector<SchedPhaseDep> deps; //!< phases it waits for (with lags)
        double linkTime{0};              //!< link seconds it sends
    };

    std::vector<Phase> phases;                          //!< the iteration's phases
    std::vector<std::vector<SchedPhaseDep>> dependants; //!< per phase: phases waiting for it
    std::vector<double> endLag; //!< per phase: lag before the iteration may end (-1: none)
    double compute{0};          //!< the iteration's compute span, s
    // current iteration
    double iterStart{0};            //!< start of the current iteration, s
    std::vector<uint32_t> depsLeft; //!< per phase: dependencies not done
    std::vector<double> startAt;    //!< per phase: earliest start
    std::vector<double> remaining;  //!< per phase: link seconds left
    /// dependencies done, not yet released: min-heap of (startAt, phase) (a phase's startAt no
    /// longer changes once it is armed)
    std::vector<std::pair<double, uint32_t>> armed;
    /// released, data left to send: min-heap of phase indices (the link serves the lowest)
    std::vector<uint32_t> ready;
    uint32_t left{0}; //!< phases not done
    double endAt{0};  //!< earliest end of the iteration by the end dependencies

    /// \param j the job (one phase released at overlapStart x computeTime if it has none)
    explicit PhasedJob(const TimelineJob& j)
    {
        if (j.phases.empty())
        {
            phases.push_back(Phase{j.overlapStart * j.computeTime, {}, j.commTime});
            endLag.assign(1, 0.0);
            compute = j.computeTime;
        }
        else
        {
            for (const TimelinePhase& p : j.phases)
            {
                phases.push_back(Phase{p.release, p.deps, p.linkTime});
            }
            endLag.assign(phases.size(), -1.0);
            for (const SchedPhaseDep& d : j.endDeps)
            {
                endLag.at(d.phase) = std::max(endLag.at(d.phase), d.lag);
            }
            compute = std::max(j.computeTime, j.span);
        }
        dependants.assign(phases.size(), {});
        for (uint32_t p = 0; p < phases.size(); ++p)
        {
            for (const SchedPhaseDep& d : phases[p].deps)
            {
                if (d.phase >= p)
                {
                    throw std::invalid_argument("SimulateSharedLink: a phase depends on a later "
                                                "phase");
                }
                dependants[d.phase].push_back(SchedPhaseDep{p, d.lag});
            }
        }
    }

    /// Start an iteration at time \p t.
    void Reset(double t)
    {
        iterStart = t;
        const std::size_t n = phases.size();
        depsLeft.assign(n, 0);
        startAt.assign(n, 0);
        remaining.assign(n, 0);
        armed.clear();
        ready.clear();
        for (std::size_t p = 0; p < n; ++p)
        {
            depsLeft[p] = static_cast<uint32_t>(phases[p].deps.size());
            startAt[p] = t + phases[p].release;
            remaining[p] = phases[p].linkTime;
            if (depsLeft[p] == 0)
            {
                armed.emplace_back(startAt[p], static_cast<uint32_t>(p));
            }
        }
        std::make_heap(armed.begin(), armed.end(), std::greater<>());
        left = static_cast<uint32_t>(n);
        endAt = t;
    }

    /// Phase \p p finished sending at time \p t: arm the phases waiting for it.
    void Done(uint32_t p, double t)
    {
        --left;
        if (endLag[p] >= 0)
        {
            endAt = std::max(endAt, t + endLag[p]);
        }
        for (const SchedPhaseDep& d : dependants[p])
        {
            startAt[d.phase] = std::max(startAt[d.phase], t + d.lag);
            if (--depsLeft[d.phase] == 0)
            {
                armed.emplace_back(startAt[d.phase], d.phase);
                std::push_heap(armed.begin(), armed.end(), std::greater<>());
            }
        }
    }

    /// Release the armed phases whose start has come (a phase with nothing to send is done at
    /// once) and start the next iteration when this one is complete, until nothing changes.
    /// \param now the time \return iterations completed
    uint32_t Advance(double now)
    {
        uint32_t completed = 0;
        bool changed = true;
        while (changed)
        {
            changed = false;
            // release the armed phases that are due (in any order: no number depends on it)
            while (!armed.empty() && now >= armed.front().first)
            {
                const uint32_t p = armed.front().second;
                std::pop_heap(armed.begin(), armed.end(), std::greater<>());
                armed.pop_back();
                if (remaining[p] <= 0)
                {
                    Done(p, now);
                }
                else
                {
                    ready.push_back(p);
                    std::push_heap(ready.begin(), ready.end(), std::greater<>());
                }
                changed = true;
            }
            if (left == 0 && now >= iterStart + compute && now >= endAt && iterStart < now)
            {
                ++completed;
                Reset(now);
                changed = true;
            }
        }
        return completed;
    }

    /// Moves the current iteration by \p d seconds (a skip of whole periods).
    void Shift(double d)
    {
        iterStart += d;
        endAt += d;
        for (double& t : startAt)
        {
            t += d;
        }
        for (auto& a : armed) // a uniform shift keeps the heap order
        {
            a.first += d;
        }
    }

    /// \param now the time \param next an upper bound \return the earliest of \p next and this
    /// job's next compute end, iteration end or phase release after \p now
    double NextEvent(double now, double next) const
    {
        if (iterStart + compute > now)
        {
            next = std::min(next, iterStart + compute);
        }
        if (left == 0 && endAt > now)
        {
            next = std::min(next, endAt);
        }
        if (!armed.empty())
        {
            next = std::min(next, armed.front().first);
        }
        return next;
    }
};

/// Where a run stood when the low-priority job started an iteration (SKIP_PERIODS).
struct PeriodMark
{
    double now{0};                        //!< the time, s
    std::array<uint64_t, 2> iterations{}; //!< completed iterations
    std::array<double, 2> sendTime{};     //!< link seconds sent
};

/// The shared-link simulation; a job without phases is one phase released at overlapStart x
/// computeTime (PhasedJob). Inputs already checked. \p run: SKIP_PERIODS skips whole periods
/// once the low-priority job's offset into the high-priority iteration recurs (see
/// SharedLinkRun).
TimelineResult
SimulatePhases(const std::array<TimelineJob, 2>& jobs,
               uint32_t highPriority,
               double horizon,
               SharedLinkRun run)
{
    std::array<PhasedJob, 2> st = {PhasedJob(jobs[0]), PhasedJob(jobs[1])};
    for (PhasedJob& s : st)
    {
        s.Reset(0);
    }
    TimelineResult result;
    const double end = horizon * (1 + 1e-9);
    const std::array<uint32_t, 2> order = {highPriority, 1 - highPriority};
    double now = 0;
    // SKIP_PERIODS: the marks by offset into the high-priority job's iteration
    const uint32_t low = 1 - highPriority;
    bool skip = run == SharedLinkRun::SKIP_PERIODS;
    double highIteration = -1; // the high-priority job's iteration time, once seen
    std::map<double, PeriodMark> marks;
    uint64_t confirmed = 0;                  // consecutive repeats with the same period
    std::array<uint64_t, 2> lastPerPeriod{}; // iterations per period of the last repeat
    double lastPeriod = 0;                   // its length, s
    while (true)
    {
        uint32_t lowStarted = 0;
        for (uint32_t x = 0; x < 2; ++x)
        {
            const uint32_t done = st[x].Advance(now);
            result.completedIterations[x] += done;
            if (x == highPriority && done > 0 && highIteration < 0)
            {
                highIteration = now;
            }
            lowStarted += x == low ? done : 0;
        }
        if (skip && lowStarted > 0 && highIteration > 0 && now < end)
        {
            const double offset = now - st[highPriority].iterStart;
            // the same state: offsets within rounding of the absolute times (so that a slow
            // drift is not taken for a period) and within PERIOD_TOLERANCE of the iteration
            const double ulp = std::nextafter(now, std::numeric_limits<double>::infinity()) - now;
            const double tol = std::min(PERIOD_TOLERANCE * highIteration, PERIOD_ULPS * ulp);
            auto it = marks.lower_bound(offset - tol);
            if (it != marks.end() && it->first <= offset + tol)
            {
                PeriodMark& m = it->second;
                const double period = now - m.now;
                std::array<uint64_t, 2> perPeriod{};
                for (uint32_t x = 0; x < 2; ++x)
                {
                    perPeriod[x] = result.completedIterations[x] - m.iterations[x];
                }
                // a period counts once every iteration start of one more whole period has
                // repeated with the same length and the same iterations (a run that flips
                // between states at a tie does not)
                if (confirmed > 0 && perPeriod == lastPerPeriod &&
                    std::abs(period - lastPeriod) <= 2 * tol)
                {
                    ++confirmed;
                }
                else
                {
                    confirmed = 1;
                    lastPerPeriod = perPeriod;
                    lastPeriod = period;
                }
                if (confirmed > perPeriod[low] && period > 0)
                {
                    // skip whole periods but the last one, then on event by event
                    const double periods = std::floor((end - now) / period) - 1;
                    if (periods >= 1)
                    {
                        const double d = periods * period;
                        for (uint32_t x = 0; x < 2; ++x)
                        {
                            st[x].Shift(d);
                            result.completedIterations[x] +=
                                static_cast<uint64_t>(periods) * perPeriod[x];
                            result.sendTime[x] += periods * (result.sendTime[x] - m.sendTime[x]);
                        }
                        now += d;
                    }
                    skip = false;
                    marks.clear();
                    continue; // what falls due at the new time (rounding of the shift)
                }
                m = PeriodMark{now, result.completedIterations, result.sendTime};
            }
            else
            {
                confirmed = 0;
                marks.emplace(offset, PeriodMark{now, result.completedIterations, result.sendTime});
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
        for (const PhasedJob& s : st)
        {
            next = s.NextEvent(now, next);
        }
        if (sender >= 0)
        {
            // the link sends the high-priority job's lowest released phase (strict priority)
            PhasedJob& s = st[sender];
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
                s.Done(phase, next);
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
SimulateSharedLink(const std::array<TimelineJob, 2>& jobs,
                   uint32_t highPriority,
                   double horizon,
                   SharedLinkRun run)
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
    return SimulatePhases(jobs, highPriority, horizon, run);
}

} // namespace ns3
