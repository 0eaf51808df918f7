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

#include "flow-evaluator.h"

#include "ns3/comm-scheduler.h"
#include "ns3/log.h"
#include "ns3/steady-rate.h"
#include "ns3/water-filling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxFlowEvaluator");

namespace
{

/// Iterations finishing within this relative tolerance of H still count.
constexpr double HORIZON_TOLERANCE = 1e-9;
/// A transfer whose projected end lies within this fraction of H after the next event ends at
/// that event: the projected end is a sum of floating-point steps, so a transfer that ends
/// exactly when another job's transfers start (a tie, common with round numbers) would
/// otherwise be left with a rounding remainder and be preempted by them for a whole period.
constexpr double TIE_FRACTION = 1e-12;

/// State of one transfer (one flow of one phase of an included job that crosses a link); its
/// remaining bits, rate and projected end while active are kept by active slot (Run::m_active).
struct FlowState
{
    uint32_t job{0};   //!< index into the job states
    uint32_t phase{0}; //!< index into the job's phases
    double bits{0};    //!< bits per iteration (of this phase)
};

/// State of one phase of a job's current iteration.
struct PhaseState
{
    double release{0};               //!< SchedPhase::release, s
    uint32_t numDeps{0};             //!< dependencies
    std::vector<uint32_t> transfers; //!< indices into the flow states
    uint32_t depsLeft{0};            //!< dependencies not finished yet
    double startAt{0};               //!< earliest start known so far, s
    uint32_t left{0};                //!< transfers still running
    bool started{false};             //!< transfers started
};

/// State of one included job. Times are seconds from the start of the evaluation.
struct JobState
{
    uint32_t model{0};                                  //!< index into ClusterModel::jobs
    double compute{0};                                  //!< compute span: max(c_j, span_j)
    double iterStart{0};                                //!< current iteration start
    double computeEnd{0};                               //!< iterStart + compute
    bool computeDone{false};                            //!< computation of the iteration finished
    std::vector<PhaseState> phases;                     //!< the iteration's phases
    std::vector<std::vector<SchedPhaseDep>> dependants; //!< [phase] phases waiting for it
    std::vector<double> endLag;                         //!< [phase] lag of the iteration end, or -1
    /// phases whose dependencies are done, not started: min-heap of (startAt, phase) (a phase's
    /// startAt no longer changes once it is armed)
    std::vector<std::pair<double, uint32_t>> armed;
    uint32_t phasesLeft{0};   //!< phases not finished
    double endAt{0};          //!< earliest iteration end from endDeps, s
    uint64_t completed{0};    //!< iterations completed in [0, H]
    uint64_t completedAll{0}; //!< iterations completed by the stop (the extension included)
    bool sawWarm{false};      //!< a completion at/after the warm-up was seen
    /// class, component, completions and the window (t_a, t_b] of the steady-rate estimate
    CompletionRecord rec;
};

/// \return the decimal rendering of x
std::string
Num(double x)
{
    return std::to_string(x);
}

} // namespace

/**
 * \brief One run of FlowEvaluator::Evaluate(const EvaluationInput&); the model is described at
 * the top of flow-evaluator.h.
 *
 * The constructor checks the per-job input and builds the state: the distinct priority classes,
 * one JobState per included job, one FlowState per transfer that crosses a link, and the rate
 * allocation over their links (PriorityWaterFilling). Simulate() runs the event loop over
 * [0, H]: settle the state changes due now (SettleJob), recompute the rates when the set of
 * active transfers changed (UpdateRates), find the next event (NextEvent), end the transfers due
 * by then (FinishTransfers), advance. Times are seconds from the start of the evaluation, sizes
 * bits, rates bit/s.
 *
 * The results depend on the order of the floating-point operations (rates, remaining bits,
 * projected ends): a change to a step must keep it, or regenerate the check-golden digests and
 * say why numbers moved.
 */
class FlowEvaluator::Run
{
  public:
    /**
     * \param evaluator the evaluator (model, flattened flows, link capacities, options)
     * \param input per-job paths, classes, shifts, inclusion (vector sizes already checked)
     * \throws std::invalid_argument as FlowEvaluator::Evaluate (path choice size, path index,
     *         time shift)
     */
    Run(const FlowEvaluator& evaluator, const EvaluationInput& input);

    /// \return the evaluation over [0, H] \throws std::runtime_error after maxEvents events
    FlowEvaluation Simulate();

  private:
    /// \return true if job j (model index) is simulated
    bool Included(std::size_t j) const;
    /// Fills m_classes: the distinct classes of the included jobs, highest first.
    void BuildClasses();
    /**
     * Fills m_jobs and m_transfers: the included jobs in model order, their flows in order; a
     * flow of 0 bits or on an empty path gets no FlowState (it ends the moment it starts).
     * \param[out] paths [transfer] its links
     * \param[out] classes [transfer] its class index (0 = highest)
     * \throws std::invalid_argument for a bad path choice or time shift
     */
    void BuildStates(std::vector<std::vector<uint32_t>>& paths, std::vector<uint32_t>& classes);
    /**
     * Adds job j's phases and their transfers to s and m_transfers.
     * \param j model index of the job
     * \param cls the job's class index (0 = highest)
     * \param s the job's state (s.phases is filled)
     * \param[out] paths [transfer] appended to
     * \param[out] classes [transfer] appended to
     * \throws std::invalid_argument if a path index is out of range
     */
    void AddTransfers(std::size_t j,
                      uint32_t cls,
                      JobState& s,
                      std::vector<std::vector<uint32_t>>& paths,
                      std::vector<uint32_t>& classes);

    /**
     * Settles every state change of job s due at 'now': computation end, start of the phases
     * that are due, and completion of the iteration; after a completion it looks again, since
     * the next iteration's changes can be due at once (its transfers start at 'now' if ov_j = 0).
     */
    void SettleJob(JobState& s, double now);
    /// Starts the transfers of phase p of s's current iteration (all bits remaining, rate 0).
    void StartPhase(JobState& s, uint32_t p, double now);
    /// Phase p of s finished at 'now': releases its dependants and the iteration end.
    void PhaseDone(JobState& s, uint32_t p, double now);
    /// Resets s's phases for an iteration starting at s.iterStart.
    void ResetPhases(JobState& s);
    /**
     * Counts the iteration of s that completes at 'now' (if now <= end: n_j, and t_a, t_b and
     * the warm count once now >= warm-up) and starts the next iteration at 'now'.
     */
    void CompleteIteration(JobState& s, double now);
    /**
     * After a change of the active set: brings every active transfer's remaining bits to 'now'
     * at its old rate, computes the new rates (water filling) and the projected ends (both stay
     * valid until the next change of the active set).
     */
    void UpdateRates(double now);
    /// \param now current time, s
    /// \return the earliest of H(1 + tolerance) (before H; past H the steady-state extension
    ///         limit), the pending computation ends and transfer starts, and the projected
    ///         transfer ends, s
    double NextEvent(double now);
    /// Ends every active transfer whose projected end is at most next + tie slack.
    void FinishTransfers(double next);
    /**
     * \param s a job state
     * \return the time of s's next state change that SettleJob acts on (its computation end,
     *         its earliest armed phase start, its iteration end once nothing else is left), or
     *         infinity; SettleJob(s, now) changes nothing if now is before it, s
     */
    static double Due(const JobState& s);
    /// Queues job j (index into m_jobs) at its current Due() (the entries queued before are out
    /// of date).
    void Requeue(uint32_t j);
    /// Drops the out-of-date entries at the top of m_due.
    void DropStale();
    /**
     * Appends one active slot for transfer f (remaining = its bits, rate 0).
     * \param f index into m_transfers
     */
    void AddActive(uint32_t f);
    /// Removes active slot i (the last slot takes its place).
    void RemoveActive(std::size_t i);
    /// Fills m_result's per-job and total results from the job states (moves their completion
    /// records into the steady-rate estimate: call once, at the end).
    void CollectResults();

    const FlowEvaluator& m_evaluator; //!< model, flattened flows, capacities, options
    const EvaluationInput& m_input;   //!< the input being evaluated

    std::vector<int64_t> m_classes;     //!< distinct classes, highest first
    std::vector<JobState> m_jobs;       //!< included jobs, model order
    std::vector<FlowState> m_transfers; //!< transfers crossing a link, job by job
    std::vector<double> m_rate;         //!< [transfer] current rate, bit/s
    /// Active transfers, one slot each: ids (into m_transfers) and, by slot, the remaining
    /// bits, the rate (bit/s, a copy of m_rate) and the projected end at that rate (s). Dense
    /// per slot, so the loops over the active set of every event stream through memory.
    std::vector<uint32_t> m_active;
    std::vector<double> m_activeRemaining; //!< [slot] bits still to send
    std::vector<double> m_activeRate;      //!< [slot] rate, bit/s
    std::vector<double> m_activeFinish;    //!< [slot] projected end at that rate, s
    /// Jobs' next state changes: a min-heap of (Due() time, job index, version); an entry whose
    /// version is not the job's m_dueVersion is out of date. Each event settles only the jobs
    /// due, and finds the next one at the top, instead of visiting every job twice.
    std::vector<std::tuple<double, uint32_t, uint32_t>> m_due;
    std::vector<uint32_t> m_dueVersion;            //!< [job] version of its current m_due entry
    std::vector<uint32_t> m_settle;                //!< jobs due at the current event (scratch)
    std::optional<PriorityWaterFilling> m_filling; //!< rates of the active transfers

    FlowEvaluation m_result; //!< the evaluation being built (events, rate computations, ...)
    double m_end{0};         //!< H (1 + HORIZON_TOLERANCE), s
    double m_limit{0};       //!< steady-state extension limit: steadyHorizonLimit × m_end, s
    double m_stop{0};        //!< time the simulation stopped, s
    uint32_t m_unsteady{0};  //!< jobs without a whole iteration interval after the warm-up
    double m_warm{0};        //!< warm-up end, warmupFraction H, s
    double m_tieSlack{0};    //!< TIE_FRACTION H, s
    double m_lastUpdate{0};  //!< time the remaining bits of the active transfers refer to, s
    bool m_changed{false};   //!< the active set changed since the rates were computed
    /// earliest projected end of an active transfer (set with the rates; the active set and the
    /// projected ends do not change until the next UpdateRates), s
    double m_minFinish{std::numeric_limits<double>::infinity()};
};

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
    for (std::size_t i = 0; i < n; ++i)
    {
        m_activeRate[i] = m_rate[m_active[i]];
    }
    double minFinish = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i)
    {
        const double rate = m_activeRate[i];
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

FlowEvaluator::FlowEvaluator(const ClusterModel& model, const FlowEvaluatorOptions& options)
    : m_model(model),
      m_options(options)
{
    SchedulerConfig config;
    config.numLevels = 1;
    Validate(m_model, config);
    if (!(std::isfinite(options.horizon) && options.horizon >= 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizon must be >= 0 s (got " +
                                    Num(options.horizon) + ")");
    }
    if (!(std::isfinite(options.horizonIterations) && options.horizonIterations > 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizonIterations must be > 0 (got " +
                                    Num(options.horizonIterations) + ")");
    }
    if (!(options.warmupFraction >= 0 && options.warmupFraction < 1))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.warmupFraction must be in [0, 1) (got " +
                                    Num(options.warmupFraction) + ")");
    }
    if (!(options.alignRatio >= 1)) // infinity: never aligned
    {
        throw std::invalid_argument(
            "FlowEvaluatorOptions.alignRatio must be >= 1 or infinity (got " +
            Num(options.alignRatio) + ")");
    }
    if (!(std::isfinite(options.steadyHorizonLimit) && options.steadyHorizonLimit >= 1))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.steadyHorizonLimit must be >= 1 (got " +
                                    Num(options.steadyHorizonLimit) + ")");
    }
    for (const SchedLink& link : m_model.links)
    {
        m_capacity.push_back(link.bandwidth);
    }
    double longest = 0;
    for (const SchedJob& job : m_model.jobs)
    {
        std::vector<FlatFlow> flows;
        bool traffic = false;
        for (const SchedFlow& flow : job.flows)
        {
            FlatFlow f;
            f.bits = flow.bytesPerIteration * 8.0;
            f.candidates = flow.candidatePaths;
            for (const auto& p : flow.candidatePaths)
            {
                traffic = traffic || (f.bits > 0 && !p.empty());
            }
            flows.push_back(std::move(f));
        }
        if (job.computeTime == 0 && !traffic)
        {
            throw std::invalid_argument(
                "FlowEvaluator: job id " + std::to_string(job.id) +
                " has computeTime 0 and no traffic on any link (zero-length iterations)");
        }
        m_flows.push_back(std::move(flows));
        m_phases.push_back(EffectivePhases(job));
        m_endDeps.push_back(EffectiveEndDeps(job));
        longest = std::max(
            longest,
            StandaloneIterationTime(job, JobCommTime(m_model, job, DefaultPathChoice(job))));
    }
    m_horizon = options.horizon > 0 ? options.horizon : options.horizonIterations * longest;
    if (!(m_horizon > 0))
    {
        throw std::invalid_argument(
            "FlowEvaluator: automatic horizon is 0 (every job has a zero "
            "stand-alone iteration time); set FlowEvaluatorOptions.horizon");
    }
}

const ClusterModel&
FlowEvaluator::Model() const
{
    return m_model;
}

const FlowEvaluatorOptions&
FlowEvaluator::Options() const
{
    return m_options;
}

double
FlowEvaluator::Horizon() const
{
    return m_horizon;
}

FlowEvaluation
FlowEvaluator::Evaluate(const Decision& decision) const
{
    EvaluationInput in;
    for (const SchedJob& job : m_model.jobs)
    {
        auto it = decision.jobs.find(job.id);
        if (it == decision.jobs.end())
        {
            throw std::out_of_range("FlowEvaluator::Evaluate: the decision has no job id " +
                                    std::to_string(job.id));
        }
        const JobDecision& jd = it->second;
        in.paths.push_back(ChoiceOf(job, jd));
        in.priority.push_back(m_options.priority == EvaluationPriority::LEVEL
                                  ? static_cast<int64_t>(jd.level)
                                  : -static_cast<int64_t>(jd.rank));
        in.timeShift.push_back(jd.timeShift);
    }
    return Evaluate(in);
}

FlowEvaluation
FlowEvaluator::Evaluate(const EvaluationInput& input) const
{
    const std::size_t nJobs = m_model.jobs.size();
    if (input.paths.size() != nJobs || input.priority.size() != nJobs ||
        (!input.timeShift.empty() && input.timeShift.size() != nJobs) ||
        (!input.include.empty() && input.include.size() != nJobs))
    {
        throw std::invalid_argument("FlowEvaluator::Evaluate: EvaluationInput vectors must have "
                                    "one entry per job (" +
                                    std::to_string(nJobs) + ")");
    }
    Run run(*this, input);
    return run.Simulate();
}

FlowEvaluation
EvaluateDecision(const ClusterModel& model,
                 const Decision& decision,
                 const FlowEvaluatorOptions& options)
{
    return FlowEvaluator(model, options).Evaluate(decision);
}

} // namespace ns3
