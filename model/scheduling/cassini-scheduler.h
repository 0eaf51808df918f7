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

#ifndef CRUX_CASSINI_SCHEDULER_H
#define CRUX_CASSINI_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

#include <map>
#include <vector>

/*
 * CASSINI (Rajasekaran et al., NSDI'24) as a Crux baseline (algorithms.md §5): interleave the
 * communication phases of jobs that share a link by delaying each job's iteration starts by a
 * time shift. One traffic class (every job level 0) and ECMP default paths.
 *
 *   MakeDefaultDecision        ECMP default paths, t_j                     (comm-scheduler.h)
 *   CassiniAssignTimeShifts    per-link compatibility + affinity-graph traversal -> timeShift
 *
 * The CASSINI paper text and code were not available (algorithms.md §5 is from memory and one
 * third-party re-implementation); the points below are our reading, labelled [D] there.
 *
 * [C1] Traffic pattern of job j (one iteration, period T_j = max(c_j, ov_j c_j + t_j), the
 *      stand-alone iteration time, t_j = commTime on the chosen paths or measuredCommTime):
 *      one "Up" arc starting ov_j c_j after the iteration start and lasting t_j, during which
 *      the job puts the constant rate bw_{j,e} = min(B_e, M_{j,e} × 8 / t_j) bit/s on each link
 *      e of its paths (all flows of a collective progress together, paced by the bottleneck);
 *      zero demand otherwise. Jobs with t_j = 0 or T_j = 0 get no pattern and shift 0.
 * [C2] Links considered: a link is "shared" if at least two jobs put bytes on it and the sum of
 *      their peak rates exceeds its bandwidth (otherwise no shift can matter there).
 * [C3] Unified circle of a link: tick = (longest T_j on the link) / binsPerIteration; periods
 *      p_j = max(1, round(T_j / tick)) ticks; perimeter P = lcm(p_j). If P exceeds
 *      maxPerimeterBins the tick is doubled (and the p_j recomputed) until it fits. A job's
 *      rotation only matters modulo p_j. Arc start round(ov_j c_j / tick), length
 *      max(1, round(t_j / tick)) ticks (at most p_j).
 * [C4] Compatibility of a link (CASSINI's score): Excess(α) = max(0, Σ_j bw_j(α - s_j) - B),
 *      score = 1 - Σ_α Excess(α) / (P B) (1 = the phases never oversubscribe the link).
 *      Shifts: greedy, as the third-party re-implementation: a base job at shift 0, the other
 *      jobs placed one by one (ascending id) at the shift in [0, p_j) that adds the least
 *      excess to the jobs already placed (ties -> smallest shift; costs within 1e-9 P B count
 *      as equal); every job is tried as the base (ascending id) and the highest score wins
 *      (ties -> the earlier base). Per-link shift t_j^l = s_j × tick seconds.
 * [C5] Affinity graph: bipartite, job vertices and shared-link vertices, an edge per (job,
 *      link) with the job on the link. Cycles are broken by a minimum spanning forest (BGL
 *      kruskal_minimum_spanning_tree) whose edge weights rank the edges by (score of the link
 *      ascending, link id, job id): the most contended links' constraints are kept first
 *      (algorithms.md §5.3, Crux's placement is fixed so CASSINI's loop-free placement choice
 *      does not apply).
 * [C6] Unique shifts: BGL breadth-first traversal of the forest from the smallest job id of each
 *      component (shift 0; no randomness, SchedulerConfig::seed is unused). Reaching job w over
 *      link l, entered from job u: t_w = (t_u - t_u^l + t_w^l) mod T_w (seconds, in [0, T_w)).
 *      On a forest every kept link constraint holds exactly (up to the tick rounding of [C3]).
 * [C7] Enforcement variant: "shift once" (JobDecision::timeShift). At the time T0 the decision
 *      is applied, each job's next iteration is held back to the first boundary
 *      T0 + timeShift + n T_j; later iterations run free, so the phases drift when contention
 *      or other jobs change the real iteration times - the weakness Crux §2/§6 points out in
 *      CASSINI. Alignment is restored only at the next decision (job arrival or departure).
 *      We do not hold every iteration to the grid: that would hide the drift Crux measures
 *      and is not what CASSINI's fixed offsets do between re-alignments.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Discretisation knobs of CASSINI's unified circle ([C3]).
 */
struct CassiniOptions
{
    /// Ticks per iteration of the longest-iteration job on a link (>= 1); 360 = one tick per
    /// degree of its circle (CASSINI draws each job's traffic pattern on a circle, [C3]).
    uint32_t binsPerIteration{360};
    /// Largest unified-circle perimeter in ticks (>= binsPerIteration); the tick is coarsened
    /// by factors of 2 until lcm(p_j) fits. Cost per link is O(jobs^2 × perimeter). With many
    /// jobs of unrelated iteration times on one link the tick gets coarse (e.g. 5 jobs with
    /// 0.1-0.6 s iterations: tick ≈ 47 ms); raise this bound for finer shifts. Default 16
    /// circles of 360 ticks: a cost bound (assumption), not a value from CASSINI.
    uint32_t maxPerimeterBins{360 * 16};
};

/**
 * \ingroup crux-scheduling
 * \brief One job's periodic traffic on one link ([C1]).
 */
struct CassiniPattern
{
    uint32_t jobId{0};      //!< job id
    double period{0};       //!< T_j, seconds (> 0)
    double commStart{0};    //!< start of the Up arc after the iteration start, seconds (>= 0)
    double commDuration{0}; //!< length of the Up arc, seconds (> 0)
    double demand{0};       //!< rate during the Up arc, bit/s (>= 0)
};

/**
 * \ingroup crux-scheduling
 * \brief Result of the compatibility optimisation of one link ([C3], [C4]).
 */
struct CassiniLinkResult
{
    double tick{0};            //!< seconds per tick of the unified circle
    uint64_t perimeterBins{0}; //!< P, ticks (the unified circle is P × tick seconds)
    /// compatibility score at the chosen shifts (<= 1; negative when the mean excess exceeds B)
    double score{1};
    uint32_t baseJob{0};              //!< the job fixed at shift 0
    std::map<uint32_t, double> shift; //!< job id -> t_j^l, seconds in [0, T_j)
};

/**
 * \ingroup crux-scheduling
 * \brief Optimises the relative shifts of the jobs sharing one link ([C3], [C4]).
 * \param jobs the jobs' patterns on the link (at least one; job ids unique)
 * \param capacity the link bandwidth B, bit/s (> 0)
 * \param options discretisation
 * \return tick, perimeter, score and one shift per job
 * \throws std::invalid_argument for an empty job list, a duplicate id, a non-positive period,
 *         capacity or commDuration, a negative commStart or demand, or invalid options
 */
CassiniLinkResult CassiniLinkCompatibility(const std::vector<CassiniPattern>& jobs,
                                           double capacity,
                                           const CassiniOptions& options);

/**
 * \ingroup crux-scheduling
 * \brief Sets every job's timeShift from the per-link compatibility and the affinity-graph
 * traversal ([C1]-[C6]) on the decision's chosen paths and commTime.
 * \param model the cluster
 * \param options discretisation
 * \param decision updated in place (timeShift of every job); flowPath and commTime must be set
 * \param links if not null, receives the result of every shared link (link id -> result)
 * \throws std::invalid_argument for invalid options
 */
void CassiniAssignTimeShifts(const ClusterModel& model,
                             const CassiniOptions& options,
                             Decision& decision,
                             std::map<uint32_t, CassiniLinkResult>* links = nullptr);

/**
 * \ingroup crux-scheduling
 * \brief CASSINI: ECMP default paths, one traffic class, per-job time shifts (Crux's CASSINI
 * baseline, §6.3). Attributes BinsPerIteration and MaxPerimeterBins are the CassiniOptions.
 */
class CassiniScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CassiniScheduler)
     */
    static TypeId GetTypeId();

    /// Named "cassini"
    CassiniScheduler();

    /// \return the discretisation as set by the attributes
    CassiniOptions GetOptions() const;

  protected:
    /// \throws std::invalid_argument if MaxPerimeterBins < BinsPerIteration
    void DoInitialize() override;
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;

  private:
    uint32_t m_binsPerIteration{CassiniOptions().binsPerIteration}; //!< see CassiniOptions
    uint32_t m_maxPerimeterBins{CassiniOptions().maxPerimeterBins}; //!< see CassiniOptions
};

} // namespace ns3

#endif // CRUX_CASSINI_SCHEDULER_H
