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

#ifndef CRUX_COMM_SCHEDULER_H
#define CRUX_COMM_SCHEDULER_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "cluster-model.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief A communication scheduler: maps the running jobs to one path per flow and one
 * priority level per job (algorithms.md §1).
 *
 * Implementations are stateless and deterministic: the same model and configuration (incl.
 * SchedulerConfig::seed) always give the same Decision. They never call the ns-3 Simulator; the
 * caller re-runs Schedule() whenever a job arrives or finishes (Crux §4.1, §5).
 */
class CommScheduler
{
  public:
    virtual ~CommScheduler() = default;

    /// \return the scheduler's registered name (as accepted by CreateCommScheduler)
    virtual std::string Name() const = 0;

    /**
     * \brief Computes a decision for all jobs of the model.
     * \param model the cluster (links and running jobs)
     * \param config levels, seed and algorithm knobs
     * \return one JobDecision per job (keyed by job id) with one path per flow
     * \throws std::invalid_argument if Validate(model, config) rejects the input
     */
    virtual Decision Schedule(const ClusterModel& model, const SchedulerConfig& config) const = 0;
};

/**
 * \ingroup crux-scheduling
 * \brief Creates a scheduler by name.
 *
 * Known names: "ecmp" (default paths, one class), "crux" (= "crux-full": path selection +
 * priority assignment + compression, Crux §4), "crux-pa" (priority assignment only, default
 * paths, unique priorities), "crux-ps-pa" (path selection + priority assignment, unique
 * priorities), and the baselines of Crux §4.4 / §6.3: "sincronia" (BSSI order on default
 * paths, top K-1 jobs on their own levels; sincronia-scheduler.h), "varys" (SEBF order on
 * default paths, K equal contiguous groups; varys-scheduler.h), "taccl" (TACCL*: least
 * congested paths in arrival order, longest distance first; taccl-scheduler.h), "cassini"
 * (default paths, one class, per-job iteration time shifts; cassini-scheduler.h), and
 * "optimal" (exhaustive search over path choices x level assignments judged by the flow-level
 * evaluator, small cases only: it throws std::invalid_argument when the space exceeds 10^6;
 * optimal-scheduler.h). See KnownCommSchedulers().
 * \param name the scheduler name (case-sensitive)
 * \return a new scheduler
 * \throws std::invalid_argument "unknown scheduler 'x' (known: ...)" for an unknown name
 */
std::unique_ptr<CommScheduler> CreateCommScheduler(const std::string& name);

/// \return the names CreateCommScheduler accepts, in registration order
std::vector<std::string> KnownCommSchedulers();

// ---------------------------------------------------------------------------------------------
// Building blocks shared by the scheduler implementations.

/**
 * \ingroup crux-scheduling
 * \brief The plain-ECMP starting point of every scheduler.
 *
 * Validates the input, then gives every flow its defaultPath, every job level 0, rank 0, k = 1,
 * priorityScore 0, and t_j / I_j on the default paths (JobCommTime, GpuIntensity).
 * \param model the cluster
 * \param config the configuration (numLevels is copied into the decision)
 * \param scheduler the name stored in Decision::scheduler
 * \return the decision
 * \throws std::invalid_argument from Validate
 */
Decision MakeDefaultDecision(const ClusterModel& model,
                             const SchedulerConfig& config,
                             const std::string& scheduler);

/**
 * \brief The path choice of one job recorded in a decision.
 * \param job the job
 * \param decision the job's decision (flowPath must hold every flow of the job)
 * \return the chosen candidate per flow, indexed like job.flows
 * \throws std::out_of_range if a flow is missing from decision.flowPath
 */
PathChoice ChoiceOf(const SchedJob& job, const JobDecision& decision);

/**
 * \brief Recomputes commTime (t_j) and intensity (I_j) of every job on its chosen paths.
 * \param model the cluster
 * \param decision updated in place (commTime, intensity)
 */
void UpdateIntensities(const ClusterModel& model, Decision& decision);

/**
 * \brief Renders unique ranks on K hardware levels without compression (Crux-PA, Crux-PS-PA).
 *
 * [D] rank r gets level K-1-r while r < K, every later rank shares level 0. With n <= K jobs
 * this is exactly "one level per job, highest first"; with more jobs, consumers that support
 * unlimited priorities should use the rank (Decision::uniquePriorities is set to true).
 * \param decision updated in place (level of every job, uniquePriorities)
 */
void AssignLevelsByRank(Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Level of one position when an ordered list is cut into equal contiguous groups.
 *
 * G = min(numLevels, count) groups; position p falls into group g = floor(p G / count) (group
 * sizes differ by at most one) and gets level numLevels-1-g. With count <= numLevels every
 * position gets its own level, highest first. Used by Varys (Crux Fig. 13's reading) and by
 * TACCL*'s distance classes.
 * \param position 0-based position in the order (0 = highest priority)
 * \param count number of ordered items (> position)
 * \param numLevels K (>= 1)
 * \return the level in 0..numLevels-1
 * \throws std::invalid_argument if numLevels is 0 or position >= count
 */
uint32_t EqualGroupLevel(uint32_t position, uint32_t count, uint32_t numLevels);

/**
 * \ingroup crux-scheduling
 * \brief Level of one rank when the top ranks get their own levels.
 *
 * Rank r gets level numLevels-1-r while r < numLevels, every later rank shares level 0 (so
 * ranks numLevels-1, numLevels, ... all land on level 0: "top K-1 jobs on their own levels,
 * the rest share the lowest"). Used by AssignLevelsByRank and by Sincronia ([S5]).
 * \param rank 0-based rank (0 = highest priority)
 * \param numLevels K; 0 gives level 0 for every rank
 * \return the level in 0..max(numLevels, 1)-1
 */
uint32_t TopRankLevel(uint32_t rank, uint32_t numLevels);

/**
 * \ingroup crux-scheduling
 * \brief How CompressRanksToLevels maps a job's rank to a level.
 */
enum class RankLevelRule
{
    TOP_RANKS,   //!< TopRankLevel(rank, K) (Sincronia)
    EQUAL_GROUPS //!< EqualGroupLevel(rank, number of jobs, K) (Varys)
};

/**
 * \ingroup crux-scheduling
 * \brief Renders the ranks of a decision on its K = decision.numLevels levels by a shared rule
 * (the compression stage of the rank-based baselines).
 *
 * Sets the level of every job from its rank and uniquePriorities = false.
 * \param decision updated in place; ranks must be set (unique 0..n-1 for EQUAL_GROUPS)
 * \param rule the rank-to-level rule
 * \param caller name put in front of the error message (e.g. "VarysCompressPriorities")
 * \throws std::invalid_argument "<caller>: Decision.numLevels must be >= 1" if numLevels is 0;
 *         from EqualGroupLevel if a rank is >= the number of jobs
 */
void CompressRanksToLevels(Decision& decision, RankLevelRule rule, const std::string& caller);

} // namespace ns3

#endif // CRUX_COMM_SCHEDULER_H
