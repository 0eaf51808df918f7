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

#ifndef CRUX_CRUX_SCHEDULER_H
#define CRUX_CRUX_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"
#include "dag-max-k-cut.h"
#include "path-selection.h"
#include "shared-link-timeline.h"

#include <string>
#include <vector>

/*
 * Crux (Cao et al., SIGCOMM'24, §4) as three stage objects over a Decision, chosen by the
 * TypeId-valued Attributes of ns3::CruxScheduler:
 *
 *   MakeDefaultDecision        ECMP default paths, t_j and I_j on them        (comm-scheduler.h)
 *   PathSelection (§4.1)       ns3::CruxLeastCongestedPaths: most intensive job first
 *                              ns3::CruxDefaultPaths: keep the ECMP default paths
 *                              (both in path-selection.h)
 *   PriorityAssignment (§4.2)  ns3::CruxIntensityPriorities: P_j = k_j I_j, k_j from the
 *                              two-timeline comparison
 *   Compression (§4.3)         ns3::CruxMaxKCutCompression: DAG max K-cut onto K levels
 *                              ns3::CruxUniquePriorities: unique priorities, levels by rank
 *
 *   crux (= crux-full) = default -> least-congested paths -> P = k I -> max K-cut
 *   crux-ps-pa         = default -> least-congested paths -> P = k I -> levels by rank
 *   crux-pa            = default -> default paths         -> P = k I -> levels by rank
 *
 * The stages' knobs are Attributes of the stage objects that use them:
 * ns3::CruxIntensityPriorities::HorizonIterations and ::KBound, ns3::CruxMaxKCutCompression::
 * TopoOrderSamples and ::IncludePriorityOrder, ns3::CruxLeastCongestedPaths::JobOrder.
 *
 * Design decisions on points the paper leaves open (algorithms.md labels them [D]):
 *
 * [D1] Path selection (§4.1). Jobs in decreasing I_j computed on the ECMP default paths (or from
 *      measuredCommTime), ties by smaller job id; flows of a job in the order of
 *      SchedJob::flows. "Least congested" candidate = smallest max_e (L_e + x_f)·8/B_e, where
 *      L_e is the bytes/iteration already placed on e by earlier jobs and earlier flows of the
 *      same job and x_f the flow's bytes/iteration; ties (relative 1e-12) by smaller
 *      Σ_e L_e·8/B_e, then by the lower candidate index. An empty path costs 0.
 * [D2] After path selection t_j and I_j are recomputed on the chosen paths; a job with
 *      measuredCommTime > 0 keeps it (it was profiled alone, where equal-cost paths are
 *      equivalent).
 * [D3] Two-timeline horizon (§4.2): both jobs start an iteration at t = 0 and
 *      H = HorizonIterations × max(T_ref, T_j), T_x = max(c_x, ov_x c_x + t_x) the stand-alone
 *      iteration time, capped at 10^5 iterations of the shorter job to bound the cost. Default
 *      48 iterations of the longer job: on 2,000 random job pairs on one link the resulting
 *      order picked the order with more completed FLOPs over 200 iterations in 99.6 % of the
 *      non-tied cases (12 iterations: 97.3 %, 3: 92.4 %). Example 1 of the paper gives
 *      k_2 = 1.5 exactly both with the paper's 12 s horizon and with the default (192 s).
 * [D4] Reference job (k = 1) = the job with the most traffic in bytes per second,
 *      Σ_e M_{j,e} / T_j on its chosen paths (a byte on two links counts twice); ties by smaller
 *      job id. Jobs with t_j = 0 get k = 1 without simulation.
 * [D5] k_j guards (algorithms.md §2.3 point 6). With Δ_ref = S_ref(A) − S_ref(B) and
 *      Δ_j = S_j(B) − S_j(A) (seconds of link time gained when prioritised): Δ_x "vanishes" if
 *      it is below 1 % of t_x (less than 1 % of one iteration's traffic).
 *      (a) neither vanishes: k = Δ_j / Δ_ref (the paper's rule);
 *      (b) else, if both jobs complete more iterations when prioritised: the computation-gain
 *          form k = (G_j / G_ref)·(I_ref / I_j), G_x = W_x × extra completed iterations;
 *      (c) else, if neither job gains anything: k = 1 (indifferent: order by I alone);
 *      (d) else only one job gains: k = KBound if it is j, 1/KBound if it is the reference.
 *      k is finally clamped to [1/KBound, KBound] (default KBound = 100).
 * [D6] Priority order: P_j = k_j·I_j decreasing, ties by smaller job id; rank 0 = highest.
 * [D7] Contention DAG (§4.3): one edge per pair of jobs that both put > 0 bytes/iteration on at
 *      least one common link on their chosen paths, from the higher-P to the lower-P job, with
 *      weight I of the higher-P job. Jobs in different components need no special handling.
 * [D8] Compression: the P-sorted order is evaluated first (if IncludePriorityOrder), then m =
 *      TopoOrderSamples random topological orders (Kahn, uniform pick among ready nodes,
 *      std::mt19937_64 seeded with SchedulerConfig::seed; m = 0 = all orders, <= 10 jobs); the
 *      first best split wins (a later order must beat it by more than a relative 1e-12, so
 *      rounding in the prefix sums never flips equal cuts; the reported compressionCut is the
 *      exact edge sum of the winning split). Blocks are non-empty; with n <= K every job gets
 *      its own level in P order, highest levels first, without sampling. Block b (0 = first)
 *      -> level K-1-b.
 * [D9] Crux-PA and Crux-PS-PA have unique priorities (Decision::uniquePriorities): rank r gets
 *      level K-1-r while r < K and level 0 after that (AssignLevelsByRank).
 * [D10] I_j = +infinity for a job with W_j > 0 and t_j = 0 (no traffic): it goes first in path
 *      selection and priority order, has k = 1 and never gets a contention edge.
 * [D11] The timeline's GPU utilization counts the computation of completed iterations only
 *      (Definition 1); this reproduces the paper's 37.5 % / 41.7 % for Example 1.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief How a correction factor k_j was obtained ([D5] in crux-scheduler.h).
 */
enum class CorrectionMethod
{
    DELTA_RATIO,    //!< k = Δ_j / Δ_ref (Crux §4.2)
    GAIN_RATIO,     //!< k = (G_j / G_ref)·(I_ref / I_j) (both Δ vanished)
    INDIFFERENT,    //!< neither job gains from priority: k = 1
    ONLY_JOB_GAINS, //!< only job j gains: k = kBound
    ONLY_REF_GAINS, //!< only the reference gains: k = 1 / kBound
    NOT_SIMULATED   //!< reference job itself or a job without traffic: k = 1
};

/**
 * \ingroup crux-scheduling
 * \brief Result of the two-timeline comparison of one job against the reference (Crux §4.2).
 */
struct CorrectionFactor
{
    double k{1};                                              //!< the correction factor (clamped)
    CorrectionMethod method{CorrectionMethod::NOT_SIMULATED}; //!< which rule gave k
    double horizon{0};                                        //!< H in seconds
    double deltaRef{0};      //!< Δ_ref = S_ref(A) − S_ref(B), seconds
    double deltaJob{0};      //!< Δ_j = S_j(B) − S_j(A), seconds
    double gainRef{0};       //!< G_ref, FLOPs the reference gains when prioritised
    double gainJob{0};       //!< G_j, FLOPs job j gains when prioritised
    TimelineResult refFirst; //!< timeline A (index 0 = reference, 1 = job j)
    TimelineResult jobFirst; //!< timeline B (index 0 = reference, 1 = job j)
};

/**
 * \ingroup crux-scheduling
 * \brief The horizon of the two-timeline comparison ([D3]).
 * \param ref the reference job on the shared link
 * \param job the other job
 * \param horizonIterations multiple of the longer stand-alone iteration time (> 0)
 * \return H in seconds
 */
double CorrectionHorizon(const TimelineJob& ref, const TimelineJob& job, double horizonIterations);

/**
 * \ingroup crux-scheduling
 * \brief k_j of one job against the reference by the two-timeline comparison (Crux §4.2,
 * algorithms.md §2.3, guards [D5]).
 * \param ref the reference job (commTime > 0)
 * \param job job j (commTime > 0)
 * \param horizon H in seconds (see CorrectionHorizon)
 * \param kBound k is clamped to [1/kBound, kBound]
 * \param run how the two shared-link runs cover the horizon (SharedLinkRun; whole periods
 *        skipped by default)
 * \return k and the quantities it came from
 * \throws std::invalid_argument if a commTime is 0 or the timeline rejects the jobs
 */
CorrectionFactor ComputeCorrectionFactor(const TimelineJob& ref,
                                         const TimelineJob& job,
                                         double horizon,
                                         double kBound,
                                         SharedLinkRun run = SharedLinkRun::SKIP_PERIODS);

/**
 * \ingroup crux-scheduling
 * \brief The reference job of the priority assignment ([D4]).
 * \param model the cluster
 * \param decision gives the chosen paths and t_j
 * \return the job id with the most bytes per second (ties: smaller id)
 */
uint32_t SelectReferenceJob(const ClusterModel& model, const Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief The contention DAG of Crux §4.3 on the chosen paths ([D7]).
 * \param model the cluster
 * \param decision gives paths, ranks and intensities
 * \param nodeJobs receives the job id of each node: node i = the job of rank order position i
 *        (so the identity is a topological order)
 * \return the DAG (edge weight = I of the higher-priority job, FLOPs/s)
 */
WeightedDag BuildContentionDag(const ClusterModel& model,
                               const Decision& decision,
                               std::vector<uint32_t>* nodeJobs);

/**
 * \ingroup crux-scheduling
 * \brief The priority-assignment stage (Crux §4.2): a unique priority order of the jobs.
 * Abstract base of the stage objects ns3::CruxScheduler runs second (its Attribute
 * PriorityAssignment).
 *
 * Extension point: derive, give the class a TypeId (SetParent<CruxPriorityAssignment>(),
 * AddConstructor, your own Attributes) and set ns3::CruxScheduler::PriorityAssignment to it.
 * An implementation is deterministic, keeps no state between calls and never calls the ns-3
 * Simulator.
 */
class CruxPriorityAssignment : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxPriorityAssignment; abstract, no constructor)
     */
    static TypeId GetTypeId();

    ~CruxPriorityAssignment() override;

    /**
     * \brief Ranks the jobs.
     * \param model the cluster (validated)
     * \param config K and the seed of the run
     * \param decision in: the chosen paths with commTime (t_j, s) and intensity (I_j, FLOP/s)
     *        current (the path-selection stage's output); out: rank of every job, a
     *        permutation of 0..n-1 with 0 = highest priority; may also set k, priorityScore and
     *        referenceJob (reported only). Levels are left to the compression stage.
     */
    virtual void AssignPriorities(const ClusterModel& model,
                                  const SchedulerConfig& config,
                                  Decision& decision) const = 0;
};

/**
 * \ingroup crux-scheduling
 * \brief Crux's priority assignment (ns3::CruxIntensityPriorities, §4.2): P_j = k_j·I_j with the
 * correction factor k_j of the two-timeline comparison against a reference job ([D3]-[D6]).
 *
 * Sets referenceJob (SelectReferenceJob), and per job k (ComputeCorrectionFactor over
 * CorrectionHorizon(ref, job, HorizonIterations), clamped to [1/KBound, KBound]),
 * priorityScore = k·I (FLOP/s) and the rank by decreasing P, ties by smaller job id.
 *
 * Attributes: HorizonIterations (48, > 0; the horizon H as a multiple of the longer stand-alone
 * iteration time of the two jobs, measured [D3]), KBound (100, >= 1; assumption [D5]) and
 * Threads (1..256, default 1): the k_j of one decision that a per-thread memo does not hold yet
 * are computed on that many threads, each k_j's two shared-link runs (reference first, job
 * first) as two tasks, so that a decision with one new job uses two threads too; the decision
 * does not depend on it. SharedLinkRun ("SkipPeriods", the default, or "Full"): how the
 * shared-link runs cover the horizon (SharedLinkRun); Full takes every event, for
 * cross-checks (equal up to rounding).
 */
class CruxIntensityPriorities : public CruxPriorityAssignment
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxIntensityPriorities)
     */
    static TypeId GetTypeId();

    /**
     * \brief P_j = k_j·I_j and the ranks (see the class).
     * \param model the cluster (validated)
     * \param config unused (no randomness)
     * \param decision updated in place (referenceJob; k, priorityScore and rank of every job);
     *        commTime and intensity must be current for the chosen paths
     */
    void AssignPriorities(const ClusterModel& model,
                          const SchedulerConfig& config,
                          Decision& decision) const override;

  private:
    // Initialised to the defaults also for instances not made by CreateObject (e.g. Python).
    double m_horizonIterations{48}; //!< H as a multiple of the longer iteration time ([D3])
    double m_kBound{100};           //!< k is clamped to [1/kBound, kBound] ([D5])
    uint32_t m_threads{1};          //!< threads for the k_j a decision misses in the memo
    int m_sharedLinkRun{static_cast<int>(SharedLinkRun::SKIP_PERIODS)}; //!< a SharedLinkRun
};

/**
 * \ingroup crux-scheduling
 * \brief The compression stage (Crux §4.3): renders the unique priority order on the
 * K = decision.numLevels hardware levels. Abstract base of the stage objects ns3::CruxScheduler
 * runs last (its Attribute Compression).
 *
 * Extension point: derive, give the class a TypeId (SetParent<CruxPriorityCompression>(),
 * AddConstructor, your own Attributes) and set ns3::CruxScheduler::Compression to it. An
 * implementation is deterministic (randomness drawn from config.seed only), keeps no state
 * between calls and never calls the ns-3 Simulator.
 */
class CruxPriorityCompression : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxPriorityCompression; abstract, no constructor)
     */
    static TypeId GetTypeId();

    ~CruxPriorityCompression() override;

    /**
     * \brief Gives every job a level.
     * \param model the cluster (validated)
     * \param config K (config.numLevels = decision.numLevels) and the seed of the run
     * \param decision in: unique ranks (the priority-assignment stage's output) on the chosen
     *        paths; out: level of every job in 0..K-1 (K-1 highest), uniquePriorities (true if
     *        consumers should order by rank beyond the levels), compressionCut if the method has
     *        one (FLOP/s)
     */
    virtual void Compress(const ClusterModel& model,
                          const SchedulerConfig& config,
                          Decision& decision) const = 0;
};

/**
 * \ingroup crux-scheduling
 * \brief Crux's compression (ns3::CruxMaxKCutCompression, §4.3): the DAG max K-cut of the
 * contention DAG ([D7], [D8]).
 *
 * Builds BuildContentionDag on the chosen paths and ranks, solves SolveDagMaxKCut over the
 * priority-sorted order (if IncludePriorityOrder) and TopoOrderSamples random topological orders
 * drawn with config.seed, and gives the job of block b level K-1-b. Sets every job's level,
 * compressionCut (the exact edge sum of the winning split, FLOP/s) and uniquePriorities = false.
 *
 * Attributes: TopoOrderSamples (m = 10 as in Crux §4.3; 0 = every topological order, exact, at
 * most 10 jobs) and IncludePriorityOrder (true, [D8]).
 */
class CruxMaxKCutCompression : public CruxPriorityCompression
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxMaxKCutCompression)
     */
    static TypeId GetTypeId();

    /**
     * \brief The max K-cut levels (see the class).
     * \param model the cluster (validated)
     * \param config config.seed seeds the random topological orders
     * \param decision updated in place; ranks must be unique; K is decision.numLevels
     * \throws std::invalid_argument for exhaustive mode (TopoOrderSamples = 0) with > 10 jobs
     */
    void Compress(const ClusterModel& model,
                  const SchedulerConfig& config,
                  Decision& decision) const override;

  private:
    // Initialised to the defaults also for instances not made by CreateObject (e.g. Python).
    uint32_t m_topoOrderSamples{10};   //!< m; 0 = exhaustive ([D8])
    bool m_includePriorityOrder{true}; //!< also cut the priority-sorted order ([D8])
};

/**
 * \ingroup crux-scheduling
 * \brief No compression (ns3::CruxUniquePriorities): unique priorities, as in Crux-PA and
 * Crux-PS-PA of §6.3 ([D9]). Rank r gets level K-1-r while r < K, level 0 after that
 * (AssignLevelsByRank); uniquePriorities = true. No Attributes.
 */
class CruxUniquePriorities : public CruxPriorityCompression
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxUniquePriorities)
     */
    static TypeId GetTypeId();

    /**
     * \brief Levels by rank (AssignLevelsByRank).
     * \param model unused
     * \param config unused
     * \param decision updated in place (level of every job, uniquePriorities)
     */
    void Compress(const ClusterModel& model,
                  const SchedulerConfig& config,
                  Decision& decision) const override;
};

/**
 * \ingroup crux-scheduling
 * \brief Crux (Cao et al., SIGCOMM'24, §4): path selection, priority assignment and compression,
 * each a stage object chosen by a TypeId-valued Attribute (in the manner of
 * ns3::TcpL4Protocol::SocketType).
 *
 * Schedule(): MakeDefaultDecision, then PathSelection's SelectPaths, PriorityAssignment's
 * AssignPriorities and Compression's Compress on the same Decision. Attributes (TypeIds):
 *  - PathSelection: ns3::CruxLeastCongestedPaths (default, §4.1) or ns3::CruxDefaultPaths;
 *  - PriorityAssignment: ns3::CruxIntensityPriorities (default, §4.2);
 *  - Compression: ns3::CruxMaxKCutCompression (default, §4.3) or ns3::CruxUniquePriorities;
 * or any TypeId derived from the stage's base with a constructor (a user's own stage). Setting
 * one creates a new stage object with its TypeId's attribute defaults; Get*() returns it (to set
 * its Attributes on this scheduler only), Set*() installs an object made elsewhere (e.g. in
 * Python).
 *
 * Registered as "crux" / "crux-full" (defaults), "crux-ps-pa" (Compression =
 * ns3::CruxUniquePriorities) and "crux-pa" (PathSelection = ns3::CruxDefaultPaths, Compression =
 * ns3::CruxUniquePriorities).
 */
class CruxScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxScheduler)
     */
    static TypeId GetTypeId();

    /// Named "crux"; the built-in stages (also for instances not made by CreateObject)
    CruxScheduler();

    /// \return the path-selection stage object this scheduler runs
    Ptr<CruxPathSelection> GetPathSelection() const;

    /**
     * \brief Installs a path-selection stage object (Attribute PathSelection then reports its
     * TypeId).
     * \param stage the object (not null)
     * \throws std::invalid_argument if \p stage is null
     */
    void SetPathSelection(Ptr<CruxPathSelection> stage);

    /// \return the priority-assignment stage object this scheduler runs
    Ptr<CruxPriorityAssignment> GetPriorityAssignment() const;

    /**
     * \brief Installs a priority-assignment stage object.
     * \param stage the object (not null)
     * \throws std::invalid_argument if \p stage is null
     */
    void SetPriorityAssignment(Ptr<CruxPriorityAssignment> stage);

    /// \return the compression stage object this scheduler runs
    Ptr<CruxPriorityCompression> GetCompression() const;

    /**
     * \brief Installs a compression stage object.
     * \param stage the object (not null)
     * \throws std::invalid_argument if \p stage is null
     */
    void SetCompression(Ptr<CruxPriorityCompression> stage);

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;

  private:
    /// Attribute PathSelection: a new object of \p tid
    void SetPathSelectionType(TypeId tid);
    /// \return the TypeId of the path-selection object
    TypeId GetPathSelectionType() const;
    /// Attribute PriorityAssignment: a new object of \p tid
    void SetPriorityAssignmentType(TypeId tid);
    /// \return the TypeId of the priority-assignment object
    TypeId GetPriorityAssignmentType() const;
    /// Attribute Compression: a new object of \p tid
    void SetCompressionType(TypeId tid);
    /// \return the TypeId of the compression object
    TypeId GetCompressionType() const;

    Ptr<CruxPathSelection> m_pathSelection;           //!< stage §4.1
    Ptr<CruxPriorityAssignment> m_priorityAssignment; //!< stage §4.2
    Ptr<CruxPriorityCompression> m_compression;       //!< stage §4.3
};

} // namespace ns3

#endif // CRUX_CRUX_SCHEDULER_H
