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

#ifndef CRUX_TACCL_SCHEDULER_H
#define CRUX_TACCL_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"
#include "path-selection.h"

/*
 * TACCL* (Crux §4.4, §6.3): TACCL's (Shah et al., NSDI'23) routing and ordering insights
 * applied across jobs - "select the least congested link or path for each job and prioritise
 * traffic that travels a longer distance" (algorithms.md §6). Crux gives no further detail;
 * the points below are our reading.
 *
 *   MakeDefaultDecision      ECMP default paths                            (comm-scheduler.h)
 *   path selection           Crux's stage object ns3::CruxLeastCongestedPaths with
 *                            JobOrder = Arrival: least congested path per flow, jobs in
 *                            arrival (id) order                            (path-selection.h)
 *   TacclAssignPriorities    longest transmission distance first -> rank and level
 *
 * Design decisions (algorithms.md labels them [D]):
 *
 * [T1] Job order of the path selection: ascending job id, which is the arrival order (the
 *      scenario/trace layer numbers jobs in submission order). This is the GPU-intensity-agnostic
 *      order of algorithms.md §6 and makes the decision independent of the order of
 *      ClusterModel::jobs. Flows of a job in the order of SchedJob::flows.
 * [T2] "Least congested": the same rule as Crux's path selection ([D1] in crux-scheduler.h):
 *      the candidate with the smallest max_e (L_e + x_f)·8/B_e (L_e = bytes/iteration already
 *      placed on e by earlier jobs and earlier flows of this job, x_f = the flow's
 *      bytes/iteration); ties (relative 1e-12) by smaller Σ_e L_e·8/B_e, then by the lower
 *      candidate index. TACCL's routing MILP minimises the busiest link's transfer time
 *      (microsoft/taccl routing.py), of which this min-max rule is the greedy per-flow form;
 *      using Crux's exact rule means TACCL* differs from Crux only in the job order (which
 *      is what Crux §4.4 measures). commTime and intensity are recomputed on the chosen paths
 *      (measuredCommTime, if given, is kept).
 * [T3] Transmission distance of a job: D_j = the largest hop count (number of modelled links)
 *      of the chosen path of any of its flows with bytes > 0 (0 for a job without traffic).
 *      In a Clos this gives the classes intra-host < same ToR < via aggregation < via core of
 *      algorithms.md §6. The per-job maximum is used because a Decision has one level per job
 *      (TACCL orders chunks of one collective; per-flow DSCP is not expressible here).
 * [T4] Rank: D_j descending; ties by the larger travel cost τ_j = max over the same flows of
 *      Σ_{e ∈ path} 1/B_e (s/bit; TACCL's heuristic ordering schedules the chunk with the
 *      largest remaining inverse-bandwidth travel first, heuristic_ordering.py), then by
 *      ascending job id. Rank = position (0 = highest priority).
 * [T5] Levels: one class per distinct D value. With C classes sorted by decreasing D, class i
 *      gets level EqualGroupLevel(i, C, K): K-1-i when C <= K (jobs at the same distance share
 *      a level), else C classes cut into K contiguous groups of near-equal size.
 *      Decision::uniquePriorities is false.
 * [T6] No randomness (SchedulerConfig::seed is unused).
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief The transmission distance D_j of a job on given paths ([T3]).
 * \param job the job
 * \param choice the chosen candidate per flow, indexed like job.flows
 * \return the largest hop count of a flow with bytes > 0 (0 if none)
 */
uint32_t TacclDistance(const SchedJob& job, const PathChoice& choice);

/**
 * \ingroup crux-scheduling
 * \brief The travel cost τ_j of a job on given paths ([T4]).
 * \param model the cluster (bandwidths)
 * \param job the job
 * \param choice the chosen candidate per flow, indexed like job.flows
 * \return max over flows with bytes > 0 of Σ_{e ∈ path} 1/B_e, seconds per bit (0 if none)
 */
double TacclTravelCost(const ClusterModel& model, const SchedJob& job, const PathChoice& choice);

/**
 * \ingroup crux-scheduling
 * \brief Stage 2: longest distance first ([T3]-[T5]).
 *
 * Sets rank and level of every job on the decision's chosen paths, uniquePriorities = false.
 * \param model the cluster
 * \param decision updated in place; flowPath must be complete, numLevels >= 1
 * \throws std::invalid_argument if decision.numLevels is 0
 */
void TacclAssignPriorities(const ClusterModel& model, Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief TACCL*: least-congested paths in arrival order, longest distance first (Crux §4.4
 * path-selection baseline and §6.3 baseline).
 *
 * Schedule(): MakeDefaultDecision, then the path-selection stage object of Crux,
 * ns3::CruxLeastCongestedPaths with JobOrder = Arrival ([T1], [T2]), then
 * TacclAssignPriorities ([T3]-[T5]).
 */
class TacclScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::TacclScheduler; no attributes: the algorithm has no knobs)
     */
    static TypeId GetTypeId();

    /// Named "taccl"; its path-selection object is made here (also for instances not made by
    /// CreateObject)
    TacclScheduler();

    /// \return TACCL*'s path-selection stage: a ns3::CruxLeastCongestedPaths with JobOrder =
    /// Arrival
    Ptr<CruxPathSelection> GetPathSelection() const;

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;

  private:
    Ptr<CruxPathSelection> m_pathSelection; //!< CruxLeastCongestedPaths, JobOrder = Arrival
};

} // namespace ns3

#endif // CRUX_TACCL_SCHEDULER_H
