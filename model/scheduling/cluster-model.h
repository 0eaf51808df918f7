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

#ifndef CRUX_CLUSTER_MODEL_H
#define CRUX_CLUSTER_MODEL_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "ns3/crux-types.h"
#include "ns3/gpu-intensity.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \defgroup crux-scheduling Crux scheduling layer (pure C++)
 *
 * The communication schedulers (Crux and its baselines) over a small, ns-3-independent
 * description of the cluster: directed links with bandwidths, DLT jobs with their per-iteration
 * computation and their flows with equal-cost candidate paths. A scheduler returns a Decision
 * (one candidate path per flow, one priority level per job). Nothing here calls the Simulator;
 * the helper layer translates a Decision into UDP source ports / routes and DSCP values.
 */

// SchedLink (one directed link: bandwidth in bit/s, name): ns3/crux-types.h, shared with
// ClusterTopology.

/**
 * \ingroup crux-scheduling
 * \brief One flow (RoCE connection / queue pair) of a job, carrying the same bytes every
 * iteration over one of its equal-cost candidate paths.
 */
struct SchedFlow
{
    uint32_t id{0};              //!< flow id, unique within its job (the transport's flowId)
    double bytesPerIteration{0}; //!< bytes the flow sends per training iteration (>= 0)
    /**
     * Equal-cost candidate paths (ECMP choices), non-empty. candidatePaths[p] is the ordered
     * list of link ids (indices into ClusterModel::links) that path p traverses. An empty path
     * is allowed and means "uses no modelled link" (it adds no load anywhere).
     */
    std::vector<std::vector<uint32_t>> candidatePaths;
    uint32_t defaultPath{0}; //!< index into candidatePaths of the path plain ECMP hashing gives
};

/**
 * \ingroup crux-scheduling
 * \brief A dependency of a communication phase (or of the iteration end) on an earlier phase
 * of the same job: the dependant may start no earlier than lag seconds after the phase ends.
 *
 * lag is the computation that lies between the two on the job's critical path (e.g. the next
 * micro-batch's compute after a pipeline receive; 0 for gradient buckets that queue behind the
 * previous bucket on one NCCL stream).
 */
struct SchedPhaseDep
{
    uint32_t phase{0}; //!< index into SchedJob::phases (smaller than the dependant's index)
    double lag{0};     //!< seconds (>= 0)
};

/**
 * \ingroup crux-scheduling
 * \brief One communication phase of a job's iteration timeline: transfers released together.
 *
 * In an iteration that starts at T0 the phase starts at
 * max(T0 + release, max over deps d of (end of phase d + d.lag)); it then starts one fluid
 * transfer per entry of transfers and ends when all of them have finished (at once if it has
 * none). release is the phase's start when every transfer takes no time (the compute-only
 * schedule), so a phase that only waits for compute starts at T0 + release and one whose
 * dependencies were slowed by the network starts later by that much (minus the slack).
 */
struct SchedPhase
{
    double release{0};               //!< seconds after the iteration start (>= 0)
    std::vector<SchedPhaseDep> deps; //!< earlier phases it waits for
    std::vector<uint32_t> flows;     //!< indices into SchedJob::flows (distinct)
    std::vector<double> bytes;       //!< bytes per entry of flows (>= 0), same size
};

/**
 * \ingroup crux-scheduling
 * \brief One deep-learning-training job as the schedulers see it (algorithms.md §1).
 *
 * An iteration is: computation of computeTime seconds; communication may start after
 * overlapStart × computeTime seconds; the next iteration starts when both are finished.
 *
 * **Communication timeline** (optional, issue 11): when phases is non-empty the iteration is
 * instead the phases (see SchedPhase) on top of a compute-only span of `span` seconds
 * (iteration start to the end of its last computation when every transfer takes no time; 0 =
 * computeTime): the iteration ends at max(T0 + max(computeTime, span), the end of every phase,
 * end of phase d + d.lag for every d of endDeps). Each flow's bytes over all phases add up to
 * its bytesPerIteration (the per-link view, I_j and t_j, is unchanged). An empty phases list
 * is the classic model: one phase released at overlapStart × computeTime carrying every flow's
 * bytesPerIteration (EffectivePhases()). overlapStart stays set (the first release over
 * computeTime) for the schedulers that only read it (CASSINI's commStart).
 */
struct SchedJob
{
    uint32_t id{0};               //!< job id, unique in the model
    double flopsPerIteration{0};  //!< W_j: FLOPs the whole job computes per iteration (>= 0)
    double computeTime{0};        //!< c_j: computation time per iteration in seconds (>= 0)
    double overlapStart{1};       //!< fraction 0..1 of the computation after which the
                                  //!< communication may start (1 = no overlap)
    uint32_t numGpus{1};          //!< number of GPUs of the job (>= 1)
    std::vector<SchedFlow> flows; //!< the job's inter-GPU flows (may be empty)
    /**
     * Optional per-iteration communication time t_j in seconds measured by profiling the job
     * alone at the highest priority (Crux §5). 0 means "use the analytic t_j = max_e M_{j,e}/B_e
     * on the chosen paths".
     */
    double measuredCommTime{0};
    /// The iteration's communication phases (empty = one phase at overlapStart × computeTime).
    std::vector<SchedPhase> phases;
    /// Phases the iteration end waits for with a lag (computation after them); with phases only.
    std::vector<SchedPhaseDep> endDeps;
    /// Compute-only iteration span in seconds (>= 0; 0 = computeTime); with phases only.
    double span{0};
};

/**
 * \ingroup crux-scheduling
 * \brief The scheduler's whole input: the links and the concurrently running jobs.
 */
struct ClusterModel
{
    std::vector<SchedLink> links; //!< directed links; link id = index
    std::vector<SchedJob> jobs;   //!< running jobs (any order; ids unique)
};

/**
 * \ingroup crux-scheduling
 * \brief The per-call input of a scheduler besides the model: properties of the cluster and of
 * the run, the same for every scheduler. A scheduler's own knobs are Attributes of the scheduler
 * or of its stage objects (e.g. ns3::CruxMaxKCutCompression::TopoOrderSamples), not fields here.
 */
struct SchedulerConfig
{
    /// K: number of priority levels (traffic classes) available; levels are 0..K-1 and K-1 is
    /// the highest priority. Crux's simulator uses 8 (Crux §6.1), the §4.4 microbenchmark 3.
    uint32_t numLevels{8};
    /// Seed of every random choice of the run (e.g. the random topological orders of Crux
    /// §4.3); schedulers without randomness ignore it.
    uint64_t seed{1};
};

/**
 * \ingroup crux-scheduling
 * \brief What a scheduler decided for one job.
 */
struct JobDecision
{
    uint32_t level{0}; //!< priority level 0..numLevels-1 (K-1 highest); DSCP = 8 × level
    /**
     * Position in the scheduler's priority order, 0 = highest. Unique per job when
     * Decision::uniquePriorities is true; schedulers without an order (ecmp) give every job 0.
     */
    uint32_t rank{0};
    double priorityScore{0}; //!< P_j = k_j × I_j (Crux §4.2), FLOPs/s; 0 if not computed
    double intensity{0};     //!< I_j = W_j / t_j on the chosen paths, FLOPs/s (Crux §3)
    double k{1};             //!< correction factor k_j (dimensionless, Crux §4.2)
    double commTime{0};      //!< t_j on the chosen paths (or measured), seconds per iteration
    std::map<uint32_t, uint32_t> flowPath; //!< flow id -> chosen index into candidatePaths
    /**
     * Time shift in seconds (>= 0, < the job's stand-alone iteration time) by which the job's
     * iteration starts are delayed; only CASSINI sets it (0 for every other scheduler).
     *
     * Meaning: with T0 the time the decision is applied (a common epoch for all jobs) and
     * T_j = max(c_j, ov_j c_j + commTime) the job's stand-alone iteration time, the job's
     * iteration boundaries are aligned to T0 + timeShift + n T_j. Enforcement variant
     * (cassini-scheduler.h [C7]): the shift is applied once per decision - the job's next
     * iteration after T0 is held back to the first such boundary, later iterations run
     * free (drift is not corrected until the next decision, i.e. the next job arrival or
     * departure).
     */
    double timeShift{0};
};

/**
 * \ingroup crux-scheduling
 * \brief A scheduler's output: per job a level and per flow a path.
 *
 * Shape: jobs has exactly one entry per job of the model, keyed by SchedJob::id; each entry's
 * flowPath has one entry per flow of that job, keyed by SchedFlow::id.
 */
struct Decision
{
    std::string scheduler; //!< name of the scheduler that produced it
    uint32_t numLevels{1}; //!< K the decision was made for
    /// true if the scheduler meant one unique priority per job (JobDecision::rank). Consumers
    /// that support unlimited priorities (flow-level transport) should then use rank; level is
    /// the K-class hardware rendering.
    bool uniquePriorities{false};
    uint32_t referenceJob{0}; //!< id of the k = 1 reference job (Crux §4.2; crux-* only)
    double compressionCut{0}; //!< DAG max K-cut objective reached (Crux §4.3); 0 if unused
    std::map<uint32_t, JobDecision> jobs; //!< job id -> decision

    /**
     * \param jobId a job id of the model
     * \return the job's priority level
     * \throws std::out_of_range if the job is unknown
     */
    uint32_t LevelOf(uint32_t jobId) const;
    /**
     * \param jobId a job id of the model
     * \param flowId a flow id of that job
     * \return the chosen candidate path index of the flow
     * \throws std::out_of_range if the job or flow is unknown
     */
    uint32_t PathOf(uint32_t jobId, uint32_t flowId) const;
    /// \return job ids sorted by (rank, job id): highest priority first
    std::vector<uint32_t> PriorityOrder() const;
};

/// \return true if both decisions are identical field by field (doubles compared exactly)
bool operator==(const JobDecision& a, const JobDecision& b);
/// \return true if both decisions are identical field by field (doubles compared exactly)
bool operator==(const Decision& a, const Decision& b);

/**
 * \ingroup crux-scheduling
 * \brief Per-link load of one job: link id -> bytes per iteration (M_{j,e}, algorithms.md §1).
 */
using LinkLoad = std::map<uint32_t, double>;

/**
 * \ingroup crux-scheduling
 * \brief A path choice for one job: element f is the chosen candidate index of job.flows[f].
 */
using PathChoice = std::vector<uint32_t>;

/**
 * \param job a job
 * \return the ECMP default choice (each flow's defaultPath), indexed like job.flows
 */
PathChoice DefaultPathChoice(const SchedJob& job);

/**
 * \brief M_{j,e}: bytes per iteration the job puts on each link for a path choice.
 * \param job the job
 * \param choice chosen candidate per flow, indexed like job.flows
 * \return link id -> bytes per iteration; only links on a chosen path appear
 * \throws std::invalid_argument if choice has the wrong size or an index out of range
 */
LinkLoad JobLinkBytes(const SchedJob& job, const PathChoice& choice);

/**
 * \brief Analytic per-iteration communication time t_j = max_e M_{j,e} × 8 / B_e (Crux §3):
 * BusiestLinkTime (ns3/gpu-intensity.h) on the job's per-link bytes.
 * \param model the model (for link bandwidths)
 * \param load the job's per-link bytes (JobLinkBytes)
 * \return seconds; 0 if the job puts no bytes on any link
 */
double AnalyticCommTime(const ClusterModel& model, const LinkLoad& load);

/**
 * \brief The job's t_j: measuredCommTime if > 0, else AnalyticCommTime on the given paths.
 * \param model the model
 * \param job the job
 * \param choice chosen candidate per flow, indexed like job.flows
 * \return seconds per iteration
 */
double JobCommTime(const ClusterModel& model, const SchedJob& job, const PathChoice& choice);

// GpuIntensity(W_j, t_j): ns3/gpu-intensity.h (the one definition, shared with the tracker).

/**
 * \brief Stand-alone iteration time max(c_j, ov_j × c_j + t_j) (algorithms.md §1).
 *
 * With phases (SchedJob), the timeline run alone with each phase taking
 * t_j × (its bytes / the job's bytes per iteration) seconds after its start, the phases of one
 * job not slowing each other (the phase graph's longest path; for one phase it is the formula
 * above with overlapStart × computeTime replaced by the phase's release).
 * \param job the job (computeTime, overlapStart, phases)
 * \param commTime t_j in seconds
 * \return seconds
 */
double StandaloneIterationTime(const SchedJob& job, double commTime);

/**
 * \brief The job's iteration timeline as phases: SchedJob::phases, or for a job without phases
 * the classic one (release overlapStart × computeTime, every flow with its bytesPerIteration,
 * no dependencies).
 * \param job the job
 * \return the phases
 */
std::vector<SchedPhase> EffectivePhases(const SchedJob& job);

/**
 * \brief The iteration end's dependencies of EffectivePhases(): SchedJob::endDeps, or for a job
 * without phases {phase 0, lag 0}.
 * \param job the job
 * \return the dependencies
 */
std::vector<SchedPhaseDep> EffectiveEndDeps(const SchedJob& job);

/**
 * \brief Checks a model and a configuration before scheduling.
 *
 * Rejects: numLevels = 0; an empty job set; a link
 * bandwidth that is not a finite positive number; duplicate job ids; a negative or non-finite
 * flopsPerIteration, computeTime or measuredCommTime; overlapStart outside [0, 1]; numGpus = 0;
 * duplicate flow ids within a job; a negative or non-finite bytesPerIteration; a flow without
 * candidate path; a path that references an unknown link id; defaultPath out of range; a phase
 * with a negative or non-finite release, a dependency on itself or a later phase, a negative
 * lag, a flow index out of range or repeated, a bytes list of another size or a negative byte
 * count; per-flow phase bytes that do not add up to bytesPerIteration (relative 1e-6); endDeps
 * or span without phases.
 * \param model the cluster
 * \param config the scheduler configuration
 * \throws std::invalid_argument with a message naming the offending field
 */
void Validate(const ClusterModel& model, const SchedulerConfig& config);

} // namespace ns3

#endif // CRUX_CLUSTER_MODEL_H
