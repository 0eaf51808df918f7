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

#ifndef CRUX_LIVE_CLUSTER_FABRIC_H
#define CRUX_LIVE_CLUSTER_FABRIC_H

#include "ns3/callback.h"
#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-helper.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-transport.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A running cluster at flow level on a ClusterTopology: DLT jobs start and stop over time
 * as DltJobApplications on one FlowTransport, and every scheduler decision is installed on the
 * running fabric (the "flow" engine of the trace-driven cluster runs, issue 4; Crux §4, §6.3:
 * "on every arrival or completion the scheduler recomputes paths and priorities for all running
 * jobs").
 *
 * **Fabric.** Setup() registers every host of the ClusterTopology (gpusPerHost GPUs each) and
 * every directed link (SchedLink::bandwidth bit/s, ClusterTopology::linkDelay seconds) with a
 * FlowTransport (same link ids), and sets its path resolver. With intra-host links
 * (AddIntraHostLinks()) the path tables hold GPU paths (EqualCostGpuPaths(): GPU -> PCIe switch
 * -> NIC -> network -> NIC -> PCIe switch -> GPU, the scheduler's candidatePaths), so flows of
 * GPUs behind one PCIe switch share its uplink (strict priority by class, max-min inside one),
 * and messages between GPUs of one host are flows on GPU -> NVSwitch -> GPU
 * (FlowTransport::SetIntraHostPathResolver()) instead of the NVLink egress model. Transport knobs
 * (PacketPayload, DSCP → TC map, NVLink rate...) are FlowTransport attributes: set them on
 * GetTransport() or with Config defaults.
 *
 * **Paths.** LiveClusterFabric owns the routing state: for every flow (job id, flow id) of a job
 * a path table, i.e. a list of link-id lists, initially ClusterTopology::EqualCostPaths() of the
 * flow (at most "MaxPaths"; network links only, NetworkPart()), and the index of the installed
 * path. The installed path is encoded
 * in the UDP source port of the flow's messages: **port = 49152 + path-table index**
 * (PortOfPathIndex()); the resolver handed to FlowTransport maps (connection key, port) back
 * through the table. Before any decision a flow uses its ECMP default,
 * EcmpPathIndex("EcmpSeed", job id, flow id, number of candidates) — exactly
 * MakeClusterSchedJob()'s SchedFlow::defaultPath, so a ClusterModel built with MakeSchedJob()
 * (or GetSchedJob()) describes the fabric as it is. A decision installs one of the flow's table
 * paths (the candidates the model was built with); the table never changes, so messages posted
 * with an old port keep resolving to their old path. This is the fabric's PathSteering: the
 * port of a path is PortOfPathIndex(its index), a path outside the table has no port.
 *
 * **Decisions** (ApplyDecision()): installed by CruxHelper (the one decision installer of crux,
 * "source-port" enforcement) on the running jobs' applications: DSCP = 8 × level
 * (traffic class = level with FlowTransport's default map; TC 7 highest) and every flow's path =
 * the model's candidatePaths[decision.PathOf(job, flow)]. Both take effect from the job's next
 * message: DltJobApplication::SetDscp() / SetFlowSourcePort() rewrite the messages the job hands
 * to the transport from then on; a message in transfer keeps its path and class. (FlowTransport
 * resolves a connection's path from the last non-zero port posted on it when a message becomes
 * the connection's head: a message already queued behind the head when the job posts its first
 * new-port message takes the new path too; its class stays the one it was posted with.)
 *
 * **Limits.** Flow-level fluid model of FlowTransport (no packets, PFC, ECN/DCQCN, queueing);
 * strict priority between classes; jobs start at max(now, DltJob::startTime); a stopped job's
 * messages already handed to the transport are not recalled (they finish their transfer);
 * CASSINI-style time shifts (JobDecision::timeShift) are not applied (only paths and levels).
 */
class LiveClusterFabric : public Object, public PathSteering
{
  public:
    /// First UDP source port of the path encoding: port = PATH_PORT_BASE + path-table index.
    static constexpr uint16_t PATH_PORT_BASE = 49152;

    /**
     * \brief Signature of the "DecisionApplied" trace: fired once per running job of a
     * decision, after its level and paths were installed.
     * \param now simulation time of ApplyDecision()
     * \param jobId the job
     * \param level installed priority level (DSCP = 8 × level)
     * \param pathsChanged number of the job's flows whose installed path changed
     */
    typedef void (*DecisionAppliedTracedCallback)(Time now,
                                                  uint32_t jobId,
                                                  uint32_t level,
                                                  uint32_t pathsChanged);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LiveClusterFabric();
    ~LiveClusterFabric() override;

    /**
     * \brief Build the fabric: a FlowTransport with every host and link of \p topo and this
     * object's path resolver (see the class description). Call once, before StartJob().
     * \param topo the topology (copied); ClusterTopology::linkDelay must have one entry per link
     * \throws std::logic_error if called twice
     * \throws std::invalid_argument naming the field for a topology without hosts, with
     *         gpusPerHost 0, a link count different from linkDelay's / linkEnds' size, a
     *         non-positive bandwidth or a negative delay
     */
    void Setup(const ClusterTopology& topo);

    /**
     * \brief Start a job: a DltJobApplication running \p job on the FlowTransport for
     * job.iterations iterations (0 = until StopJob()), starting at max(now, job.startTime).
     *
     * The job's DSCP is job.dscp (level job.dscp / 8) until a decision changes it; its flows'
     * paths are the ECMP defaults (class description); job.udpSrcPorts is ignored (replaced by
     * the path encoding).
     * \param job the job; job.gpus are (host index, local GPU) of the ClusterTopology
     * \param onFinish called with the job id once, when the last iteration has completed
     *        (scheduled at that simulation instant, after the completion: it may call
     *        StartJob/StopJob/ApplyDecision); never called for a stopped job; may be null
     * \throws std::logic_error if Setup() was not called
     * \throws std::invalid_argument naming the job and field: invalid job (DltJob::Validate),
     *         a GPU on a host or GPU index the topology does not have, hosts without a path,
     *         a job id already used on this fabric
     */
    void StartJob(const DltJob& job, Callback<void, uint32_t> onFinish);

    /**
     * \brief Stop a job now (DltJobApplication::Stop()): no further messages or iterations;
     * onFinish is not called. No effect on a job that has finished or was stopped.
     * \param jobId a job started on this fabric
     * \throws std::invalid_argument if the job was never started
     */
    void StopJob(uint32_t jobId);

    /**
     * \brief Install a scheduler decision on the running fabric (class description).
     *
     * Every job of decision.jobs that is running gets DSCP 8 × level and, for each of its flows,
     * path model.candidatePaths[decision.PathOf(job, flow)]; jobs of the decision that finished
     * or were stopped are skipped; running jobs absent from the decision keep their settings.
     * The whole decision is checked before anything is installed (all or nothing).
     * Fires "DecisionApplied" once per installed job.
     * \param model the model the decision was computed on (its jobs' flows must be the running
     *        jobs' CommunicationPattern() flows, e.g. built with GetSchedJob())
     * \param decision the decision
     * \throws std::invalid_argument naming job, flow and field: a job never started here, a job
     *         missing from the model, level > 7, a decision or model flow the job does not have,
     *         a job flow without a path in the decision or the model, a path index out of range,
     *         a path that is empty, has a link id outside the topology or does not lead from the
     *         flow's source host to its destination host
     */
    void ApplyDecision(const ClusterModel& model, const Decision& decision);

    /**
     * \param jobId a job started on this fabric
     * \return iterations the job has completed so far
     * \throws std::invalid_argument if the job was never started
     */
    uint64_t CompletedIterations(uint32_t jobId) const;

    // ---------------------------------------------------------------- accessors

    /// \return the FlowTransport (null before Setup())
    Ptr<FlowTransport> GetTransport() const;

    /// \return the topology given to Setup()
    const ClusterTopology& GetTopology() const;

    /**
     * \brief The scheduler's view of a job as it would run on this fabric: MakeClusterSchedJob()
     * with this fabric's "EcmpSeed" and "MaxPaths".
     * \param job a job whose GPUs are on the topology
     * \return the SchedJob (candidate paths and ECMP default as the fabric uses them)
     * \throws std::invalid_argument as MakeClusterSchedJob(), std::logic_error before Setup()
     */
    SchedJob GetSchedJob(const DltJob& job) const;

    /// \return true if the job was started and has neither finished nor been stopped
    /// \param jobId job id
    bool IsRunning(uint32_t jobId) const;

    /// \return ids of the running jobs, ascending
    std::vector<uint32_t> GetRunningJobs() const;

    /// \return the job's application \param jobId a started job (std::invalid_argument else)
    Ptr<DltJobApplication> GetApplication(uint32_t jobId) const;

    /// \return the installed priority level of the job (its DSCP / 8)
    /// \param jobId a started job (std::invalid_argument else)
    uint32_t GetInstalledLevel(uint32_t jobId) const;

    /// \return the installed DSCP of the job's next messages
    /// \param jobId a started job (std::invalid_argument else)
    uint8_t GetInstalledDscp(uint32_t jobId) const;

    /**
     * \param jobId a started job
     * \param flowId one of its flows
     * \return the installed path of the flow (link ids, travel order)
     * \throws std::invalid_argument for an unknown job or flow
     */
    std::vector<uint32_t> GetInstalledPath(uint32_t jobId, uint32_t flowId) const;

    /// \return the UDP source port encoding the installed path of a flow (PortOfPathIndex of
    ///         its path-table index) \param jobId job \param flowId flow (std::invalid_argument)
    uint16_t GetInstalledPort(uint32_t jobId, uint32_t flowId) const;

    /// \return the flow ids of a started job, ascending \param jobId job
    std::vector<uint32_t> GetFlows(uint32_t jobId) const;

    /// \return PATH_PORT_BASE + index \param index path-table index (< 16384; else
    ///         std::out_of_range)
    static uint16_t PortOfPathIndex(uint32_t index);

    // ---------------------------------------------------------------- PathSteering

    /// \return the path of the flow's table that \p port encodes; port 0 = its ECMP default
    /// \param key a started job's flow \param port UDP source port (NS_FATAL_ERROR if it
    /// encodes no table path)
    std::vector<uint32_t> PathOf(const RdmaQpKey& key, uint16_t port) const override;
    /// \return PortOfPathIndex(index of \p path in the flow's table), std::nullopt if absent
    /// \param key a started job's flow \param path a path
    std::optional<uint16_t> PortFor(const RdmaQpKey& key,
                                    const std::vector<uint32_t>& path) const override;
    /// \return ClusterTopology::CheckPath of the flow's GPUs \param key a flow \param path path
    std::string CheckPath(const RdmaQpKey& key, const std::vector<uint32_t>& path) const override;
    /// \return \p path without the topology's intra-host links (path tables and ports hold
    /// network paths; the transport gets them extended by ClusterTopology::GpuPath())
    /// \param path link ids
    std::vector<uint32_t> NetworkPart(const std::vector<uint32_t>& path) const override;

  protected:
    void DoDispose() override;

  private:
    /// Routing state of one flow.
    struct FlowState
    {
        RdmaQpKey key;                            //!< the flow's connection
        std::vector<std::vector<uint32_t>> paths; //!< path table: index = port − base
        uint32_t ecmp{0};                         //!< table index of the ECMP default
    };

    /// One job started on the fabric.
    struct JobState
    {
        DltJob job;                          //!< the job as started (before any decision)
        Ptr<DltJobApplication> app;          //!< its application
        Callback<void, uint32_t> onFinish;   //!< completion callback
        bool running{true};                  //!< neither finished nor stopped
        bool stopped{false};                 //!< StopJob() was called
        std::map<uint32_t, FlowState> flows; //!< flow id -> routing state
    };

    /// The table path a port encodes (NS_FATAL_ERROR for an unknown flow or a port outside the
    /// table). \param key connection \param port UDP source port \return the network path
    const std::vector<uint32_t>& TablePath(const RdmaQpKey& key, uint16_t port) const;
    /// Path resolver given to FlowTransport. \param key connection \param port UDP source port
    /// \return the path (TablePath() with the GPUs' PCIe links, ClusterTopology::GpuPath())
    std::vector<uint32_t> Resolve(const RdmaQpKey& key, uint16_t port) const;
    /// Intra-host path resolver given to FlowTransport when the topology has intra-host links
    /// (ClusterTopology::GpuPath(): GPU -> NVSwitch -> GPU). \param key connection between two
    /// GPUs of one host \param port ignored \return the path
    std::vector<uint32_t> ResolveIntraHost(const RdmaQpKey& key, uint16_t port) const;
    /// JobComplete trace sink. \param jobId job \param jct job completion time
    void OnJobComplete(uint32_t jobId, Time jct);
    /// Deliver onFinish. \param jobId job
    void NotifyFinish(uint32_t jobId);
    /// \return the job's state \param jobId job \param what caller for the error
    const JobState& GetJobState(uint32_t jobId, const char* what) const;
    /// \return a flow's routing state \param jobId job \param flowId flow \param what caller
    /// for the error \throws std::invalid_argument if the job or the flow does not exist
    const FlowState& GetFlowState(uint32_t jobId, uint32_t flowId, const char* what) const;
    uint64_t m_ecmpSeed{1};  //!< attribute EcmpSeed
    uint32_t m_maxPaths{64}; //!< attribute MaxPaths

    bool m_setup{false};                 //!< Setup() was called
    ClusterTopology m_topo;              //!< the topology
    Ptr<FlowTransport> m_transport;      //!< the fabric
    Ptr<Node> m_node;                    //!< holds the applications
    std::map<uint32_t, JobState> m_jobs; //!< job id -> state (finished jobs kept)

    /// (now, job id, level, flows whose path changed)
    TracedCallback<Time, uint32_t, uint32_t, uint32_t> m_decisionAppliedTrace;
};

/**
 * \ingroup crux
 * \brief A job's stand-alone iteration time on the flow engine: the job alone on a
 * LiveClusterFabric over \p topo (its whole iteration DAG, message by message: every ring step
 * waits for its own input, NVLink hops overlap other ranks' transfers), the mean over
 * \p iterations iterations after the first (which starts on an idle fabric). The reference of
 * the trace runs' phase timelines (bench/timeline-accuracy-bench.cc). Runs and destroys the
 * Simulator: call it with no simulation set up.
 * \param topo the cluster \param job the job (validated; its iterations are ignored)
 * \param ecmpSeed the fabric's EcmpSeed (use the seed of the ClusterModel it is compared with)
 * \param iterations iterations measured (>= 1)
 * \param limit simulated seconds allowed (> 0)
 * \return seconds per iteration
 * \throws std::invalid_argument for iterations == 0 or limit <= 0; std::runtime_error if the
 *         job does not complete iterations + 1 iterations within limit
 */
double FlowStandaloneIteration(const ClusterTopology& topo,
                               const DltJob& job,
                               uint64_t ecmpSeed,
                               uint32_t iterations,
                               double limit);

} // namespace ns3

#endif // CRUX_LIVE_CLUSTER_FABRIC_H
