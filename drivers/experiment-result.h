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

#ifndef CRUX_EXPERIMENT_RESULT_H
#define CRUX_EXPERIMENT_RESULT_H

#include "ns3/checked-parse.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux
 * The values a scenario run produces (ExperimentRunResult, one per run; ExperimentJobResult, one
 * per job of a run) and the error of a scenario's input (ExperimentError): what ScenarioRun
 * returns, RunStatistics fills, ExperimentOutput writes and CruxExperiment orchestrates.
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Error in an experiment's input (scenario, placement, scheduler name, ...): the message
 * is one line naming the file and field. Raised before any simulation runs or file is written.
 * An InputError (model/util/checked-parse.h): GetField() and GetDetail() where it names a field.
 */
class ExperimentError : public InputError
{
  public:
    using InputError::InputError;
};

/**
 * \ingroup crux
 * \brief Measured outcome of one job in one run of an experiment.
 */
struct ExperimentJobResult
{
    uint32_t id{0};              //!< job id (index in the scenario's job list)
    std::string name;            //!< job name from the scenario
    std::string model;           //!< model zoo key
    uint32_t gpus{0};            //!< GPUs of the job
    std::vector<uint32_t> hosts; //!< hosts of the job, ring order
    bool background{false};      //!< runs until the measured jobs finish (scenario flag)
    double flopsPerIteration{0}; //!< W_j, FLOPs per iteration of the whole job
    uint32_t level{0};           //!< priority level given by the scheduler (K-1 highest)
    uint32_t dscp{0};            //!< DSCP of the job's data packets (8 × level)
    double schedulerCommTime{0}; //!< t_j the scheduler used (measured or analytic), seconds
    double intensity{0};         //!< I_j = W_j / t_j the scheduler used, FLOPs/s
    double k{1};                 //!< correction factor k_j (Crux §4.2; 1 for other schedulers)
    uint32_t reroutedFlows{0};   //!< flows steered off their ECMP default path
    double timeShift{0};         //!< start delay from the scheduler (CASSINI), seconds
    /// flow id → the links the flow's packets take ("l3 l17 l9", CruxTopology::PathToString)
    std::map<uint32_t, std::string> flowPaths;
    std::vector<double> iterStart;  //!< start of every completed iteration, seconds
    std::vector<double> iterEnd;    //!< end of every completed iteration, seconds
    std::vector<double> iterComm;   //!< per iteration: sum of its all-reduce durations, seconds
    uint32_t measuredIterations{0}; //!< iterations inside the measurement window (see doc)
    double meanIterationTime{0};    //!< mean duration of the measured iterations, seconds
    double throughput{0};           //!< 1 / meanIterationTime, iterations per second
    double meanCommTime{0};         //!< mean all-reduce time of the measured iterations, s
    double jct{-1}; //!< job completion time, seconds (-1: did not finish / background)
    /// t_j profiled in this run (a job alone): the bytes the job put on every link per completed
    /// iteration through BusiestLinkTime (GpuIntensityTracker::FinalizeProfile), seconds; -1 in
    /// a run of several jobs or one that completed no iteration
    double profiledCommTime{-1};
};

/**
 * \ingroup crux
 * \brief One sample of a link's throughput in one traffic class (LinkThroughputSampler): the
 * bytes it carried during the interval ending at \c time.
 */
struct LinkThroughputSample
{
    double time{0};    //!< end of the sampled interval, seconds
    double seconds{0}; //!< its length (the sampling interval; shorter for a run's last one)
    uint32_t link{0};  //!< link id (CruxTopology)
    uint32_t tc{0};    //!< traffic class 0..7
    uint64_t bytes{0}; //!< bytes in the interval (as linkTcBytes counts them)
};

/**
 * \ingroup crux
 * \brief Measured outcome of one run (one scheduler, or one job alone). (Every field of this
 * struct and of ExperimentJobResult is also listed in experiment-result.cc for the way back
 * from a child process or another MPI rank (ExperimentRunResultToBytes): a new field goes there
 * too.)
 */
struct ExperimentRunResult
{
    std::string run;                       //!< run label: "alone:<job>", or the scheduler name
    std::string scheduler;                 //!< scheduler used ("ecmp" for alone runs)
    std::vector<ExperimentJobResult> jobs; //!< jobs of this run (one for alone runs)
    double windowStart{0};                 //!< measurement window start: all jobs started, seconds
    double windowEnd{0};                   //!< window end: first measured job finished, seconds
    /// Cluster GPU utilization = Σ_j W_j × throughput_j / (cluster GPUs × peak FLOP/s), over the
    /// window (dimensionless). For alone runs it is the job's own contribution.
    double utilization{0};
    std::vector<double> utilizationSeries; //!< tracker's FLOP utilization per bin (0..1)
    double utilizationBin{0};              //!< bin width of utilizationSeries, seconds
    /// link id → bytes per TC sent on the link (8 entries): packet fabric = IP packet bytes of
    /// every data/ACK frame (MacTx); flow fabric = payload bytes (FlowTransport::GetLinkBytes)
    std::map<uint32_t, std::vector<uint64_t>> linkTcBytes;
    /// link id → PAUSE frames sent on it per paused traffic class (8 entries; RESUME frames
    /// included); links that sent none are absent
    std::map<uint32_t, std::vector<uint64_t>> linkPauseTx;
    std::map<std::string, uint64_t> drops; //!< drop reason → frames (switches and devices)
    uint64_t pauseFrames{0};               //!< PAUSE frames sent by all devices
    uint64_t retransmittedPackets{0};      //!< RDMA go-back-N retransmissions
    uint64_t timeouts{0};                  //!< RDMA retransmission-timer expiries
    bool complete{true};                   //!< every measured job finished before stopTime
    /// jobs that completed no iteration inside the measurement window: utilization cannot
    /// count them, so it is marked incomplete in the table and summary.json
    /// ("utilizationIncomplete") rather than silently lower
    std::vector<std::string> jobsOutsideWindow;
    double simulatedTime{0}; //!< simulation end time, seconds
    double wallSeconds{0};   //!< wall-clock time of Simulator::Run, seconds
    uint64_t events{0};      //!< ns-3 events executed by the run (Simulator::GetEventCount)

    /// packet fabric: largest queue (bytes, Ethernet header included) any device held, per
    /// class (TC 0..7, then the control class of ACK/NAK/CNP); empty for the flow fabric
    std::vector<uint64_t> maxQueueBytes;

    /// sampled per-link throughput (ns3::LinkThroughputSampler::Interval > 0), in time order,
    /// then link, then class; only (link, class) pairs that carried bytes in the interval
    std::vector<LinkThroughputSample> linkThroughput;
    double linkThroughputInterval{0}; //!< its sampling interval, seconds (0 = not sampled)

    /// What the run stands for in the experiment (RunRole, drivers/experiment-summary.h):
    /// "alone@ECMP", "alone@free", "alone@paths:<scheduler>", "mix:<scheduler>",
    /// "mix/one-class:<scheduler>", "profile"; one run can stand for several (the same
    /// simulation, doc/crux.rst "Measurement methodology")
    std::vector<std::string> roles;
    /// the ECMP seeds the run stands for (Scenario::seed .. seed + seeds − 1): the seeds for
    /// which the run's simulation is this one
    std::vector<uint64_t> seeds;
    uint64_t ecmpSeed{0}; //!< the ECMP hash seed the run was simulated with
    /// what the simulation depends on besides the scenario (ScenarioRun::Plan): equal
    /// signatures, equal simulations
    std::string signature;
};

/**
 * \ingroup crux
 * \brief Encode a run's result for the way back from a forked child process (RunParallel) or
 * another MPI rank: nlohmann-json as MessagePack, which keeps every double's bits.
 * \param r the result
 * \return the bytes (ExperimentRunResultFromBytes() gives \p r back, field for field)
 */
std::string ExperimentRunResultToBytes(const ExperimentRunResult& r);

/**
 * \ingroup crux
 * \brief Decode ExperimentRunResultToBytes().
 * \param bytes what ExperimentRunResultToBytes() returned
 * \return the result
 */
ExperimentRunResult ExperimentRunResultFromBytes(const std::string& bytes);

} // namespace ns3

#endif // CRUX_EXPERIMENT_RESULT_H
