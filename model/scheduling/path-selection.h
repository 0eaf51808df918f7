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

#ifndef CRUX_PATH_SELECTION_H
#define CRUX_PATH_SELECTION_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief The path-selection stage (Crux §4.1): one candidate path per flow. Abstract base of the
 * stage objects that ns3::CruxScheduler runs first (its Attribute PathSelection) and that
 * ns3::TacclScheduler runs for TACCL*'s routing.
 *
 * Extension point, in the manner of ns-3's TcpCongestionOps: derive, give the class a TypeId
 * (SetParent<CruxPathSelection>(), AddConstructor, your own Attributes) and set
 * ns3::CruxScheduler::PathSelection to that TypeId (registry preset or override, or
 * Config::SetDefault / --ns3::CruxScheduler::PathSelection=ns3::MyPaths); the other stages of
 * the scheduler run unchanged.
 *
 * An implementation is deterministic (same model, config and attribute values, same paths), keeps
 * no state between calls (SelectPaths is const; the scheduler calls it once per Schedule()) and
 * never calls the ns-3 Simulator.
 */
class CruxPathSelection : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxPathSelection; abstract, no constructor)
     */
    static TypeId GetTypeId();

    ~CruxPathSelection() override;

    /**
     * \brief Chooses the path of every flow.
     * \param model the cluster (already validated by CommScheduler::Schedule)
     * \param config K and the seed of the run (a randomised selection draws from config.seed
     *        only, to stay deterministic)
     * \param decision in: MakeDefaultDecision's decision (ECMP default paths; t_j, I_j on them);
     *        out: flowPath of every flow of every job set to one of the flow's candidate
     *        indices, commTime (t_j, seconds) and intensity (I_j, FLOP/s) recomputed on the
     *        chosen paths (UpdateIntensities). Ranks, levels and k are left to the later stages.
     */
    virtual void SelectPaths(const ClusterModel& model,
                             const SchedulerConfig& config,
                             Decision& decision) const = 0;
};

/**
 * \ingroup crux-scheduling
 * \brief Greedy least-congested path per flow, jobs in a given order
 * (ns3::CruxLeastCongestedPaths): Crux's path selection (§4.1, [D1], [D2] in
 * crux-scheduler.h) and, with JobOrder = Arrival, TACCL*'s ([T1], [T2] in taccl-scheduler.h);
 * the two differ only in the job order.
 *
 * Visits the jobs in the order of the Attribute JobOrder and, inside a job, its flows in the
 * order of SchedJob::flows. Each flow f gets the candidate path p with the smallest
 * max_{e ∈ p} (L_e + x_f)·8/B_e, where L_e is the bytes/iteration already placed on link e by
 * earlier jobs and earlier flows of the same job, x_f the flow's bytes/iteration and B_e the
 * link bandwidth (bit/s); ties (relative 1e-12) go to the smaller Σ_{e ∈ p} L_e·8/B_e, then to
 * the lower candidate index. An empty path costs 0. Afterwards commTime and intensity of every
 * job are recomputed on the chosen paths (a job with measuredCommTime > 0 keeps it, [D2]).
 *
 * Attribute JobOrder: GpuIntensity (default; Crux §4.1: decreasing I_j as found in the decision
 * it gets, i.e. on the ECMP default paths, ties by smaller job id) or Arrival (TACCL*:
 * ascending job id, the submission order).
 */
class CruxLeastCongestedPaths : public CruxPathSelection
{
  public:
    /// The order in which jobs pick their paths (Attribute JobOrder).
    enum JobOrder
    {
        GPU_INTENSITY, //!< "GpuIntensity": decreasing I_j, ties by smaller job id (Crux §4.1)
        ARRIVAL        //!< "Arrival": ascending job id (TACCL*, [T1] in taccl-scheduler.h)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxLeastCongestedPaths, Attribute JobOrder)
     */
    static TypeId GetTypeId();

    /**
     * \brief Least-congested candidate per flow, jobs in JobOrder (see the class).
     * \param model the cluster (validated)
     * \param config unused (no randomness)
     * \param decision in: intensities to order the jobs by (GpuIntensity); out: flowPath of
     *        every flow, commTime and intensity on the chosen paths
     * \throws std::out_of_range if a job of the model has no entry in decision.jobs
     */
    void SelectPaths(const ClusterModel& model,
                     const SchedulerConfig& config,
                     Decision& decision) const override;

  private:
    // Initialised to the default also for instances not made by CreateObject (e.g. Python).
    JobOrder m_jobOrder{GPU_INTENSITY}; //!< order in which jobs pick their paths
};

/**
 * \ingroup crux-scheduling
 * \brief No path selection (ns3::CruxDefaultPaths): every flow keeps its ECMP default path
 * (SchedFlow::defaultPath), as in Crux-PA of §6.3. No Attributes.
 */
class CruxDefaultPaths : public CruxPathSelection
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::CruxDefaultPaths)
     */
    static TypeId GetTypeId();

    /**
     * \brief Sets every flowPath to the flow's defaultPath and recomputes commTime and
     * intensity on those paths (the values MakeDefaultDecision gives).
     * \param model the cluster (validated)
     * \param config unused
     * \param decision updated in place
     */
    void SelectPaths(const ClusterModel& model,
                     const SchedulerConfig& config,
                     Decision& decision) const override;
};

} // namespace ns3

#endif // CRUX_PATH_SELECTION_H
