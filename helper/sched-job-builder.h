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

#ifndef CRUX_SCHED_JOB_BUILDER_H
#define CRUX_SCHED_JOB_BUILDER_H

#include "comm-timeline.h"

#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Fills the path part of one scheduler flow: SchedFlow::candidatePaths (non-empty list of
 * link-id lists) and SchedFlow::defaultPath (index of the path plain ECMP gives the flow).
 *
 * Called once per inter-host flow of a job, in flow-id order, with the job's DltCommFlow and
 * the SchedFlow whose id and bytesPerIteration are already set. May throw to reject the flow.
 */
typedef std::function<void(const DltCommFlow& flow, SchedFlow& sf)> SchedFlowPathFiller;

/**
 * \ingroup crux
 * \brief The scheduler's view (SchedJob, Crux §3 job model) of a DLT job: the one conversion used
 * by every driver (CruxExperiment on a CruxTopology, the cluster runs on a ClusterTopology), so
 * that the scheduler's flow ids are exactly the transport's MessageRequest::flowId values.
 *
 * Fields: id, flopsPerIteration (W_j), computeTime (c_j = DltJob::ComputeSpan(): the compute
 * time, with a plan × (m + p − 1)/m for the 1F1B bubble), numGpus from the job. One SchedFlow
 * per DltJob::CommunicationPattern() flow (every inter-host connection of the job: DP, and with
 * a plan PP, EP and cross-host TP too), in flow-id order: id = DltCommFlow::flowId,
 * bytesPerIteration = DltCommFlow::bytesPerIteration, paths by \p fillPaths. The communication
 * timeline (phases, endDeps, span) by AddCommTimeline() with the NVLink rate and latency of the
 * ns3::FlowTransport attribute defaults; a timeline of one phase without end lag is the classic
 * model (phases left empty). overlapStart: without a plan o + (1 − o)/B (o =
 * DltJob::overlapStart, B = numBuckets: the first bucket's release, 1 for a single bucket);
 * with a plan the first phase's release over c_j. measuredCommTime is left 0 (the caller sets
 * a profiled value).
 *
 * \param job the job (validated by CommunicationPattern())
 * \param fillPaths fills candidatePaths and defaultPath of each flow (must not be null)
 * \param granularity the timeline's phases (AddCommTimeline())
 * \return the scheduler job
 * \throws std::invalid_argument if the job is invalid or fillPaths is null; whatever fillPaths
 *         throws
 */
SchedJob MakeSchedJob(const DltJob& job,
                      const SchedFlowPathFiller& fillPaths,
                      TimelineGranularity granularity = TimelineGranularity::STEP);

/**
 * \ingroup crux
 * \brief MakeSchedJob() on a ClusterTopology: candidate paths =
 * ClusterTopology::EqualCostPaths(src host, src GPU, dst host, dst GPU, maxPaths) of each flow,
 * default path = EcmpPathIndex(ecmpSeed, job.id, flowId, number of candidates).
 *
 * LiveClusterFabric routes a job's flows by exactly these lists before any decision is applied,
 * so a ClusterModel built from these SchedJobs describes the fabric's ECMP state.
 *
 * \param job the job; its GPUs are (host index, local GPU) of \p topo
 * \param topo the topology
 * \param ecmpSeed seed of the ECMP hash (EcmpPathIndex)
 * \param maxPaths cap on the candidate paths per flow (>= 1)
 * \return the scheduler job
 * \throws std::invalid_argument naming the job and field if a GPU is not in the topology
 *         (host >= NumHosts() or localGpu >= gpusPerHost), if two hosts of the job are not
 *         connected, if maxPaths is 0 or the job is invalid
 */
SchedJob MakeClusterSchedJob(const DltJob& job,
                             const ClusterTopology& topo,
                             uint64_t ecmpSeed,
                             uint32_t maxPaths = 64);

/**
 * \ingroup crux
 * \brief Memo of MakeSchedJob() (the SchedJob of Crux §3's job model) over jobs that are one
 * job on other hosts: a trace run builds
 * thousands of jobs from a few models and GPU layouts, and each MakeSchedJob() builds the
 * iteration's CommDag twice (DltJob::CommunicationPattern(), AddCommTimeline()).
 *
 * A job's DAG sees its hosts only through "same host or not" (CommDag::Connection::interHost,
 * the collectives' host groups) and its rank order (TrainingIteration::RankGpus(): hosts in
 * order of first appearance in gpus, each host's GPUs sorted), and its local GPUs only through
 * that order and the NICs they use (CollectiveHardware::NicOf(): which GPUs share a NIC and the
 * NICs' order, the NCCL rings' and trees' entry and exit GPUs). Two jobs with the same
 * modelName and the same layout (LayoutKey(): per rank its host's position in that order and
 * its NIC's position among the NICs its host's ranks use) therefore have the same connections,
 * bytes, phases, end dependencies, span and overlapStart, and their flows differ only in the
 * endpoints: the same host position and the same position among the host's GPUs of the job,
 * other host and GPU numbers. Make() builds the first job of each (modelName, layout) with
 * MakeSchedJob() and keeps it as the template; a later job of the same key gets the
 * template's timeline and flows with its own hosts and GPUs put in, and its own paths from
 * \p fillPaths (which see the real GPUs), without a DAG.
 * The result is identical to MakeSchedJob() (test: crux-sched-job-templates).
 *
 * Contract: every job given to one object must agree in every field that MakeSchedJob()
 * reads except id, modelName, model and gpus (plan, collectives, intraHostAllReduce, step,
 * chakra, numBuckets, overlapStart, ...): the model name stands for the model's numbers. The
 * trace runners meet it: every job is DltJob::FromModel() with the run's one plan request.
 * A hit whose job differs from its template in NumGpus(), ComputeSpan(), flopsPerIteration
 * or gradientBytes breaks the contract and throws. A Chakra job (DltJob::chakra set) is built
 * with MakeSchedJob() every time (not counted as a hit or a miss).
 */
class SchedJobTemplates
{
  public:
    /// \param granularity the timeline of every job built (MakeSchedJob())
    explicit SchedJobTemplates(TimelineGranularity granularity = TimelineGranularity::STEP);

    /// \return the timeline granularity of the jobs built
    TimelineGranularity GetGranularity() const;

    /**
     * \brief MakeSchedJob(job, fillPaths), through the memo.
     * \param job the job (validated as by MakeSchedJob())
     * \param fillPaths as for MakeSchedJob(): called once per inter-host flow, in flow-id
     *        order, with the flow's endpoints on \p job's hosts
     * \return the scheduler job
     * \throws what MakeSchedJob() throws; std::logic_error if \p job breaks the contract
     */
    SchedJob Make(const DltJob& job, const SchedFlowPathFiller& fillPaths);

    /**
     * \param job the job
     * \return its layout: for each rank of TrainingIteration::RankGpus(job), the position of
     *         its host among the job's hosts (order of first appearance) and the position of
     *         its NIC (CollectiveHardware::NicOf() of job.collectives.hardware) among the
     *         distinct NICs of its host's ranks, ascending, as text ("0:0,0:1,1:0,..."): jobs
     *         on GPUs 0-3 and 4-7 of their hosts have one layout when each GPU has its own NIC
     */
    static std::string LayoutKey(const DltJob& job);

    /// \return Make() calls answered from a template
    uint64_t GetHits() const;

    /// \return Make() calls that built a template (distinct keys)
    uint64_t GetMisses() const;

  private:
    /// One key's template: the scheduler job and its flows with positions for hosts and GPUs.
    struct Template
    {
        SchedJob job; //!< MakeSchedJob() of the first job (paths cleared)
        /// CommunicationPattern() with host = the host's position among the job's hosts and
        /// localGpu = the GPU's position among the job's GPUs on that host
        std::vector<DltCommFlow> flows;
        uint64_t gradientBytes{0}; //!< the first job's gradientBytes (not in job)
    };

    TimelineGranularity m_granularity;           //!< timeline of every job built
    std::map<std::string, Template> m_templates; //!< modelName + layout -> template
    uint64_t m_hits{0};                          //!< see GetHits()
    uint64_t m_misses{0};                        //!< see GetMisses()
};

/**
 * \ingroup crux
 * \brief MakeClusterSchedJob() with MakeSchedJob() through \p templates (SchedJobTemplates and
 * its contract): the same result.
 * \param job the job \param topo the topology \param ecmpSeed seed of the ECMP hash
 * \param maxPaths cap on the candidate paths per flow (>= 1) \param templates the memo
 * \return the scheduler job
 * \throws what MakeClusterSchedJob() and SchedJobTemplates::Make() throw
 */
SchedJob MakeClusterSchedJob(const DltJob& job,
                             const ClusterTopology& topo,
                             uint64_t ecmpSeed,
                             uint32_t maxPaths,
                             SchedJobTemplates& templates);

/**
 * \ingroup crux
 * \brief With intra-host links in \p topo (ClusterTopology::AddIntraHostLinks()), append one
 * SchedFlow per DltJob::IntraHostPattern() flow to \p sj (its flow id and bytes, one candidate
 * path: the NVLink path GPU -> NVSwitch -> GPU, ClusterTopology::GpuPath()), so that t_j runs
 * over the NVLink links too (Crux Definition 2); without intra-host links nothing is added.
 * A job with a communication timeline (SchedJob::phases non-empty) gets one more phase holding
 * these flows' bytes, released at the iteration start without dependencies (their time is
 * already in the timeline's NVLink model), so the phases still add up to bytesPerIteration.
 * MakeClusterSchedJob() and MakeClusterModel() call it.
 * \param job the job \param topo its topology \param sj the job's SchedJob (flows appended)
 */
void AddIntraHostFlows(const DltJob& job, const ClusterTopology& topo, SchedJob& sj);

/**
 * \ingroup crux
 * \brief Check that every GPU of a job exists in a ClusterTopology.
 * \param job the job
 * \param topo the topology
 * \throws std::invalid_argument naming the job id and the first bad gpus[i] entry
 */
void CheckJobOnClusterTopology(const DltJob& job, const ClusterTopology& topo);

/**
 * \ingroup crux
 * \brief The scheduler's view of jobs on a built packet fabric (scenario runs, both fabrics):
 * one SchedLink per directed link of \p topo (bandwidth bit/s, name "l<id>"), and per job
 * MakeSchedJob() with each inter-host flow's candidate paths = the cluster description's
 * equal-cost paths between the flow's NICs (uncapped) and its default path = the one the
 * switches' ECMP hash gives the connection's default UDP source port
 * (CruxTopologySteering::PathOf(key, 0)).
 * \param topo the fabric (non-null)
 * \param jobs the jobs (GPUs on the fabric's hosts)
 * \return the model (measuredCommTime 0: the caller fills profiled t_j)
 * Throws std::invalid_argument if two hosts of a job are not connected, std::logic_error if
 * the switches' ECMP path is not one of the equal-cost paths (a routing bug).
 */
ClusterModel MakeClusterModel(Ptr<CruxTopology> topo, const std::vector<DltJob>& jobs);

} // namespace ns3

#endif // CRUX_SCHED_JOB_BUILDER_H
