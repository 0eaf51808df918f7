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

#ifndef CRUX_FLOW_EVALUATOR_H
#define CRUX_FLOW_EVALUATOR_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "ns3/cluster-model.h"

#include <cstdint>
#include <vector>

/*
 * Flow-level evaluation of a scheduling Decision on a ClusterModel (the "flow-level fabric" the
 * optimum of the Crux §4.4 microbenchmark is measured on). Pure C++, no ns-3.
 *
 * Model (algorithms.md §1). Every job repeats iterations from t = timeShift_j: computation of
 * c_j seconds starting at the iteration start; at ov_j c_j after the iteration start every
 * flow of the job starts one fluid transfer of its bytesPerIteration on its chosen candidate
 * path; the iteration ends when the computation and all of the job's transfers are finished,
 * and the next one starts at once. A job with a communication timeline (SchedJob::phases)
 * runs its phases instead: each starts at max(iteration start + release, end of each
 * dependency + its lag), starts one transfer per (flow, bytes) entry on the flow's chosen path
 * and ends when they have; the iteration ends when the compute span max(c_j, span_j), every
 * phase and every endDeps lag are over (the classic model is the one-phase case). Transfers share
 * the links as fluid flows: strict priority between priority classes (a job's class is its level,
 * or its rank, see EvaluationPriority), max-min fair rates inside a class (progressive filling /
 * water filling on the capacity the higher classes left; residual capacity below 1e-9 of a link's
 * capacity counts as zero, so a starved flow waits at rate 0; PriorityWaterFilling,
 * water-filling.h). Rates are recomputed only when the set of active transfers changes (a transfer
 * starts or finishes); between such events every rate is constant, so the simulation is exact up to
 * floating-point rounding (event-driven, no time step). A transfer whose projected end lies within
 * 1e-12 H after the next event ends at that event, so an exact tie (a transfer ending when another
 * job's transfers start) is not turned into a preemption by rounding. A transfer on an empty path
 * (no modelled link) or of 0 bytes finishes the moment it starts.
 *
 * Relation to the ns-3 FlowTransport (model/transport/flow-transport.h). Same sharing model:
 * strict priority between traffic classes, max-min fair water filling inside a class, the same
 * 1e-9 starvation threshold, recomputation only when the active flow set changes. Differences,
 * all deliberate (this is the scheduler-level abstraction, cheap enough for an exhaustive
 * search): (1) one transfer per flow and iteration carrying the flow's whole per-iteration bytes,
 * where the ns-3 workload posts the ring all-reduce as 2(N-1) dependent message steps per
 * connection; (2) payload bytes only (FlowTransport adds per-packet framing); (3) no alpha term
 * (link propagation and store-and-forward latency are not modelled); (4) no intra-host NVLink
 * traffic; (5) priority classes are the Decision's levels (or ranks), where FlowTransport maps
 * DSCP 8L -> TC L, which is the same order. So a workload that posts each flow's iteration
 * bytes as one message on a FlowTransport with PacketPayload = 0 and zero link delays is
 * subject to the same rates. The ns-3 suite "crux-evaluator-crosscheck"
 * (test/flow-evaluator-crosscheck-test-suite.cc) checks this on 2-3 DltJobApplications
 * contending on one link (steady iteration times within 1e-4), and that with FlowTransport's
 * defaults the gap is the framing and alpha terms (within 1 % once they are given to the
 * evaluator); the gtests check hand-worked cases and the independent two-job
 * SimulateSharedLink.
 *
 * GPU utilization (Crux §3, Definition 1): the computation of the iterations completed in
 * [0, H] (an iteration finishing within a relative 1e-9 of H counts), i.e.
 * Σ_j numGpus_j c_j n_j / (Σ_j numGpus_j × H); completedFlops = Σ_j W_j n_j. With this rule Crux
 * Example 1 gives 37.5 % / 41.7 % over 12 s. The denominator counts the GPUs of the evaluated
 * jobs. Because n_j is an integer, this value carries a quantisation error of up to one
 * iteration per job; the steady-state rate (JobEvaluation::iterationRate) removes most of it
 * and is what the optimal search maximises by default (optimal-scheduler.h).
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Which field of a JobDecision gives a job's priority class in the evaluation.
 */
enum class EvaluationPriority
{
    LEVEL, //!< JobDecision::level (K hardware classes, higher = higher priority)
    RANK   //!< JobDecision::rank (unique order, 0 = highest)
};

/**
 * \ingroup crux-scheduling
 * \brief Knobs of the flow-level evaluation.
 */
struct FlowEvaluatorOptions
{
    /// H in seconds (> 0), or 0 = automatic: horizonIterations × the longest stand-alone
    /// iteration time max_j max(c_j, ov_j c_j + t_j), t_j on the ECMP default paths (so the
    /// horizon depends on the model only and every decision on a model is judged over the same
    /// H; time shifts are not added).
    double horizon{0};
    /// Multiple of the longest stand-alone iteration time used when horizon = 0 (> 0).
    double horizonIterations{60};
    /// The steady-state rate ignores iterations completed before warmupFraction × H ([0, 1)).
    double warmupFraction{0.25};
    /**
     * Steady-state extension (>= 1): a job that has not completed two iterations at or after the
     * warm-up by H (so has no whole iteration interval to measure its rate on) keeps being
     * simulated, with every other job, past H until it has, or until steadyHorizonLimit × H.
     * Completions after H only feed JobEvaluation::iterationRate of such jobs: n_j,
     * completedFlops and gpuUtilization count [0, H] as before, and a job that had its interval
     * by H keeps the rate measured in [0, H]. 1 = no extension (the rate of a job without an
     * interval is then n_j / H, quantised by up to one iteration in H: a job whose iterations
     * are longer than the stand-alone estimate that sets the automatic horizon, e.g. by
     * collisions among its own flows, could be reported at half its rate with
     * horizonIterations 4).
     */
    double steadyHorizonLimit{16};
    /**
     * Period alignment (>= 1, or infinity = never): a job whose mean iteration interval after
     * the warm-up is at least this many times shorter than that of the slowest job of a higher
     * class in its component (the jobs linked to it by shared links) is measured over that
     * job's window, see JobEvaluation::iterationRate. 4: the time-scale ratio K of the trace
     * runner's split (epoch-rate-model.h). Below it the two estimates had errors of the same
     * size on jobs of similar periods whose regime is not periodic in the slowest one's
     * (crux-evaluator-crosscheck).
     */
    double alignRatio{4};
    /// Where the priority class of a job comes from.
    EvaluationPriority priority{EvaluationPriority::LEVEL};
    /// Guard against runaway simulations: at most this many events (std::runtime_error).
    uint64_t maxEvents{50000000};
};

/**
 * \ingroup crux-scheduling
 * \brief What one job achieved over the horizon.
 */
struct JobEvaluation
{
    uint32_t jobId{0};               //!< SchedJob::id
    uint64_t completedIterations{0}; //!< n_j: iterations finished in [0, H]
    double completedFlops{0};        //!< W_j n_j, FLOPs
    double gpuBusySeconds{0};        //!< numGpus_j c_j n_j, GPU-seconds
    /**
     * Steady-state iterations per second: with t_a the first iteration completion at or after
     * warmupFraction × H and t_b the last one in [0, H], (completions in (t_a, t_b]) / (t_b -
     * t_a). If fewer than two completions fall after the warm-up by H, the simulation goes on
     * past H (FlowEvaluatorOptions::steadyHorizonLimit) and t_b is the job's second completion
     * after the warm-up; if it has none by the limit, (completions by the stop) / stop time.
     *
     * Period alignment: a job at least FlowEvaluatorOptions::alignRatio times faster than the
     * slowest job R of a higher class in its component (mean intervals in their own windows)
     * is measured over R's window instead: (C(t_b^R) - C(t_a^R)) / (t_b^R - t_a^R), with C the
     * job's completions interpolated linearly in time between consecutive completions. In a
     * regime periodic in R's iteration, C(t + T_R) = C(t) + (the job's iterations per period),
     * so this is exact whatever the job does inside a period; its own window could end before
     * a stretch in which R's traffic starves it, and rate it too fast (54.5/s against a
     * long-run 45.45/s for c = 10 ms, t = 1 ms under a job that takes its link 1 s in every
     * 2 s; 45.4-45.6/s aligned, flow-evaluator-test.cc). Only a higher class starves a job;
     * inside one class (max-min fair) the own window stays: aligning there moved the coarse
     * evaluation of the 3x load run 5.3 % off the exact one at the 99th percentile of the JCT.
     */
    double iterationRate{0};
    double standaloneIterationTime{0}; //!< max(c_j, ov_j c_j + t_j) on the chosen paths, s
};

/**
 * \ingroup crux-scheduling
 * \brief Result of one evaluation. jobs has one entry per evaluated job, in model order.
 */
struct FlowEvaluation
{
    double horizon{0};               //!< H, seconds
    std::vector<JobEvaluation> jobs; //!< per evaluated job, model order
    double completedFlops{0};        //!< Σ_j W_j n_j, FLOPs (Definition 1)
    double gpuUtilization{0};        //!< Σ numGpus c n / (Σ numGpus × H), 0..1 (Definition 1)
    double flopsRate{0};             //!< Σ_j W_j × iterationRate_j, FLOPs/s (steady state)
    double steadyGpuUtilization{0};  //!< Σ numGpus c iterationRate / Σ numGpus, 0..1
    uint64_t events{0};              //!< simulation steps taken
    uint64_t rateComputations{0};    //!< water-filling runs
    /// time the simulation stopped, seconds: H, or later when the steady-state extension
    /// (FlowEvaluatorOptions::steadyHorizonLimit) ran past it
    double stopTime{0};
};

/**
 * \ingroup crux-scheduling
 * \brief Per-job input of FlowEvaluator::Evaluate (all vectors indexed like ClusterModel::jobs).
 */
struct EvaluationInput
{
    std::vector<PathChoice> paths; //!< chosen candidate per flow, per job (required)
    std::vector<int64_t> priority; //!< class per job, larger = higher priority (required)
    std::vector<double> timeShift; //!< first iteration start per job, s (empty = all 0)
    std::vector<bool> include;     //!< jobs to simulate (empty = all); others are absent
};

/**
 * \ingroup crux-scheduling
 * \brief Event-driven fluid simulation of a cluster's periodic training iterations (see the
 * comment at the top of flow-evaluator.h).
 *
 * Construct once per model (validates it and flattens the candidate paths), then call
 * Evaluate() for as many decisions as needed; Evaluate() is const and thread-safe.
 */
class FlowEvaluator
{
  public:
    /**
     * \param model the cluster (copied)
     * \param options the evaluation knobs
     * \throws std::invalid_argument if the model fails Validate() (with numLevels 1), an option
     *         is out of range (horizon < 0, horizonIterations <= 0, warmupFraction outside
     *         [0, 1), steadyHorizonLimit < 1, alignRatio < 1 or NaN), or a job could finish an
     * iteration in zero time (computeTime = 0 and no flow with bytes on a non-empty path)
     */
    FlowEvaluator(const ClusterModel& model, const FlowEvaluatorOptions& options);

    /// \return the model being evaluated
    const ClusterModel& Model() const;
    /// \return the options
    const FlowEvaluatorOptions& Options() const;
    /// \return H in seconds (options.horizon, or the automatic horizon)
    double Horizon() const;

    /**
     * \brief Simulates the given paths, classes and time shifts over [0, Horizon()].
     * \param input per-job paths, classes, shifts, inclusion
     * \return the evaluation (jobs: the included jobs in model order)
     * \throws std::invalid_argument if a vector has the wrong size, a path index is out of
     *         range or a time shift is negative or not finite
     * \throws std::runtime_error if more than options.maxEvents events would be needed
     */
    FlowEvaluation Evaluate(const EvaluationInput& input) const;

    /**
     * \brief Evaluates a scheduler's Decision (paths, levels or ranks, time shifts).
     * \param decision one JobDecision per job of the model with one path per flow
     * \return the evaluation
     * \throws std::out_of_range if a job or flow is missing from the decision
     * \throws std::invalid_argument as Evaluate()
     */
    FlowEvaluation Evaluate(const Decision& decision) const;

  private:
    /// One evaluation in progress: the included jobs' and transfers' state, their rate
    /// allocation and the steps of the event loop (defined in flow-evaluator.cc).
    class Run;

    /// One flow, flattened.
    struct FlatFlow
    {
        double bits{0};                                //!< bits per iteration
        std::vector<std::vector<uint32_t>> candidates; //!< candidate paths (link ids)
    };

    ClusterModel m_model;                              //!< the model
    FlowEvaluatorOptions m_options;                    //!< the options
    double m_horizon{0};                               //!< H, seconds
    std::vector<std::vector<FlatFlow>> m_flows;        //!< [job][flow]
    std::vector<std::vector<SchedPhase>> m_phases;     //!< [job] EffectivePhases()
    std::vector<std::vector<SchedPhaseDep>> m_endDeps; //!< [job] EffectiveEndDeps()
    std::vector<double> m_capacity;                    //!< [link] bit/s
};

/**
 * \ingroup crux-scheduling
 * \brief One-shot convenience: FlowEvaluator(model, options).Evaluate(decision).
 * \param model the cluster
 * \param decision the decision to evaluate
 * \param options the knobs
 * \return the evaluation
 * \throws std::invalid_argument, std::out_of_range, std::runtime_error as FlowEvaluator
 */
FlowEvaluation EvaluateDecision(const ClusterModel& model,
                                const Decision& decision,
                                const FlowEvaluatorOptions& options = FlowEvaluatorOptions());

} // namespace ns3

#endif // CRUX_FLOW_EVALUATOR_H
