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

#include "dlt-job.h"
#include "ring-allreduce.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Runs one DLT job (DltJob) over a MessageTransport: compute phases as timers and the
 * gradient all-reduce as real messages (DESIGN.md "Workload", Crux §3 iteration model).
 *
 * Install it on any node (e.g. the job's first host); it talks only to the transport.
 * One iteration, c = compute time, f = overlapStart × c, B = buckets:
 *  - forward: [0, f]; no gradients yet;
 *  - backward: bucket b (0..B−1) is released at f + (b+1)(c − f)/B (the last one at c);
 *  - bucket b's all-reduce (TensorParallel() rings, one per rail, in parallel, each a
 *    RingAllReduce over the DataParallel() hosts) starts when the bucket is released AND
 *    bucket b−1's all-reduce has finished: buckets are reduced one at a time, in order, as
 *    NCCL does on one communicator stream;
 *  - the iteration ends when the compute (c) and every bucket's all-reduce have finished; the
 *    next iteration starts at once.
 * Hence with all-reduce time A per bucket and no contention, iteration = max(c, finish_{B−1})
 * with finish_b = max(release_b, finish_{b−1}) + A.
 *
 * The job starts at its StartTime (SetJob sets it from DltJob::startTime) and stops after the
 * configured iterations or at StopTime. A slow transport only makes iterations longer; a
 * message that is never delivered stalls the job (the transport's watchdog reports that).
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
     * \param start time the bucket's all-reduce started
     * \param end time it finished
     */
    typedef void (*AllReduceTracedCallback)(uint32_t jobId,
                                            uint32_t iteration,
                                            uint32_t bucket,
                                            Time start,
                                            Time end);

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

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Begin iteration m_iteration.
    void StartIteration();
    /// Bucket b of the current iteration has been produced by the backward pass.
    void ReleaseBucket(uint32_t b);
    /// The compute of the current iteration has finished.
    void ComputeDone();
    /// Start the next bucket's all-reduce if allowed.
    void TryStartBucket();
    /// One rail's ring of the current bucket finished.
    void RailDone(uint64_t gen);
    /// End the iteration if compute and communication are done.
    void CheckIterationEnd();

    DltJob m_job;                      //!< the job as given
    DltJob m_run;                      //!< the job as run (overrides applied)
    bool m_jobSet {false};             //!< SetJob was called
    Ptr<MessageTransport> m_transport; //!< message carrier
    uint32_t m_iterationsAttr {0};     //!< attribute Iterations (0 = job's value)
    double m_overlapAttr {-1};         //!< attribute OverlapStart (< 0 = job's value)
    Time m_computeAttr;                //!< attribute ComputeTime (0 = job's value)
    uint32_t m_bucketsAttr {0};        //!< attribute NumBuckets (0 = job's value)

    std::vector<Ptr<RingAllReduce>> m_rings; //!< one ring per rail, reused every bucket
    std::vector<EventId> m_events;           //!< pending compute events of the iteration
    bool m_running {false};                  //!< between StartApplication and stop/complete
    uint32_t m_iteration {0};                //!< index of the current iteration
    Time m_jobStart;                         //!< time the first iteration started
    Time m_iterStart;                        //!< start time of the current iteration
    bool m_computeDone {false};              //!< compute of the current iteration finished
    uint32_t m_released {0};                 //!< buckets released in this iteration
    uint32_t m_nextBucket {0};               //!< next bucket to all-reduce
    bool m_bucketBusy {false};               //!< a bucket's all-reduce is running
    uint32_t m_railsPending {0};             //!< rings of the running bucket not done yet
    uint64_t m_bucketGen {0};                //!< all-reduce counter (ignores stale callbacks)
    Time m_bucketStart;                      //!< start of the running bucket's all-reduce
    bool m_complete {false};                 //!< all iterations done
    Time m_jct {-1};                         //!< job completion time
    std::vector<double> m_iterTimes;         //!< completed iteration durations, s
    std::vector<double> m_iterStarts;        //!< completed iteration start times, s

    /// Fired at the end of each iteration.
    TracedCallback<uint32_t, uint32_t, Time, Time, double> m_iterationTrace;
    /// Fired when the configured iterations are complete.
    TracedCallback<uint32_t, Time> m_jobCompleteTrace;
    /// Fired when a bucket's all-reduce (all rails) finishes.
    TracedCallback<uint32_t, uint32_t, uint32_t, Time, Time> m_allReduceTrace;
};

} // namespace ns3

#endif // CRUX_DLT_JOB_APPLICATION_H
