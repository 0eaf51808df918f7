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

#ifndef CRUX_SINCRONIA_SCHEDULER_H
#define CRUX_SINCRONIA_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

#include <map>
#include <vector>

/*
 * Sincronia (Agarwal et al., SIGCOMM'18) as a Crux baseline (algorithms.md §3).
 *
 *   MakeDefaultDecision            ECMP default paths                    (comm-scheduler.h)
 *   SincroniaAssignPriorities      BSSI order over the jobs' per-link loads -> rank
 *   SincroniaCompressPriorities    the top K-1 ranks get their own level, the rest level 0
 *
 * Design decisions (algorithms.md labels them [D]):
 *
 * [S1] Coflow = one iteration of one job; its demand on link e is the time
 *      d_j^e = M_{j,e} × 8 / B_e seconds (bytes per iteration on the chosen paths over the link
 *      bandwidth), so links of different speeds compare (algorithms.md §3, "adapting"). Every
 *      directed link of the model is a "port" (no big-switch assumption). measuredCommTime is
 *      not used: Sincronia knows flow sizes, not profiled times. Weights w_j = 1.
 * [S2] BSSI (Sincronia Algorithm 1, primal-dual weight-scaling form), from last to first:
 *      bottleneck b = argmax_e Σ_{unordered j} d_j^e; s = argmin_{j: d_j^b > 0} w_j / d_j^b goes
 *      last among the unordered jobs; every other unordered job pays
 *      w_j -= w_s d_j^b / d_s^b (values below 1e-12 × the largest initial weight are set to
 *      0, so that rounding does not break the exact-arithmetic ties of the algorithm).
 * [S3] Tie-breaks (deterministic, independent of the order of ClusterModel::jobs):
 *      bottleneck loads equal within a relative 1e-12 -> the lowest link id (as the authors'
 *      simulator's strict scan); ratios equal within a relative 1e-12 -> the job with the larger
 *      id goes last, i.e. among tied jobs the smaller id (earlier arrival) is served first.
 *      (The authors' simulator sends the lowest coflow index last; we prefer FIFO among ties,
 *      the convention of the other baselines.)
 * [S4] Jobs that put no bytes on any link never constrain a bottleneck; they are placed first,
 *      in ascending id (they finish instantly, which BSSI's "largest work last" also implies).
 * [S5] Rank r = position in the BSSI order (0 = first = highest priority). Limited levels by
 *      Sincronia's own rule (the authors' scheduler/main.cpp: level = max(7-r, 0) on their 8
 *      levels, i.e. max(K-1-r, 0)): the top K-1 jobs each get a level K-1, K-2, ..., 1 and every
 *      later job shares level 0 (numerically the same mapping as AssignLevelsByRank). With
 *      K = 1 every job is at level 0; with K = 2 only the first job is high (Crux Fig. 13).
 *      Decision::uniquePriorities is false: the levels are the scheduler's own output.
 * [S6] Offline, one-shot: the order is recomputed from full per-iteration loads at every
 *      scheduling event (job arrival/departure, Crux §5); the online epochs and LP admission
 *      of Sincronia §3.3 are not modelled. No randomness (SchedulerConfig::seed is unused).
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief The BSSI ordering of Sincronia (Algorithm 1; [S2]-[S4] in sincronia-scheduler.h).
 *
 * \param ids job ids, one per job (unique); used for the tie-break [S3]
 * \param loads loads[i] = per-link demand of job ids[i]: link id -> seconds of link time
 *        (>= 0); the map may be empty
 * \param weights weights[i] = w of job ids[i] (> 0); empty = all weights 1
 * \return the job ids in BSSI order, first (highest priority) first
 * \throws std::invalid_argument if the sizes differ, an id repeats, a load is negative or not
 *         finite, or a weight is not a finite positive number
 */
std::vector<uint32_t> SincroniaBssiOrder(const std::vector<uint32_t>& ids,
                                         const std::vector<std::map<uint32_t, double>>& loads,
                                         const std::vector<double>& weights = {});

/**
 * \ingroup crux-scheduling
 * \brief Per-link demand of a job in seconds, d_j^e = M_{j,e} × 8 / B_e ([S1]).
 * \param model the cluster (bandwidths)
 * \param job the job
 * \param choice the chosen candidate per flow, indexed like job.flows
 * \return link id -> seconds per iteration; links with 0 bytes are left out
 */
std::map<uint32_t, double> JobLinkTimes(const ClusterModel& model,
                                        const SchedJob& job,
                                        const PathChoice& choice);

/**
 * \ingroup crux-scheduling
 * \brief Sets a unique rank per job from the BSSI order on the decision's chosen paths ([S5]).
 *
 * Levels are left untouched (SincroniaCompressPriorities).
 * \param model the cluster
 * \param decision updated in place (rank of every job); flowPath must be complete
 */
void SincroniaAssignPriorities(const ClusterModel& model, Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Sincronia's limited-levels rule ([S5]): level = K-1-rank for rank < K-1, else 0.
 *
 * Sets uniquePriorities = false (CompressRanksToLevels with RankLevelRule::TOP_RANKS).
 * \param decision updated in place; ranks must be set, numLevels >= 1
 * \throws std::invalid_argument if decision.numLevels is 0
 */
void SincroniaCompressPriorities(Decision& decision);

/**
 * \ingroup crux-scheduling
 * \brief Sincronia: ECMP default paths, BSSI order, top K-1 jobs on their own levels
 * (Crux's Sincronia baseline, §4.4 and §6.3).
 */
class SincroniaScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::SincroniaScheduler; no attributes: the algorithm has no
     * knobs)
     */
    static TypeId GetTypeId();

    /// Named "sincronia"
    SincroniaScheduler();

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;
};

} // namespace ns3

#endif // CRUX_SINCRONIA_SCHEDULER_H
