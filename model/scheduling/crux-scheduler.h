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
#include "shared-link-timeline.h"

#include <string>
#include <vector>

/*
 * Crux (Cao et al., SIGCOMM'24, §4) as three separable stages over a Decision:
 *
 *   MakeDefaultDecision   ECMP default paths, t_j and I_j on them            (comm-scheduler.h)
 *   CruxSelectPaths       §4.1 path selection, most intensive job first
 *   CruxAssignPriorities  §4.2 P_j = k_j I_j, k_j from the two-timeline comparison
 *   CruxCompressPriorities §4.3 DAG max K-cut onto K levels
 *   AssignLevelsByRank    unique priorities without compression          (comm-scheduler.h)
 *
 *   crux (= crux-full) = default -> select paths -> assign priorities -> compress
 *   crux-ps-pa         = default -> select paths -> assign priorities -> levels by rank
 *   crux-pa            = default ->                 assign priorities -> levels by rank
 *
 * One class, ns3::CruxScheduler, runs all three: its Attributes PathSelection and Compression
 * select the stages (the registry's "crux-pa" / "crux-ps-pa" presets), and its knobs
 * (TopoOrderSamples, IncludePriorityOrder, HorizonIterations, KBound) are Attributes with the
 * defaults of CruxOptions.
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
 *      H = horizonIterations × max(T_ref, T_j), T_x = max(c_x, ov_x c_x + t_x) the stand-alone
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
 *      (d) else only one job gains: k = kBound if it is j, 1/kBound if it is the reference.
 *      k is finally clamped to [1/kBound, kBound] (default kBound = 100).
 * [D6] Priority order: P_j = k_j·I_j decreasing, ties by smaller job id; rank 0 = highest.
 * [D7] Contention DAG (§4.3): one edge per pair of jobs that both put > 0 bytes/iteration on at
 *      least one common link on their chosen paths, from the higher-P to the lower-P job, with
 *      weight I of the higher-P job. Jobs in different components need no special handling.
 * [D8] Compression: the P-sorted order is evaluated first (if includePriorityOrder), then m =
 *      topoOrderSamples random topological orders (Kahn, uniform pick among ready nodes,
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
 * \brief Crux's own knobs (the Attributes of ns3::CruxScheduler hold these defaults).
 */
struct CruxOptions
{
    /// m: number of random topological orders sampled by the compression; Crux §4.3 uses 10.
    /// 0 = exhaustive: every topological order is evaluated (exact; at most 10 jobs).
    uint32_t topoOrderSamples{10};
    /// Also evaluate the priority-sorted order (always topological) in the compression ([D8]:
    /// the order Crux's priorities give is a candidate for free, so the compression is never
    /// worse than cutting that order).
    bool includePriorityOrder{true};
    /// Horizon of the two-timeline comparison of Crux §4.2, as a multiple of the longer of the
    /// two jobs' stand-alone iteration times (dimensionless, > 0). Default 48: measured on
    /// 2,000 random job pairs ([D3]).
    double horizonIterations{48};
    /// Bound on the correction factor: k_j is clamped to [1/kBound, kBound] (>= 1). Assumption
    /// ([D5]): 100 lets k reorder jobs whose intensities differ by up to two orders of
    /// magnitude; it is also the value used when only one of the two jobs gains.
    double kBound{100};
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
 * \return k and the quantities it came from
 * \throws std::invalid_argument if a commTime is 0 or the timeline rejects the jobs
 */
CorrectionFactor ComputeCorrectionFactor(const TimelineJob& ref,
                                         const TimelineJob& job,
                                         double horizon,
                                         double kBound);

/**
 * \ingroup crux-scheduling
 * \brief Stage §4.1: path selection, most GPU-intensive job first ([D1], [D2]).
 *
 * Uses the intensities already in \p decision (from MakeDefaultDecision) to order the jobs,
 * rewrites every flowPath, then recomputes commTime and intensity on the chosen paths. The
 * per-flow rule is SelectLeastCongestedPaths (path-selection.h), shared with TACCL*.
 * \param model the cluster
 * \param decision updated in place
 */
void CruxSelectPaths(const ClusterModel& model, Decision& decision);

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
 * \brief Stage §4.2: priority assignment P_j = k_j·I_j ([D3]-[D6]).
 *
 * Sets referenceJob, and per job k, priorityScore and a unique rank (0 = highest P). Levels
 * are left untouched (see CruxCompressPriorities / AssignLevelsByRank).
 * \param model the cluster
 * \param options horizonIterations and kBound are used
 * \param decision updated in place; commTime and intensity must be current
 */
void CruxAssignPriorities(const ClusterModel& model,
                          const CruxOptions& options,
                          Decision& decision);

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
 * \brief Stage §4.3: compresses the unique priorities onto numLevels levels ([D8]).
 *
 * Sets every job's level, compressionCut, and uniquePriorities = false. K is
 * decision.numLevels.
 * \param model the cluster
 * \param options topoOrderSamples and includePriorityOrder are used
 * \param seed seed of the random topological orders (SchedulerConfig::seed)
 * \param decision updated in place; ranks must be set (CruxAssignPriorities or any other
 *        priority order with unique ranks)
 * \throws std::invalid_argument for exhaustive mode (topoOrderSamples = 0) with > 10 jobs
 */
void CruxCompressPriorities(const ClusterModel& model,
                            const CruxOptions& options,
                            uint64_t seed,
                            Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Crux (Cao et al., SIGCOMM'24, §4): path selection + priority assignment + compression,
 * with Attributes selecting the stages of the §6.3 ablation (Crux-PA, Crux-PS-PA).
 *
 * Stages: MakeDefaultDecision; CruxSelectPaths if PathSelection; CruxAssignPriorities; then
 * CruxCompressPriorities if Compression, else AssignLevelsByRank (unique priorities, [D9]).
 * Registered as "crux" / "crux-full" (every stage), "crux-ps-pa" (Compression=false) and
 * "crux-pa" (PathSelection=false, Compression=false).
 */
class CruxScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxScheduler)
     */
    static TypeId GetTypeId();

    /// Named "crux"
    CruxScheduler();

    /// \return the knobs as set by the attributes
    CruxOptions GetOptions() const;

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;

  private:
    // Initialised to the defaults also for instances not made by CreateObject (e.g. Python).
    bool m_pathSelection{true}; //!< run §4.1 path selection
    bool m_compression{true};   //!< run §4.3 compression (else levels by rank)
    uint32_t m_topoOrderSamples{CruxOptions().topoOrderSamples};     //!< see CruxOptions
    bool m_includePriorityOrder{CruxOptions().includePriorityOrder}; //!< see CruxOptions
    double m_horizonIterations{CruxOptions().horizonIterations};     //!< see CruxOptions
    double m_kBound{CruxOptions().kBound};                           //!< see CruxOptions
};

} // namespace ns3

#endif // CRUX_CRUX_SCHEDULER_H
