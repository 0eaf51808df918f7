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

#ifndef CRUX_VARYS_SCHEDULER_H
#define CRUX_VARYS_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

/*
 * Varys (Chowdhury et al., SIGCOMM'14) as a Crux priority baseline (algorithms.md §4).
 *
 *   MakeDefaultDecision        ECMP default paths                          (comm-scheduler.h)
 *   VarysAssignPriorities      SEBF: smallest effective bottleneck first -> rank
 *   VarysCompressPriorities    the SEBF ranking cut into K contiguous groups of equal size
 *
 * Design decisions (algorithms.md labels them [D]):
 *
 * [V1] Coflow = one iteration of one job. Its effective bottleneck is
 *      Γ_j = max_e M_{j,e} × 8 / B_e seconds over the links of its chosen paths, i.e. the
 *      time it needs alone on the full network - the static "alpha" by which the authors'
 *      coflowsim sorts SEBF (calcAlpha; the remaining-bandwidth form calcAlphaOnline is used
 *      only for MADD rates). measuredCommTime is not used: Varys is clairvoyant on bytes.
 * [V2] Order: ascending Γ_j; ties (exactly equal Γ) by ascending job id, i.e. arrival order as
 *      in coflowsim's sorted insertion. Jobs with no bytes (Γ = 0) come first. Rank = position.
 * [V3] MADD rate allocation, deadlines and the starvation-avoidance fair-share slices are not
 *      modelled: the Crux paper compares Varys as a priority order on K strict-priority
 *      classes (Crux §4.4 and Fig. 13), which is what this scheduler produces.
 * [V4] Limited levels, the Crux paper's reading of Varys (Fig. 13: 4 ordered jobs on 2
 *      levels -> jobs 1-2 high, 3-4 low): the ranking is cut into G = min(K, n) contiguous
 *      groups, group g(r) = floor(r G / n) for rank r of n jobs (group sizes differ by at
 *      most one; group 0 is never smaller than n / G), level = K-1-g(r) (EqualGroupLevel in
 *      comm-scheduler.h). With n <= K every job gets its own level, highest first.
 *      Decision::uniquePriorities is false.
 * [V5] No randomness (SchedulerConfig::seed is unused).
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief The effective bottleneck Γ_j of a job on given paths ([V1]).
 * \param model the cluster (bandwidths)
 * \param job the job
 * \param choice the chosen candidate per flow, indexed like job.flows
 * \return seconds (0 for a job without bytes)
 */
double VarysEffectiveBottleneck(const ClusterModel& model,
                                const SchedJob& job,
                                const PathChoice& choice);

/**
 * \ingroup crux-scheduling
 * \brief SEBF ranks on the decision's chosen paths ([V1], [V2]).
 *
 * Sets rank of every job (0 = smallest Γ). Levels are left untouched.
 * \param model the cluster
 * \param decision updated in place; flowPath must be complete
 */
void VarysAssignPriorities(const ClusterModel& model, Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Cuts the ranking into K equal contiguous groups ([V4]).
 *
 * Sets every job's level and uniquePriorities = false (CompressRanksToLevels with
 * RankLevelRule::EQUAL_GROUPS).
 * \param decision updated in place; ranks must be unique 0..n-1
 * \throws std::invalid_argument if decision.numLevels is 0
 */
void VarysCompressPriorities(Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Varys: ECMP default paths, SEBF order, K equal contiguous groups (Crux's Varys
 * baseline, §4.4 and Fig. 13).
 */
class VarysScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::VarysScheduler; no attributes: the algorithm has no knobs)
     */
    static TypeId GetTypeId();

    /// Named "varys"
    VarysScheduler();

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;
};

} // namespace ns3

#endif // CRUX_VARYS_SCHEDULER_H
