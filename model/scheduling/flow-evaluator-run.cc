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

#include "flow-evaluator-run.h"

#include "ns3/comm-scheduler.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxFlowEvaluator");

using flow_evaluator_detail::Num;

namespace
{

/// Iterations finishing within this relative tolerance of H still count.
constexpr double HORIZON_TOLERANCE = 1e-9;
/// A transfer whose projected end lies within this fraction of H after the next event ends at
/// that event: the projected end is a sum of floating-point steps, so a transfer that ends
/// exactly when another job's transfers start (a tie, common with round numbers) would
/// otherwise be left with a rounding remainder and be preempted by them for a whole period.
constexpr double TIE_FRACTION = 1e-12;

} // namespace

FlowEvaluator::Run::Run(const FlowEvaluator& evaluator, const EvaluationInput& input)
    : m_evaluator(evaluator),
      m_input(input)
{
    BuildClasses();
    std::vector<std::vector<uint32_t>> paths;
    std::vector<uint32_t> classes;
    BuildStates(paths, classes);
    std::vector<uint32_t> jobOf(m_transfers.size());
    for (std::size_t f = 0; f < m_transfers.size(); ++f)
    {
        jobOf[f] = m_transfers[f].job;
    }
    const std::vector<uint32_t> component =
        LinkComponents(m_jobs.size(), m_evaluator.m_capacity.size(), jobOf, paths);
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
    {
        m_jobs[j].rec.component = component[j];
    }
    m_filling.emplace(m_evaluator.m_capacity, paths, classes, m_classes.size());
    m_rate.assign(m_transfers.size(), 0.0);
    m_active.reserve(m_transfers.size());
    m_activeRemaining.reserve(m_transfers.size());
    m_activeRate.reserve(m_transfers.size());
    m_activeFinish.reserve(m_transfers.size());

    const double horizon = m_evaluator.m_horizon;
    m_result.horizon = horizon;
    m_end = horizon * (1 + HORIZON_TOLERANCE);
    m_limit = m_end * m_evaluator.m_options.steadyHorizonLimit;
    m_unsteady = static_cast<uint32_t>(m_jobs.size());
    m_warm = m_evaluator.m_options.warmupFraction * horizon;
    m_tieSlack = TIE_FRACTION * horizon;
}

bool
FlowEvaluator::Run::Included(std::size_t j) const
{
    return m_input.include.empty() || m_input.include[j];
}

void
FlowEvaluator::Run::BuildClasses()
{
    for (std::size_t j = 0; j < m_evaluator.m_model.jobs.size(); ++j)
    {
        if (Included(j))
        {
            m_classes.push_back(m_input.priority[j]);
        }
    }
    std::sort(m_classes.begin(), m_classes.end(), std::greater<>());
    m_classes.erase(std::unique(m_classes.begin(), m_classes.end()), m_classes.end());
}

void
FlowEvaluator::Run::BuildStates(std::vector<std::vector<uint32_t>>& paths,
                                std::vector<uint32_t>& classes)
{
    for (std::size_t j = 0; j < m_evaluator.m_model.jobs.size(); ++j)
    {
        if (!Included(j))
        {
            continue;
        }
        const SchedJob& job = m_evaluator.m_model.jobs[j];
        const PathChoice& choice = m_input.paths[j];
        if (choice.size() != job.flows.size())
        {
            throw std::invalid_argument(
                "FlowEvaluator::Evaluate: job id " + std::to_string(job.id) + " has " +
                std::to_string(job.flows.size()) + " flows but the path choice has " +
                std::to_string(choice.size()) + " entries");
        }
        const double shift = m_input.timeShift.empty() ? 0.0 : m_input.timeShift[j];
        if (!(std::isfinite(shift) && shift >= 0))
        {
            throw std::invalid_argument("FlowEvaluator::Evaluate: job id " +
                                        std::to_string(job.id) + " has a time shift of " +
                                        Num(shift) + " s (must be finite, >= 0)");
        }
        JobState s;
        s.model = static_cast<uint32_t>(j);
        s.compute = std::max(job.computeTime, job.span);
        s.iterStart = shift;
        s.computeEnd = shift + s.compute;
        s.rec.doneAt.push_back(shift);
        const uint32_t cls = static_cast<uint32_t>(
            std::find(m_classes.begin(), m_classes.end(), m_input.priority[j]) - m_classes.begin());
        s.rec.cls = cls;
        AddTransfers(j, cls, s, paths, classes);
        m_jobs.push_back(std::move(s));
    }
}

void
FlowEvaluator::Run::AddTransfers(std::size_t j,
                                 uint32_t cls,
                                 JobState& s,
                                 std::vector<std::vector<uint32_t>>& paths,
                                 std::vector<uint32_t>& classes)
{
    const SchedJob& job = m_evaluator.m_model.jobs[j];
    const PathChoice& choice = m_input.paths[j];
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        if (choice[f] >= m_evaluator.m_flows[j][f].candidates.size())
        {
            throw std::invalid_argument("FlowEvaluator::Evaluate: job id " +
                                        std::to_string(job.id) + " flow id " +
                                        std::to_string(job.flows[f].id) + ": path index " +
                                        std::to_string(choice[f]) + " out of range");
        }
    }
    const std::vector<SchedPhase>& phases = m_evaluator.m_phases[j];
    s.phases.resize(phases.size());
    s.dependants.assign(phases.size(), {});
    s.endLag.assign(phases.size(), -1.0);
    for (std::size_t p = 0; p < phases.size(); ++p)
    {
        const SchedPhase& ph = phases[p];
        PhaseState& ps = s.phases[p];
        ps.release = ph.release;
        ps.numDeps = static_cast<uint32_t>(ph.deps.size());
        for (const SchedPhaseDep& d : ph.deps)
        {
            s.dependants[d.phase].push_back(SchedPhaseDep{static_cast<uint32_t>(p), d.lag});
        }
        for (std::size_t i = 0; i < ph.flows.size(); ++i)
        {
            const uint32_t f = ph.flows[i];
            const std::vector<uint32_t>& path = m_evaluator.m_flows[j][f].candidates[choice[f]];
            const double bits = ph.bytes[i] * 8.0;
            if (bits <= 0 || path.empty())
            {
                continue; // finishes the moment it starts
            }
            FlowState st;
            st.job = static_cast<uint32_t>(m_jobs.size());
            st.phase = static_cast<uint32_t>(p);
            st.bits = bits;
            ps.transfers.push_back(static_cast<uint32_t>(m_transfers.size()));
            m_transfers.push_back(st);
            paths.push_back(path);
            classes.push_back(cls);
        }
    }
    for (const SchedPhaseDep& d : m_evaluator.m_endDeps[j])
    {
        s.endLag[d.phase] = std::max(s.endLag[d.phase], d.lag);
    }
    ResetPhases(s);
}

void
FlowEvaluator::Run::ResetPhases(JobState& s)
{
    s.armed.clear();
    for (uint32_t p = 0; p < s.phases.size(); ++p)
    {
        PhaseState& ps = s.phases[p];
        ps.depsLeft = ps.numDeps;
        ps.startAt = s.iterStart + ps.release;
        ps.left = 0;
        ps.started = false;
        if (ps.numDeps == 0)
        {
            s.armed.emplace_back(ps.startAt, p);
        }
    }
    std::make_heap(s.armed.begin(), s.armed.end(), std::greater<>());
    s.phasesLeft = static_cast<uint32_t>(s.phases.size());
    s.endAt = s.iterStart;
}

FlowEvaluation
FlowEvaluator::Run::Simulate()
{
    double now = 0;
    m_dueVersion.assign(m_jobs.size(), 0);
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        Requeue(j);
    }
    while (true)
    {
        // The jobs due now, in model order (the order of their transfer starts, which the
        // active slots keep); every other job's SettleJob would change nothing.
        m_settle.clear();
        while (!m_due.empty() && std::get<0>(m_due.front()) <= now)
        {
            const auto [t, j, version] = m_due.front();
            std::pop_heap(m_due.begin(), m_due.end(), std::greater<>());
            m_due.pop_back();
            if (version == m_dueVersion[j])
            {
                m_settle.push_back(j);
            }
        }
        std::sort(m_settle.begin(), m_settle.end());
        for (uint32_t j : m_settle)
        {
            SettleJob(m_jobs[j], now);
            Requeue(j);
        }
        if (now >= m_end && (m_unsteady == 0 || now >= m_limit))
        {
            break;
        }
        if (++m_result.events > m_evaluator.m_options.maxEvents)
        {
            throw std::runtime_error("FlowEvaluator::Evaluate: more than " +
                                     std::to_string(m_evaluator.m_options.maxEvents) +
                                     " events; horizon too long for the iteration times");
        }
        if (m_changed)
        {
            UpdateRates(now);
        }
        const double next = NextEvent(now);
        FinishTransfers(next);
        now = next;
    }
    m_stop = now;
    if (m_stop > m_end)
    {
        NS_LOG_DEBUG("steady-state extension: stopped at " << m_stop << " s, horizon " << m_end
                                                           << " s, " << m_unsteady
                                                           << " jobs still without an interval");
    }
    CollectResults();
    NS_LOG_DEBUG(m_result.events << " events, FLOP rate " << m_result.flopsRate
                                 << " FLOP/s, completed " << m_result.completedFlops << " FLOPs");
    return std::move(m_result);
}

void
FlowEvaluator::Run::SettleJob(JobState& s, double now)
{
    while (true)
    {
        if (!s.computeDone && now >= s.computeEnd)
        {
            s.computeDone = true;
        }
        // Start the armed phases that are due, earliest first (a phase without transfers ends
        // at once and may arm others, which are due at once if their start is; the order of
        // the starts changes no number: each transfer's arithmetic is its own, and the water
        // filling's rates do not depend on the order of the active flows).
        while (!s.armed.empty() && now >= s.armed.front().first)
        {
            const uint32_t p = s.armed.front().second;
            std::pop_heap(s.armed.begin(), s.armed.end(), std::greater<>());
            s.armed.pop_back();
            StartPhase(s, p, now);
        }
        if (!(s.computeDone && s.phasesLeft == 0 && now >= s.endAt))
        {
            return;
        }
        CompleteIteration(s, now);
    }
}

void
FlowEvaluator::Run::StartPhase(JobState& s, uint32_t p, double now)
{
    PhaseState& ps = s.phases[p];
    ps.started = true;
    for (uint32_t f : ps.transfers)
    {
        m_filling->Activate(f);
        m_rate[f] = 0;
        AddActive(f);
        ++ps.left;
        m_changed = true;
    }
    if (ps.left == 0)
    {
        PhaseDone(s, p, now);
    }
}

void
FlowEvaluator::Run::PhaseDone(JobState& s, uint32_t p, double now)
{
    --s.phasesLeft;
    if (s.endLag[p] >= 0)
    {
        s.endAt = std::max(s.endAt, now + s.endLag[p]);
    }
    for (const SchedPhaseDep& d : s.dependants[p])
    {
        PhaseState& q = s.phases[d.phase];
        q.startAt = std::max(q.startAt, now + d.lag);
        if (--q.depsLeft == 0)
        {
            s.armed.emplace_back(q.startAt, d.phase);
            std::push_heap(s.armed.begin(), s.armed.end(), std::greater<>());
        }
    }
}

void
FlowEvaluator::Run::CompleteIteration(JobState& s, double now)
{
    const bool inHorizon = now <= m_end;
    const bool hadInterval = s.rec.warmCount > 0;
    ++s.completedAll;
    s.rec.doneAt.push_back(now);
    if (inHorizon)
    {
        ++s.completed;
    }
    // past H only a job still without an interval is measured (the steady-state extension)
    if ((inHorizon || !hadInterval) && now <= m_limit)
    {
        if (now >= m_warm)
        {
            if (!s.sawWarm)
            {
                s.sawWarm = true;
                s.rec.firstWarm = now;
            }
            else
            {
                ++s.rec.warmCount;
            }
            s.rec.lastWarm = now;
        }
        if (!hadInterval && s.rec.warmCount > 0)
        {
            --m_unsteady;
        }
    }
    s.iterStart = now;
    s.computeEnd = now + s.compute;
    s.computeDone = false;
    ResetPhases(s);
}

void
FlowEvaluator::Run::AddActive(uint32_t f)
{
    m_active.push_back(f);
    m_activeRemaining.push_back(m_transfers[f].bits);
    m_activeRate.push_back(0.0);
    m_activeFinish.push_back(std::numeric_limits<double>::infinity());
}

void
FlowEvaluator::Run::RemoveActive(std::size_t i)
{
    m_active[i] = m_active.back();
    m_active.pop_back();
    m_activeRemaining[i] = m_activeRemaining.back();
    m_activeRemaining.pop_back();
    m_activeRate[i] = m_activeRate.back();
    m_activeRate.pop_back();
    m_activeFinish[i] = m_activeFinish.back();
    m_activeFinish.pop_back();
}

double
FlowEvaluator::Run::Due(const JobState& s)
{
    double due = std::numeric_limits<double>::infinity();
    if (!s.computeDone)
    {
        due = s.computeEnd;
    }
    if (!s.armed.empty())
    {
        due = std::min(due, s.armed.front().first);
    }
    if (s.phasesLeft == 0 && s.computeDone)
    {
        due = std::min(due, s.endAt);
    }
    return due;
}

void
FlowEvaluator::Run::Requeue(uint32_t j)
{
    const uint32_t version = ++m_dueVersion[j];
    const double due = Due(m_jobs[j]);
    if (due < std::numeric_limits<double>::infinity())
    {
        m_due.emplace_back(due, j, version);
        std::push_heap(m_due.begin(), m_due.end(), std::greater<>());
    }
}

void
FlowEvaluator::Run::DropStale()
{
    while (!m_due.empty() && std::get<2>(m_due.front()) != m_dueVersion[std::get<1>(m_due.front())])
    {
        std::pop_heap(m_due.begin(), m_due.end(), std::greater<>());
        m_due.pop_back();
    }
}

void
FlowEvaluator::Run::UpdateRates(double now)
{
    const std::size_t n = m_active.size();
    const double dt = now - m_lastUpdate;
    for (std::size_t i = 0; i < n; ++i)
    {
        m_activeRemaining[i] -= m_activeRate[i] * dt;
    }
    m_lastUpdate = now;
    ++m_result.rateComputations;
    m_filling->Update(m_rate); // the groups of active transfers the change touched
    double minFinish = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i)
    {
        const double rate = m_rate[m_active[i]];
        m_activeRate[i] = rate;
        const double finish = rate > 0 ? now + std::max(0.0, m_activeRemaining[i]) / rate
                                       : std::numeric_limits<double>::infinity();
        m_activeFinish[i] = finish;
        minFinish = std::min(minFinish, finish);
    }
    m_minFinish = minFinish;
    m_changed = false;
}

double
FlowEvaluator::Run::NextEvent(double now)
{
    double next = now < m_end ? m_end : m_limit;
    DropStale();
    if (!m_due.empty())
    {
        next = std::min(next, std::get<0>(m_due.front())); // the earliest job state change
    }
    return std::min(next, m_minFinish); // the earliest projected transfer end
}

void
FlowEvaluator::Run::FinishTransfers(double next)
{
    if (m_minFinish > next + m_tieSlack)
    {
        return; // no transfer ends by then (the projected ends are those of the last rates)
    }
    for (std::size_t i = 0; i < m_active.size();)
    {
        if (m_activeFinish[i] <= next + m_tieSlack)
        {
            const FlowState& st = m_transfers[m_active[i]];
            m_rate[m_active[i]] = 0;
            m_filling->Deactivate(m_active[i]);
            JobState& js = m_jobs[st.job];
            if (--js.phases[st.phase].left == 0)
            {
                PhaseDone(js, st.phase, next);
                Requeue(st.job);
            }
            RemoveActive(i);
            m_changed = true;
            continue;
        }
        ++i;
    }
}

void
FlowEvaluator::Run::CollectResults()
{
    const ClusterModel& model = m_evaluator.m_model;
    const double horizon = m_evaluator.m_horizon;
    double gpus = 0;
    double busy = 0;
    double steadyBusy = 0;
    std::vector<CompletionRecord> records;
    records.reserve(m_jobs.size());
    for (JobState& s : m_jobs)
    {
        records.push_back(std::move(s.rec)); // the run is over: no copy of the completions
    }
    const std::vector<double> steady =
        SteadyIterationRates(records, m_evaluator.m_options.alignRatio, m_stop);
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
    {
        const JobState& s = m_jobs[j];
        const SchedJob& job = model.jobs[s.model];
        JobEvaluation e;
        e.jobId = job.id;
        e.completedIterations = s.completed;
        e.completedFlops = job.flopsPerIteration * static_cast<double>(s.completed);
        e.gpuBusySeconds = job.numGpus * job.computeTime * static_cast<double>(s.completed);
        // no interval by the stop: the mean over the simulated time (H without an extension)
        e.iterationRate = steady[j] >= 0   ? steady[j]
                          : m_stop > m_end ? static_cast<double>(s.completedAll) / m_stop
                                           : static_cast<double>(s.completed) / horizon;
        e.standaloneIterationTime =
            StandaloneIterationTime(job, JobCommTime(model, job, m_input.paths[s.model]));
        NS_LOG_LOGIC("job " << job.id << ": " << s.completed << " iterations by the horizon, rate "
                            << e.iterationRate << " per s");
        m_result.completedFlops += e.completedFlops;
        m_result.flopsRate += job.flopsPerIteration * e.iterationRate;
        gpus += job.numGpus;
        busy += e.gpuBusySeconds;
        steadyBusy += job.numGpus * job.computeTime * e.iterationRate;
        m_result.jobs.push_back(e);
    }
    m_result.gpuUtilization = gpus > 0 ? busy / (gpus * horizon) : 0;
    m_result.stopTime = m_stop > m_end ? m_stop : horizon;
    m_result.steadyGpuUtilization = gpus > 0 ? steadyBusy / gpus : 0;
}

} // namespace ns3
