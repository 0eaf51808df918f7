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

#ifndef CRUX_DLT_JOB_APPLICATION_H
#define CRUX_DLT_JOB_APPLICATION_H

#include "comm-dag-runner.h"
#include "dlt-job.h"

#include "ns3/application.h"
#include "ns3/crux-run-error.h"
#include "ns3/event-id.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Runs one DLT job (DltJob) over a MessageTransport: compute phases as timers and the
 * gradient all-reduce as real messages (DESIGN.md "Workload", Crux §3 iteration model).
 *
 * Install it on any node (e.g. the job's first host); it talks only to the transport.
 * At the start it builds one iteration of the job as a CommDag (TrainingIteration::Build) and
 * runs it with a CommDagRunner, once per iteration. Without a parallelism plan, c = compute
 * time, f = overlapStart × c, B = buckets:
 *  - forward: [0, f]; no gradients yet;
 *  - backward: bucket b (0..B−1) is released at f + (b+1)(c − f)/B (the last one at c);
 *  - bucket b's all-reduce (TensorParallel() rings, one per rail, in parallel, each a ring
 *    all-reduce (Collectives::RingAllReduce) over the DataParallel() hosts) starts when the
 *    bucket is released AND bucket b−1's all-reduce has finished: buckets are reduced one at a
 *    time, in order, as NCCL does on one communicator stream;
 *  - the iteration ends when the compute (c) and every bucket's all-reduce have finished; the
 *    next iteration starts at once.
 * Hence with all-reduce time A per bucket and no contention, iteration = max(c, finish_{B−1})
 * with finish_b = max(release_b, finish_{b−1}) + A. With a plan (DltJob::plan) the iteration is
 * the 1F1B pipeline with TP, PP, DP and EP traffic described at TrainingIteration.
 *
 * The job starts at its StartTime (SetJob sets it from DltJob::startTime) and stops after the
 * configured iterations, at StopTime or at Stop().
 *
 * Re-scheduling while running: SetDscp() and SetFlowSourcePort() change the DSCP and a flow's
 * UDP source port of every message the job hands to the transport after the call (the rings send
 * through an internal relay that stamps the current values), so a scheduler's new priority
 * level and path reach the job's next message (LiveClusterFabric::ApplyDecision()). A slow
 * transport only makes iterations longer; a message that is never delivered stalls the job (the
 * transport's watchdog reports that).
 */
class DltJobApplication : public Application
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DltJobApplication();
    ~DltJobApplication() override;

    /**
     * TracedCallback signature of "IterationComplete".
     * \param jobId job id
     * \param iteration iteration index, 0-based
     * \param start simulation time the iteration started (its compute starts then)
     * \param end simulation time the iteration ended (compute and communication done)
     * \param flops FLOPs the whole job computed in the iteration (W_j)
     */
    typedef void (*IterationTracedCallback)(uint32_t jobId,
                                            uint32_t iteration,
                                            Time start,
                                            Time end,
                                            double flops);

    /**
     * TracedCallback signature of "JobComplete".
     * \param jobId job id
     * \param jct job completion time: end of the last iteration − job start time
     */
    typedef void (*JobCompleteTracedCallback)(uint32_t jobId, Time jct);

    /**
     * TracedCallback signature of "AllReduceComplete".
     * \param jobId job id
     * \param iteration iteration index
     * \param bucket bucket index
     * \param start time the bucket's all-reduce started (with a plan: at its first member)
     * \param end time it finished (with a plan: in every data-parallel group)
     */
    typedef void (*AllReduceTracedCallback)(uint32_t jobId,
                                            uint32_t iteration,
                                            uint32_t bucket,
                                            Time start,
                                            Time end);

    /**
     * TracedCallback signature of "NodeProgress".
     * \param jobId job id
     * \param done nodes of the current iteration's DAG complete
     * \param total nodes of the DAG
     */
    typedef void (*NodeProgressTracedCallback)(uint32_t jobId, uint64_t done, uint64_t total);

    /**
     * \brief Set the job to run (before the application starts). Also sets the application's
     * StartTime to job.startTime.
     * \param job the job; validated
     * \throws std::invalid_argument if job.Validate() fails
     */
    void SetJob(const DltJob& job);

    /// \return the job as given to SetJob (attribute overrides not applied)
    const DltJob& GetJob() const;

    /// \return the job as run: attribute overrides (ComputeTime, OverlapStart, NumBuckets,
    ///         Iterations) applied; valid once the application has started
    const DltJob& GetEffectiveJob() const;

    /**
     * \brief Set the transport carrying the job's messages (before the application starts).
     * \param transport non-null
     */
    void SetTransport(Ptr<MessageTransport> transport);

    /// \return durations of the completed iterations, seconds, in order
    const std::vector<double>& GetIterationTimes() const;
    /// \return start times of the completed iterations, seconds
    const std::vector<double>& GetIterationStarts() const;
    /// \return number of completed iterations
    uint32_t GetCompletedIterations() const;
    /// \return true once the configured number of iterations has completed
    bool IsComplete() const;
    /// \return the job completion time (end of last iteration − start), or Time(-1) if not done
    Time GetJct() const;

    /// \return effective compute time per iteration, seconds (job value or attribute override)
    double GetComputeTime() const;
    /// \return effective overlap start fraction
    double GetOverlapStart() const;
    /// \return effective number of buckets
    uint32_t GetNumBuckets() const;
    /// \return effective iteration count (0 = unlimited)
    uint32_t GetIterations() const;

    // ---------------------------------------------------------------- runtime re-scheduling

    /**
     * \brief Change the DSCP (traffic class) of the job's messages, also while it runs.
     *
     * Effective for every message the job hands to the transport after the call (the next
     * ring step of any rail, even inside a running all-reduce); messages handed over before
     * keep their DSCP, as packets already on the wire keep theirs. Used to install a
     * scheduler's new priority level on a running job (DSCP = 8 × level, Crux §4).
     * Updates GetJob().dscp (and GetEffectiveJob().dscp).
     * \param dscp DSCP 0..63
     * \throws std::invalid_argument if dscp > 63
     */
    void SetDscp(uint8_t dscp);

    /// \return the DSCP the job's next messages carry
    uint8_t GetDscp() const;

    /**
     * \brief Change the UDP source port (ECMP entropy, i.e. path) of one of the job's flows,
     * also while it runs.
     *
     * Effective for the flow's messages handed to the transport after the call; earlier ones
     * keep their request port. How a transport treats a port change of an existing connection
     * is its business: RdmaTransport moves the queue pair once it has no unacknowledged
     * packets; FlowTransport remembers the last non-zero request port of the connection and
     * resolves the path when a message becomes the connection's head, so a message still
     * queued behind the head when a newer message with the new port is posted also takes the
     * new path (a message in transfer never changes path).
     * Updates GetJob().udpSrcPorts (and GetEffectiveJob().udpSrcPorts).
     * \param flowId a flow id of the job's CommunicationPattern() (0 .. TensorParallel() ×
     *        DataParallel() − 1 for a multi-host job without a plan)
     * \param port UDP source port, non-zero
     * \throws std::invalid_argument if SetJob was not called, the job has no such flow or
     *         port is 0
     */
    void SetFlowSourcePort(uint32_t flowId, uint16_t port);

    /// \return the UDP source port the flow's next messages carry (0 = transport default)
    /// \param flowId flow id
    uint16_t GetFlowSourcePort(uint32_t flowId) const;

    /**
     * \brief Stop the job now (e.g. a job killed or preempted by the cluster): no further
     * message is handed to the transport and no further iteration starts or completes; the
     * JobComplete trace does not fire. Messages already handed to the transport are not
     * recalled (the transport finishes them; their deliveries are ignored). No effect on a job
     * that has completed or was stopped already; before the start it cancels the start.
     */
    void Stop();

    /// \return true after Stop() was called
    bool IsStopped() const;

    /**
     * \brief Name the job in error messages (CommDagRunner's watchdog, DescribeUnfinished()).
     * \param name the job's name (e.g. the scenario's "gpt"; may be empty)
     */
    void SetJobName(const std::string& name);

    /**
     * \brief One line saying why the job's current iteration has not finished, for the end of a
     * run: "job 1 (gpt), iteration 3: the communication graph did not finish (...): <first node
     * that never ran> never ran: it waits on rank 2's send to rank 3 (...), handed to the
     * transport at 4.93 ms and never delivered" (CommDagRunner::DescribeUnfinished()).
     * \return the line; empty if the job is not in the middle of an iteration (not started,
     *         complete, stopped)
     */
    std::string DescribeUnfinished() const;

    /**
     * \brief The jobs that can never finish, at the end of a simulation that did not stop them
     * on purpose: call it after Simulator::Run() returned, unless the program stopped the run
     * itself (e.g. once the jobs it measures completed).
     * \param apps the jobs' applications (null entries are skipped)
     * \param stopTime the simulation's time limit (Simulator::Stop; Time::Max() if none)
     * \return one line per stuck job (DescribeUnfinished()), for a CruxRunError: before
     *         \p stopTime the simulation ran out of events, so every job still in an iteration
     *         is stuck; at \p stopTime only those whose graph cannot go on
     *         (CommDagRunner::IsStalled(): a hung rank, or no delivery for StallTimeout); the
     *         others were only cut short. Empty if none.
     */
    static std::vector<std::string> DescribeStuck(const std::vector<Ptr<DltJobApplication>>& apps,
                                                  Time stopTime);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Begin iteration m_iteration.
    void StartIteration();
    /// The iteration's DAG has completed.
    void IterationDone();
    /// A labelled node of the iteration's DAG completed (bucket timing).
    void OnLabel(CommDagLabel label, Time at);
    /// The runner completed another 65,536 nodes. \param done nodes complete \param total nodes
    void OnNodeProgress(uint64_t done, uint64_t total);

    class Relay;                       //!< rewrites DSCP / source port of the job's messages
    DltJob m_job;                      //!< the job as given
    DltJob m_run;                      //!< the job as run (overrides applied)
    bool m_jobSet{false};              //!< SetJob was called
    std::set<uint32_t> m_flows;        //!< the job's inter-host flow ids
    Ptr<MessageTransport> m_transport; //!< message carrier
    Ptr<Relay> m_relay;                //!< between the runner and m_transport (runtime changes)
    bool m_stopped{false};             //!< Stop() was called
    std::string m_jobName;             //!< SetJobName
    uint32_t m_iterationsAttr{0};      //!< attribute Iterations (0 = job's value)
    double m_overlapAttr{-1};          //!< attribute OverlapStart (< 0 = job's value)
    Time m_computeAttr;                //!< attribute ComputeTime (0 = job's value)
    uint32_t m_bucketsAttr{0};         //!< attribute NumBuckets (0 = job's value)
    uint32_t m_channelsAttr{0};        //!< attribute NcclChannels (0 = job's value)

    Ptr<CommDagRunner> m_runner;            //!< runs one iteration's DAG
    std::vector<uint32_t> m_bucketEnds;     //!< per bucket: BUCKET_END labels in the DAG
    std::vector<Time> m_bucketStart;        //!< per bucket: earliest start this iteration
    std::vector<uint32_t> m_bucketEndsSeen; //!< per bucket: BUCKET_END labels seen
    bool m_running{false};                  //!< between StartApplication and stop/complete
    uint32_t m_iteration{0};                //!< index of the current iteration
    Time m_jobStart;                        //!< time the first iteration started
    Time m_iterStart;                       //!< start time of the current iteration
    bool m_complete{false};                 //!< all iterations done
    Time m_jct{-1};                         //!< job completion time
    std::vector<double> m_iterTimes;        //!< completed iteration durations, s
    std::vector<double> m_iterStarts;       //!< completed iteration start times, s

    /// Fired at the end of each iteration.
    TracedCallback<uint32_t, uint32_t, Time, Time, double> m_iterationTrace;
    /// Fired when the configured iterations are complete.
    TracedCallback<uint32_t, Time> m_jobCompleteTrace;
    /// Fired when a bucket's all-reduce (all rails) finishes.
    TracedCallback<uint32_t, uint32_t, uint32_t, Time, Time> m_allReduceTrace;
    /// (jobId, nodes complete, nodes of the DAG) every 65,536 nodes
    TracedCallback<uint32_t, uint64_t, uint64_t> m_nodeProgressTrace;
};

} // namespace ns3

#endif // CRUX_DLT_JOB_APPLICATION_H
