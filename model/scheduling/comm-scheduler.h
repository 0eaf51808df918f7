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

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library (ctest check-scheduling-purity).

#include "cluster-model.h"

#include "ns3/object.h"
#include "ns3/type-id.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief A communication scheduler: maps the running jobs to one path per flow and one
 * priority level per job (algorithms.md §1). Base class of every scheduler, in the style of
 * ns-3's QueueDisc (DoEnqueue) and TcpCongestionOps (algorithms chosen by TypeId, each with its
 * own Attributes).
 *
 * Template method: the public, non-virtual Schedule() validates the input (Validate: the
 * cluster model and SchedulerConfig::numLevels), calls the scheduler's own DoSchedule(), checks
 * the decision it returns (ValidateDecision: every job decided, every flow on one of its
 * candidate paths, levels < K, ...), records the scheduler's name in it and returns it. A
 * scheduler therefore only implements DoSchedule() and can rely on a valid model.
 *
 * Implementations are deterministic: the same model, configuration (incl. SchedulerConfig::seed)
 * and attribute values always give the same Decision. They keep no state between calls (the
 * caller re-runs Schedule() whenever a job arrives or finishes, Crux §4.1, §5) and never call
 * the ns-3 Simulator. Algorithm knobs are the scheduler's own Attributes; the per-call
 * SchedulerConfig carries only properties of the cluster and the run (K, seed).
 *
 * Schedulers are usually created by short name through the registry (CreateCommScheduler,
 * RegisterCommScheduler); CreateObject<T>() works as well (the name is then the one the class
 * gives itself, see GetName()).
 */
class CommScheduler : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CommScheduler();
    ~CommScheduler() override;

    /**
     * \brief The short name recorded in every Decision (Decision::scheduler) and used for
     * result files.
     * \return the name set by SetName() (the registry sets the name the scheduler was created
     *         under); if none was set, the TypeId name of the instance
     */
    std::string GetName() const;

    /**
     * \param name the short name (see GetName())
     */
    void SetName(const std::string& name);

    /**
     * \brief Computes a decision for all jobs of the model (template method).
     *
     * Validate(model, config), then DoSchedule(model, config), then
     * ValidateDecision(model, config, decision, GetName()); Decision::scheduler is set to
     * GetName().
     * \param model the cluster (links and running jobs)
     * \param config K (numLevels) and the seed of the run
     * \return one JobDecision per job (keyed by job id) with one path per flow
     * \throws std::invalid_argument if Validate rejects the input, if DoSchedule throws it
     *         (e.g. a scheduler's own size limit), or if the decision is malformed (the
     *         message names the scheduler, the job and the field)
     */
    Decision Schedule(const ClusterModel& model, const SchedulerConfig& config) const;

  protected:
    /**
     * \brief The scheduler's own step: called by Schedule() with a validated input.
     * \param model the cluster (Validate passed)
     * \param config K (numLevels >= 1) and the seed
     * \return the decision; it must decide every job of the model and every flow of each job
     *         (MakeDefaultDecision is the usual starting point). Decision::scheduler need not be
     *         set (Schedule() sets it).
     */
    virtual Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const = 0;

    /**
     * \brief MakeDefaultDecision(model, config, GetName()) without its Validate(): the starting
     * point of a DoSchedule(), whose input Schedule() has validated (a trace run schedules
     * tens of thousands of times; the check of every job's paths and phases is then made once
     * per decision, not twice).
     * \param model the cluster (Validate passed) \param config the configuration
     * \return the plain-ECMP decision (see MakeDefaultDecision())
     */
    Decision DefaultDecision(const ClusterModel& model, const SchedulerConfig& config) const;

  private:
    std::string m_name; //!< short name (empty: the TypeId name)
};

/**
 * \ingroup crux-scheduling
 * \brief Checks that a decision is complete and consistent with the model it was made for.
 *
 * Rejects: numLevels different from config.numLevels; a missing or unknown job; a job whose
 * flowPath misses a flow of the job or names an unknown flow; a path index >= the flow's number
 * of candidate paths; a level >= K; a rank >= the number of jobs, or (with uniquePriorities)
 * ranks that are not a permutation of 0..n-1; a commTime or timeShift that is negative or not
 * finite.
 * \param model the cluster the decision was made for
 * \param config the configuration it was made for
 * \param decision the decision
 * \param scheduler name put in front of the message
 * \throws std::invalid_argument "scheduler '<name>' returned an invalid decision: <what>"
 */
void ValidateDecision(const ClusterModel& model,
                      const SchedulerConfig& config,
                      const Decision& decision,
                      const std::string& scheduler);

// ---------------------------------------------------------------------------------------------
// The registry: short names ("crux", "ecmp", ...) -> schedulers.

/**
 * \ingroup crux-scheduling
 * \brief Attribute values by attribute name, as text (parsed by each attribute's checker, e.g.
 * {"Compression", "ns3::CruxUniquePriorities"}).
 */
using CommSchedulerAttributes = std::map<std::string, std::string>;

/**
 * \ingroup crux-scheduling
 * \brief Makes a new scheduler instance (RegisterCommScheduler for schedulers that are not
 * created by TypeId, e.g. Python subclasses).
 */
using CommSchedulerFactory = std::function<Ptr<CommScheduler>()>;

/**
 * \ingroup crux-scheduling
 * \brief Registers a scheduler by short name: created by TypeId with preset attribute values.
 *
 * Built in (registration order; KnownCommSchedulers()):
 *  - "ecmp": ns3::EcmpScheduler (default paths, one class);
 *  - "crux", "crux-full": ns3::CruxScheduler (path selection + priority assignment +
 *    compression, Crux §4);
 *  - "crux-pa": ns3::CruxScheduler with PathSelection=ns3::CruxDefaultPaths,
 *    Compression=ns3::CruxUniquePriorities (priority assignment only: default paths, unique
 *    priorities);
 *  - "crux-ps-pa": ns3::CruxScheduler with Compression=ns3::CruxUniquePriorities (path
 *    selection + priority assignment, unique priorities);
 *  - the baselines of Crux §4.4 / §6.3: "sincronia" (ns3::SincroniaScheduler), "varys"
 *    (ns3::VarysScheduler), "taccl" (ns3::TacclScheduler), "cassini" (ns3::CassiniScheduler),
 *    and "optimal" (ns3::OptimalScheduler, exhaustive, small cases only).
 *
 * Attribute values are taken from, in increasing precedence: the TypeId's defaults (changed by
 * Config::SetDefault or --ns3::CruxScheduler::Compression=ns3::CruxUniquePriorities on an ns-3
 * command line), the presets given here, the overrides given to CreateCommScheduler.
 * \param name short name: letters, digits, '.', '_', '-', starting with a letter or digit; not
 *        "alone" (the scenario runs' stand-alone mode)
 * \param tid a TypeId derived from ns3::CommScheduler with a constructor
 * \param presets attribute values applied to every instance created under this name
 * \throws std::invalid_argument for a malformed or already registered name, a TypeId that is
 *         not a CommScheduler or has no constructor, or an unknown attribute / invalid value in
 *         presets
 */
void RegisterCommScheduler(const std::string& name,
                           TypeId tid,
                           const CommSchedulerAttributes& presets = {});

/**
 * \ingroup crux-scheduling
 * \brief Registers a scheduler by short name: created by calling a factory.
 * \param name short name (rules as above)
 * \param factory called once per CreateCommScheduler(name); must return a new, non-null
 *        scheduler (it is renamed to \p name)
 * \throws std::invalid_argument for a malformed or already registered name or an empty
 *         factory
 */
void RegisterCommScheduler(const std::string& name, CommSchedulerFactory factory);

/// \ingroup crux-scheduling
/// \return the registered short names, in registration order (built-ins first)
std::vector<std::string> KnownCommSchedulers();

/**
 * \ingroup crux-scheduling
 * \brief Creates a scheduler by short name.
 *
 * Thread-safe (the microbenchmark creates schedulers in worker threads): creation is serialised
 * by a lock; the returned instance is the caller's own.
 * \param name a registered short name (case-sensitive)
 * \param attributes attribute overrides, applied after the presets; each value is checked by
 *        the attribute's checker
 * \return a new scheduler; GetName() returns \p name
 * \throws std::invalid_argument "unknown scheduler 'x' (known: ...)" for an unknown name;
 *         "scheduler 'x': ..." for an unknown attribute, an invalid value, or attribute values
 *         the scheduler rejects together (checked by its DoInitialize)
 */
Ptr<CommScheduler> CreateCommScheduler(const std::string& name,
                                       const CommSchedulerAttributes& attributes = {});

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
