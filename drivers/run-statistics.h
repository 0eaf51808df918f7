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

#ifndef CRUX_RUN_STATISTICS_H
#define CRUX_RUN_STATISTICS_H

#include "experiment-result.h"
#include "scenario-topology.h"

#include "ns3/cluster-model.h"
#include "ns3/crux-scenario.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/gpu-intensity-tracker.h"
#include "ns3/link-throughput-sampler.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/qbb-net-device.h"
#include "ns3/roce-constants.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * \ingroup crux
 * The statistics collector of a scenario run (RunStatistics): the counters its trace sinks keep
 * during the simulation, the fabric's counters read after it, and the job rows, measurement
 * window and utilization of the result.
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief What a job's application recorded in a run (DltJobApplication), as plain values (they
 * come back from the other ranks in a distributed run).
 */
struct JobRecord
{
    std::vector<double> starts; //!< iteration start times, s (GetIterationStarts)
    std::vector<double> times;  //!< iteration durations, s (GetIterationTimes)
    bool complete{false};       //!< IsComplete()
    double jct{-1};             //!< GetJct() in seconds if complete, else -1
};

/**
 * \ingroup crux
 * \brief The records of applications after their run.
 * \param apps the applications
 * \return their records, in their order
 */
std::vector<JobRecord> JobRecordsOf(const std::vector<Ptr<DltJobApplication>>& apps);

/**
 * \ingroup crux
 * \brief What installing a scheduler's decision did (CruxHelper::Install), for the result rows.
 */
struct DecisionInstall
{
    std::map<uint32_t, uint32_t> rerouted; //!< job id → flows steered off their ECMP path
    /// (job id, flow id) → the flow's links (CruxTopology::PathToString)
    std::map<std::pair<uint32_t, uint32_t>, std::string> flowPaths;
};

/**
 * \ingroup crux
 * \brief The statistics of one scenario run: trace sinks on the fabric's devices (drops, PAUSE
 * frames sent per link and class, the deepest queue per class), on its switches (drops by
 * reason) and on the jobs' applications (all-reduce durations, completions of the measured
 * jobs), put together with the counters read after the run into an ExperimentRunResult.
 *
 * The sinks point into this object: it must not move or be destroyed before the simulation is.
 * What is read after the run (CollectFabricCounters): the bytes per link and class (the
 * devices' and the flow transport's counters: a sink would sit on the per-frame path, and the
 * throughput sampler reads the same counters during the run), retransmissions and timeouts
 * (the transport's statistics).
 */
class RunStatistics
{
  public:
    /**
     * \brief Connect the fabric's trace sources, before its first frame: every link sender's
     * "PfcTx" (PAUSE frames per link and class) and, on the packet fabric, its "Drop" (device
     * drops by reason) and "TcBytesInQueue" (the deepest queue per class); every switch's
     * "Drop" (switch drops by reason). Start the fabric's LinkThroughputSampler when its
     * \c Interval attribute is > 0 (its samples go into CollectFabricCounters' result).
     * \param f the run's fabric
     */
    void ConnectFabric(const ScenarioFabric& f);

    /**
     * \brief Connect a job's application: the durations of its all-reduces per iteration
     * ("AllReduceComplete") and, for a measured job, its completion ("JobComplete").
     * \param app the application
     * \param measured the job is measured (iterations > 0): the run waits for it
     * \param stopWhenDone stop the simulator when the last measured job is done (a
     *        distributed run decides that over all ranks instead)
     */
    void ConnectJob(Ptr<DltJobApplication> app, bool measured, bool stopWhenDone);

    /**
     * \brief Add an all-reduce's duration as the "AllReduceComplete" sink does (the merge of a
     * distributed run's ranks).
     * \param jobId the job \param iteration its iteration \param seconds the duration, s
     */
    void AddAllReduce(uint32_t jobId, uint32_t iteration, double seconds);

    /// \return measured jobs connected (ConnectJob) that have not finished
    uint32_t GetMeasuredRemaining() const;

    /// \return frames the devices and switches dropped so far (every reason), for a run that
    /// ends early: a watchdog's stall on a lossy fabric is named with them
    uint64_t GetDropsSoFar() const;

    /// \return time step at which the last measured job finished (-1: not yet, or none)
    int64_t GetLastDone() const;

    /**
     * \brief The fabric's counters after the run into \p r: bytes per link and class (read
     * now), peak queues and PAUSE frames per link and class (what the sinks of ConnectFabric
     * saw), drops with their reasons (devices and switches from the sinks, NIC receive buffers
     * read now), retransmissions and timeouts (read now).
     * \param f the run's fabric (ConnectFabric was called with it)
     * \param r the result
     */
    void CollectFabricCounters(const ScenarioFabric& f, ExperimentRunResult& r);

    /**
     * \brief Refuses a run whose window is empty (MeasureWindow: its last job start is at or
     * after the first end of a measured job or the run's end), which would give every job
     * "no iteration in the window" and a utilization of 0 as if measured.
     * \param s the scenario (job names) \param jobs the run's jobs \param records their
     * records \param r the run with its window
     * \throws CruxRunError naming the job that starts last (jobs[i].start) and what ended first
     */
    static void ThrowIfNoWindow(const Scenario& s,
                                const std::vector<DltJob>& jobs,
                                const std::vector<JobRecord>& records,
                                const ExperimentRunResult& r);
    /**
     * \brief The job rows, measurement window and utilization of a run that ended at \p end
     * (r.simulatedTime, seconds, set by the caller), from the applications' records and the
     * all-reduce durations, and \p tracker's utilization series (about 200 bins) up to \p end.
     * \param s the scenario (job names, background flags, stopTime)
     * \param jobs the run's jobs, in run order
     * \param records one per job of \p jobs, in order
     * \param decision the scheduler's decision (levels, t_j, I_j, k_j, time shifts)
     * \param install what installing it did
     * \param tracker the run's GPU-intensity tracker (its PeakFlops)
     * \param totalGpus GPUs of the cluster
     * \param end the run's end
     * \param r the result
     */
    void Measure(const Scenario& s,
                 const std::vector<DltJob>& jobs,
                 const std::vector<JobRecord>& records,
                 const Decision& decision,
                 const DecisionInstall& install,
                 Ptr<GpuIntensityTracker> tracker,
                 uint32_t totalGpus,
                 Time end,
                 ExperimentRunResult& r) const;

  private:
    /// "TcBytesInQueue" sink of every link's sender: keeps the deepest queue per class.
    /// \param cls the class \param oldBytes bytes before \param newBytes bytes after
    void TraceQueueBytes(uint8_t cls, uint64_t oldBytes, uint64_t newBytes);
    /// The measurement window (doc: the measurement window) into \p r: from the last start to
    /// the first end of a measured job. \param jobs the jobs \param records their records
    /// \param r the result (simulatedTime set)
    static void MeasureWindow(const std::vector<DltJob>& jobs,
                              const std::vector<JobRecord>& records,
                              ExperimentRunResult& r);
    /// The result row of one job. \param s the scenario \param job the job \param record its
    /// record \param decision the decision \param install what installing it did \param multi
    /// the run has several jobs (only iterations in the window count) \param r the result
    /// (window set) \return the row
    ExperimentJobResult JobRow(const Scenario& s,
                               const DltJob& job,
                               const JobRecord& record,
                               const Decision& decision,
                               const DecisionInstall& install,
                               bool multi,
                               const ExperimentRunResult& r) const;

    uint32_t m_measuredRemaining{0}; //!< measured jobs not finished
    int64_t m_lastDone{-1}; //!< time step at which m_measuredRemaining reached 0 (-1: not yet)
    std::map<std::pair<uint32_t, uint32_t>, double> m_comm; //!< (job, iteration) → all-reduce s
    /// per link, per TC: IP bytes of the data frames sent (packet fabric)
    std::vector<std::array<uint64_t, crux::NUM_TRAFFIC_CLASSES>> m_linkTcBytes;
    std::map<std::string, uint64_t> m_deviceDrops; //!< device drop reason → frames
    std::map<std::string, uint64_t> m_switchDrops; //!< switch drop reason → frames ("Drop")
    /// per link, per TC: PAUSE frames its sending device put on the wire ("PfcTx")
    std::vector<std::array<uint64_t, QbbNetDevice::N_TC>> m_linkPauseTx;
    /// per class (8 = control class): the deepest queue of any link's sender ("TcBytesInQueue")
    std::array<uint64_t, QbbNetDevice::N_CLASSES> m_maxQueueBytes{};
    Ptr<LinkThroughputSampler> m_sampler;           //!< per-link throughput samples (or off)
    std::vector<LinkThroughputSample> m_throughput; //!< the sampler's samples, in order
};

} // namespace ns3

#endif // CRUX_RUN_STATISTICS_H
