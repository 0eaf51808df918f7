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

#ifndef CRUX_FLOW_EVALUATOR_RUN_H
#define CRUX_FLOW_EVALUATOR_RUN_H

// Internal to the fluid evaluator (flow-evaluator.cc builds the evaluator and its input,
// flow-evaluator-run.cc simulates one evaluation): the state of one run. Not part of the
// module's interface; pure C++ like flow-evaluator.h.

#include "flow-evaluator.h"

#include "ns3/steady-rate.h"
#include "ns3/water-filling.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{
namespace flow_evaluator_detail
{

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

/// \param x a number \return its decimal rendering (for error messages)
inline std::string
Num(double x)
{
    return std::to_string(x);
}

} // namespace flow_evaluator_detail

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
    using FlowState = flow_evaluator_detail::FlowState;   //!< one transfer
    using PhaseState = flow_evaluator_detail::PhaseState; //!< one phase of an iteration
    using JobState = flow_evaluator_detail::JobState;     //!< one included job

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

} // namespace ns3

#endif // CRUX_FLOW_EVALUATOR_RUN_H
