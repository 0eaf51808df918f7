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

#ifndef CRUX_STAGE_ABLATION_H
#define CRUX_STAGE_ABLATION_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "ns3/optimal-scheduler.h"

#include <string>
#include <utility>
#include <vector>

/*
 * The per-stage ablation of the Crux §4.4 microbenchmark on one case: each stage of Crux and of
 * its baselines is scored against the exhaustive optimum (OptimalSearch) "with the optimal
 * solution used for the other two stages" (Crux §4.4). Every score is a value of the same
 * memoised objective U(P, L) (P = path choice, L = level assignment, OptimalSearch::Value)
 * divided by OPT = max_{P,L} U(P, L) over at most K levels, so every ratio is <= 1 (up to the
 * 1e-9 tie tolerance). Our precise reading [D]:
 *
 *  Optimal stages. P* = the paths of OPT (OptimalSearch::Solve, first optimum found). The
 *    optimal unique priority order σ* = the order of the jobs with the best U(P*, σ) when every
 *    job has its own level (n levels, no compression), first in lexicographic order on ties.
 *    The optimal compression of an order σ = its best split into at most K consecutive
 *    non-empty blocks (every valid compression of σ is such a split).
 *  Path selection (ps.*): the method's path choice P_m with the optimal priorities and
 *    compression for it: max_L U(P_m, L) / OPT. crux = the path-selection stage object of the
 *    registry's "crux" scheduler (by default CruxLeastCongestedPaths, §4.1) on the ECMP
 *    decision; taccl = TACCL*'s (the same stage object class with JobOrder = Arrival: the
 *    least-congested rule in job-id order); ecmp = every flow's default path.
 *  Priority assignment (pa.*): the method's unique order σ_m computed on P* (t_j, I_j, link
 *    loads on P*), optimally compressed: max_split U(P*, split(σ_m)) / OPT. crux =
 *    the "crux" scheduler's priority-assignment stage (by default CruxIntensityPriorities,
 *    P = k I, §4.2); sincronia = BSSI order; varys = SEBF order;
 *    intensity = I_j decreasing (ties: job id), i.e. Crux without the correction factor k.
 *  Compression (comp.*): the method's mapping of σ* onto K levels on P*: U(P*, C_m(σ*)) / OPT.
 *    crux = the "crux" scheduler's compression stage (by default CruxMaxKCutCompression, DAG
 *    max K-cut, §4.3, with its Attributes: m = 10 sampled orders plus the priority order, the
 *    given seed); sincronia = the top K-1 jobs on
 *    their own levels, the rest on the lowest; varys = K equal contiguous groups; best-split =
 *    the optimal compression of σ* (the ceiling of this stage: OPT need not be a compression of
 *    σ*, so it can be < 1).
 *  End to end (e2e.*): the complete scheduler (CreateCommScheduler) on the case, U(P_s, L_s) /
 *    OPT, for context: crux, crux-ps-pa, crux-pa, sincronia, varys, taccl, ecmp (unique ranks
 *    of crux-pa / crux-ps-pa are rendered on the K levels by AssignLevelsByRank), then every
 *    scheduler of StageAblationOptions::extraSchedulers (e.g. a researcher's own, registered by
 *    RegisterCommScheduler in C++ or Python).
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Knobs of RunStageAblation.
 */
struct StageAblationOptions
{
    uint32_t numLevels{3};       //!< K (Crux §4.4 uses 3)
    uint64_t seed{1};            //!< SchedulerConfig::seed (Crux's random topological orders)
    OptimalSearchOptions search; //!< the optimum's evaluator, objective and size limit
    /// More schedulers scored end to end (registered names, CreateCommScheduler), one column
    /// "e2e.<name>" each after the built-in columns; empty by default.
    std::vector<std::string> extraSchedulers;
};

/**
 * \ingroup crux-scheduling
 * \brief Scores of one case.
 */
struct StageAblationResult
{
    double optimum{0};            //!< OPT, objective value (FLOPs/s by default)
    double optimumUtilization{0}; //!< steady-state GPU utilization of the optimum (0..1)
    double uniqueOptimum{0};      //!< U(P*, σ*): the optimal order with unique levels
    uint64_t pathChoices{0};      //!< Π_f |candidates_f|
    uint64_t levelAssignments{0}; //!< ordered partitions of the jobs onto <= K levels
    uint64_t simulations{0};      //!< evaluator runs (after memoisation)
    /// Jobs whose correction factor k_j ("crux"'s priority assignment on P*) is not exactly 1
    uint32_t kNonUnit{0};
    /// The k-corrected order (P = k I) on P* differs from the pure intensity order (I
    /// decreasing, ties by job id), i.e. pa.crux and pa.intensity split different orders
    bool kReorders{false};
    /// ... and the two orders put different jobs first
    bool kChangesOrderHead{false};
    /// (column, ratio to OPT) in StageAblationColumns() order
    std::vector<std::pair<std::string, double>> ratios;
};

/**
 * \ingroup crux-scheduling
 * \param options the knobs (extraSchedulers add columns)
 * \return the ratio columns of StageAblationResult, e.g. "ps.crux", "pa.sincronia", in order
 */
std::vector<std::string> StageAblationColumns(
    const StageAblationOptions& options = StageAblationOptions());

/**
 * \ingroup crux-scheduling
 * \brief Checks the knobs before any work: every extra scheduler is registered and not
 * already a column.
 * \param options the knobs
 * \throws std::invalid_argument "unknown scheduler 'x' (known: ...)" or "... is already a
 *         column"
 */
void CheckStageAblationOptions(const StageAblationOptions& options);

/**
 * \ingroup crux-scheduling
 * \brief Scores every stage method of one case against the optimum (see stage-ablation.h).
 * \param model the case
 * \param options the knobs
 * \return OPT and the ratios
 * \throws std::invalid_argument from Validate or when the search space exceeds
 *         options.search.maxSearchSize; std::invalid_argument if the model has more than 8 jobs
 *         (the compression stage enumerates all n! orders), if an extra scheduler is unknown or
 *         already a column, or if a scheduler rejects the case
 */
StageAblationResult RunStageAblation(const ClusterModel& model,
                                     const StageAblationOptions& options);

} // namespace ns3

#endif // CRUX_STAGE_ABLATION_H
