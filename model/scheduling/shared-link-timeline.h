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

#ifndef CRUX_SHARED_LINK_TIMELINE_H
#define CRUX_SHARED_LINK_TIMELINE_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "ns3/cluster-model.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief One communication phase of a TimelineJob (a SchedPhase seen on the shared link): it
 * starts at max(iteration start + release, end of each dependency + lag) and needs linkTime
 * seconds of the link.
 */
struct TimelinePhase
{
    double release{0};               //!< seconds after the iteration start (>= 0)
    std::vector<SchedPhaseDep> deps; //!< earlier phases of the job (index < own index)
    double linkTime{0};              //!< seconds of exclusive link time (>= 0)
};

/**
 * \ingroup crux-scheduling
 * \brief One job of the two-job shared-link timeline (Crux §4.2, Figs. 11-12).
 *
 * The job repeats iterations: computation of computeTime seconds starting at the iteration
 * start; its communication becomes ready overlapStart × computeTime seconds after the
 * iteration start and needs commTime seconds of exclusive use of the link (the link has unit
 * bandwidth: the job's whole per-iteration traffic takes commTime when it has the link to
 * itself); the next iteration starts as soon as both are done.
 *
 * With phases (the job's communication timeline, SchedJob::phases) the communication is the
 * phases instead (their linkTime adds up to commTime); the iteration ends when the compute span
 * max(computeTime, span), every phase and every endDeps lag are over. Among the ready phases of
 * one job the link serves the lowest index first.
 */
struct TimelineJob
{
    double computeTime{0};       //!< c_x, seconds per iteration (>= 0)
    double commTime{0};          //!< t_x, seconds of link time per iteration (>= 0)
    double overlapStart{1};      //!< fraction 0..1 of the computation before the comm may start
    uint32_t numGpus{1};         //!< GPUs of the job (weights the utilization)
    double flopsPerIteration{0}; //!< W_x, FLOPs per iteration (for completedFlops)
    std::vector<TimelinePhase> phases;  //!< communication phases (empty = the classic one)
    std::vector<SchedPhaseDep> endDeps; //!< phases the iteration end waits for (with phases)
    double span{0};                     //!< compute-only span, s (with phases; 0 = computeTime)
};

/**
 * \ingroup crux-scheduling
 * \brief What happened on the shared link over the horizon [0, H]. Index 0/1 = job 0/1.
 */
struct TimelineResult
{
    std::array<double, 2> sendTime{};              //!< S_x: seconds the link sent job x's data
    std::array<uint64_t, 2> completedIterations{}; //!< iterations (compute and comm) finished
    std::array<double, 2> gpuBusySeconds{};        //!< numGpus × c_x × completed iterations
    std::array<double, 2> completedFlops{};        //!< W_x × completed iterations, FLOPs
    double utilization{0}; //!< Σ gpuBusySeconds / (Σ numGpus × H): GPU utilization (Def. 1)
    uint64_t events{0};    //!< number of simulation steps taken (for cost accounting)
};

/**
 * \ingroup crux-scheduling
 * \brief How SimulateSharedLink covers the horizon.
 */
enum class SharedLinkRun
{
    /// Every event up to the horizon (the reference for cross-checks).
    FULL,
    /// Every event until the run is periodic, then whole periods skipped (the default).
    /// The high-priority job runs as if alone, so its link use repeats with its stand-alone
    /// iteration; the other job's state at the start of each of its iterations is then given
    /// by one number, the offset into the high-priority job's current iteration. When that
    /// offset recurs (within a relative 1e-12 of the high-priority iteration and 64 units in
    /// the last place of the time) and every iteration start of one more whole period recurs
    /// with the same length and iterations, the run is periodic: as many whole periods as fit
    /// before the horizon, less one, are added (link time, iterations) instead of simulated,
    /// and the rest is simulated. Results agree with FULL up to rounding except on inputs at
    /// the resolution of floating point (a phase exactly filling a gap of the other job's, a
    /// drift of a few ulps per period), where either mode can be off by whole iterations; the
    /// events taken are bounded by the transient plus three periods, not by the horizon.
    SKIP_PERIODS,
};

/**
 * \ingroup crux-scheduling
 * \brief Exact event-driven fluid simulation of two jobs alone on one link with preemptive
 * strict priority (the two-timeline comparison of Crux §4.2 / algorithms.md §2.3).
 *
 * Both jobs start their first iteration at t = 0. At every instant the link sends the data of
 * the high-priority job if it has ready, unsent data, else that of the other job, else idles.
 * GPU utilization counts the computation of completed iterations only (Crux Definition 1: "the
 * computation the GPUs completed"); with this rule Crux's Example 1 gives 37.5 % / 41.7 %.
 * An iteration that finishes within a relative 1e-9 of the horizon counts as finished.
 *
 * \param jobs the two jobs
 * \param highPriority index (0 or 1) of the job with strict priority
 * \param horizon H in seconds (> 0)
 * \param run FULL (every event) or SKIP_PERIODS (periodic regime extrapolated; the default)
 * \return per-job link time, completed iterations, utilization
 * \throws std::invalid_argument for a negative/non-finite time, overlapStart outside [0, 1],
 *         a job with computeTime = commTime = 0, highPriority > 1 or horizon <= 0
 * \throws std::runtime_error if more than 10^8 steps would be needed
 */
TimelineResult SimulateSharedLink(const std::array<TimelineJob, 2>& jobs,
                                  uint32_t highPriority,
                                  double horizon,
                                  SharedLinkRun run = SharedLinkRun::SKIP_PERIODS);

} // namespace ns3

#endif // CRUX_SHARED_LINK_TIMELINE_H
