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

#ifndef CRUX_OPTIMAL_SCHEDULER_H
#define CRUX_OPTIMAL_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

#include "ns3/flow-evaluator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

/*
 * The optimum of the Crux §4.4 microbenchmark ("found by enumerating path choices and priority
 * assignments"), judged on the flow-level evaluator (flow-evaluator.h).
 *
 * Search space. Every path choice (one candidate per flow: Π_f |candidates_f| choices) times
 * every level assignment onto at most K levels. A level assignment is an ordered set partition
 * of the n jobs into b <= min(n, K) non-empty blocks (block 0 = highest priority); between
 * levels only the order matters, so this is exactly "every priority order × every compression
 * of it onto K levels" without duplicates: Σ_{b=1..min(n,K)} b! S(n, b) assignments (181 for
 * n = 5, K = 3; the Fubini number 541 for n = 5, K >= 5). Time shifts are not searched (0).
 *
 * Objective (OptimalObjective): by default the steady-state computation rate Σ_j W_j ×
 * iterationRate_j (FLOPs/s), which is Crux's GPU utilization (Definition 1) per unit of time with
 * the integer quantisation of "completed iterations in [0, H]" removed; COMPLETED_FLOPS uses
 * Σ_j W_j n_j over [0, H] literally.
 *
 * Exactness-preserving reductions (the answer is the same as evaluating every pair):
 *  [O1] Dominated link constraints. For a path choice, every link gives a constraint
 *       (capacity, set of flows crossing it). A constraint whose flow set is a subset of another
 *       one's with at least the same capacity can never bind, and identical constraints are
 *       redundant; the max-min fair / strict-priority allocation depends only on the remaining
 *       ones. Two path choices with the same reduced constraints give identical simulations
 *       (e.g. the mirror image under swapping two aggregation switches).
 *  [O2] Independent components. Jobs whose flows share no (reduced) constraint do not interact:
 *       the objective is the sum over the connected components of the job contention graph, and
 *       a component's value depends only on its own jobs' constraints and on the relative order
 *       of its own jobs' levels. Values are memoised per (component key, restricted ordered
 *       partition), and the best assignment of a path choice is the per-component best.
 *  Every memoised component is simulated over the same horizon H (FlowEvaluator::Horizon(),
 *  which depends on the model only).
 *
 * Size limit. The nominal space (path choices × level assignments) must not exceed
 * OptimalSearchOptions::maxSearchSize (default 10^6); larger cases are refused with
 * std::invalid_argument naming both factors and the limit. The number of simulations actually
 * run after [O1]/[O2] is reported by OptimalSearch::Simulations().
 *
 * Ties: path choices are enumerated starting from the ECMP default choice (flows in model
 * order, each flow's candidates starting at its default), assignments in a fixed order; a later
 * candidate must beat the best so far by more than a relative 1e-9 to replace it.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief What the optimal search maximises.
 */
enum class OptimalObjective
{
    STEADY_FLOPS_RATE, //!< Σ_j W_j × iterationRate_j (FlowEvaluation::flopsRate), FLOPs/s
    COMPLETED_FLOPS    //!< Σ_j W_j n_j over [0, H] (FlowEvaluation::completedFlops), FLOPs
};

/**
 * \ingroup crux-scheduling
 * \brief Knobs of the optimal search.
 */
struct OptimalSearchOptions
{
    FlowEvaluatorOptions evaluator; //!< the evaluation (horizon, warm-up; priority must be LEVEL)
    OptimalObjective objective{OptimalObjective::STEADY_FLOPS_RATE}; //!< the objective
    /// Largest accepted nominal space, path choices × level assignments (> 0). A cost bound
    /// (assumption): 10^6 pairs are far more than the §4.4 cases need (5 jobs, K = 3: 181
    /// assignments × at most 256 path choices in crux-microbenchmark), and memoisation ([O1],
    /// [O2]) keeps the simulations run well below it.
    double maxSearchSize{1e6};
};

/**
 * \ingroup crux-scheduling
 * \brief Number of path choices of a model: the product over all flows of their candidate
 * counts (as a double, it may be huge).
 * \param model the model
 * \return Π_f |candidatePaths_f|
 */
double CountPathChoices(const ClusterModel& model);

/**
 * \ingroup crux-scheduling
 * \brief Refuse a model whose nominal search space, CountPathChoices() ×
 * CountLevelAssignments(jobs, numLevels), exceeds maxSearchSize: the check OptimalSearch makes,
 * available to drivers so that they refuse such a run before simulating anything.
 * \param model the model (only the candidate path counts and the job count matter)
 * \param numLevels K
 * \param maxSearchSize the limit (OptimalSearchOptions::maxSearchSize)
 * \throws std::invalid_argument "optimal scheduler: search space too large: ..." with both counts
 */
void CheckOptimalSearchSize(const ClusterModel& model, uint32_t numLevels, double maxSearchSize);

/**
 * \ingroup crux-scheduling
 * \return the objective value of an evaluation
 * \param evaluation a FlowEvaluation
 * \param objective which value
 */
double ObjectiveValue(const FlowEvaluation& evaluation, OptimalObjective objective);

/**
 * \ingroup crux-scheduling
 * \brief Number of ordered set partitions of n items into at most k non-empty blocks,
 * Σ_{b=1..min(n,k)} b! S(n, b) (S = Stirling numbers of the second kind).
 * \param n items \param k most blocks
 * \return the count (as a double; exact below 2^53)
 */
double CountLevelAssignments(uint32_t n, uint32_t k);

/**
 * \ingroup crux-scheduling
 * \brief Every ordered set partition of n items into at most k non-empty blocks.
 * \param n items \param k most blocks (>= 1)
 * \return one vector per partition: element i = block of item i (0 = first/highest), the
 *         blocks used are exactly 0..b-1
 * \throws std::invalid_argument if k = 0 or the count exceeds 10^7
 */
std::vector<std::vector<uint32_t>> EnumerateLevelAssignments(uint32_t n, uint32_t k);

/**
 * \ingroup crux-scheduling
 * \brief Exhaustive optimum over path choices × level assignments with memoisation ([O1],
 * [O2] in optimal-scheduler.h). Also serves the §4.4 microbenchmark, which needs the value of
 * many (path choice, assignment) pairs.
 *
 * Not thread-safe (memo tables); use one instance per thread.
 */
class OptimalSearch
{
  public:
    /// A path choice and a level assignment with its objective value.
    struct Solution
    {
        double value{0};               //!< objective value
        std::vector<PathChoice> paths; //!< per job (model order), candidate per flow
        std::vector<uint32_t> blocks;  //!< per job, 0 = highest level
    };

    /**
     * \param model the cluster (validated)
     * \param numLevels K (>= 1)
     * \param options knobs
     * \throws std::invalid_argument if Validate rejects the model or K, if maxSearchSize <= 0,
     *         evaluator.priority is not LEVEL, or the nominal space exceeds maxSearchSize (the
     *         message names the path-choice count, the assignment count and the limit)
     */
    OptimalSearch(const ClusterModel& model,
                  uint32_t numLevels,
                  const OptimalSearchOptions& options);
    ~OptimalSearch();

    /// \return Π_f |candidates_f|
    uint64_t NumPathChoices() const;
    /// \return every level assignment (EnumerateLevelAssignments(n, K)), per job in model order
    const std::vector<std::vector<uint32_t>>& LevelAssignments() const;
    /// \return the evaluator (its horizon is used for every simulation)
    const FlowEvaluator& Evaluator() const;
    /**
     * \param index 0..NumPathChoices()-1 (enumeration order: see the file comment)
     * \return the path choice, per job in model order
     * \throws std::out_of_range for a bad index
     */
    std::vector<PathChoice> PathChoiceAt(uint64_t index) const;

    /**
     * \brief Objective value of one (path choice, assignment) pair (memoised).
     * \param paths per job (model order), candidate per flow
     * \param blocks per job (model order); smaller = higher priority, only the order matters
     * \return the objective value
     * \throws std::invalid_argument for malformed input
     */
    double Value(const std::vector<PathChoice>& paths, const std::vector<uint32_t>& blocks);

    /**
     * \brief The best level assignment for a fixed path choice.
     * \param paths per job (model order)
     * \return the solution (blocks use 0..b-1, b <= K)
     */
    Solution BestForPaths(const std::vector<PathChoice>& paths);

    /// \return the global optimum over all path choices and assignments
    Solution Solve();

    /// \return simulations (FlowEvaluator runs on one component) done so far
    uint64_t Simulations() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> m_impl; //!< implementation (memo tables)
};

/**
 * \ingroup crux-scheduling
 * \brief Turns a solution into a Decision (levels K-1-block, ranks by (block, job id), t_j and
 * I_j on the chosen paths, uniquePriorities false).
 * \param model the cluster
 * \param numLevels K
 * \param solution the solution (per-job vectors in model order)
 * \param name the scheduler name to record
 * \return the decision
 */
Decision SolutionToDecision(const ClusterModel& model,
                            uint32_t numLevels,
                            const OptimalSearch::Solution& solution,
                            const std::string& name);

/**
 * \ingroup crux-scheduling
 * \brief "optimal": the exhaustive optimum of OptimalSearch as a CommScheduler (for small
 * cases; Crux §4.4). Its Attributes are the OptimalSearchOptions: MaxSearchSize, Objective,
 * HorizonIterations and WarmupFraction (the flow-level evaluator's; priorities are always the
 * levels). DoSchedule throws std::invalid_argument if the space exceeds MaxSearchSize.
 */
class OptimalScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::OptimalScheduler)
     */
    static TypeId GetTypeId();

    /// Named "optimal"
    OptimalScheduler();

    /// \return the search knobs as set by the attributes
    OptimalSearchOptions GetOptions() const;

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;

  private:
    double m_maxSearchSize{OptimalSearchOptions().maxSearchSize}; //!< see OptimalSearchOptions
    /// OptimalSearchOptions::objective as int (ns-3.37's EnumValue accessors need an int-like type)
    int m_objective{static_cast<int>(OptimalSearchOptions().objective)};
    /// FlowEvaluatorOptions::horizonIterations of the evaluation
    double m_horizonIterations{FlowEvaluatorOptions().horizonIterations};
    /// FlowEvaluatorOptions::warmupFraction of the evaluation
    double m_warmupFraction{FlowEvaluatorOptions().warmupFraction};
};

} // namespace ns3

#endif // CRUX_OPTIMAL_SCHEDULER_H
