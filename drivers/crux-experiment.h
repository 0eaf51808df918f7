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

#ifndef CRUX_EXPERIMENT_H
#define CRUX_EXPERIMENT_H

#include "ns3/checked-parse.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-scenario.h"
#include "ns3/dlt-job.h"
#include "ns3/gpu-placement.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

class ProgressReporter;

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
};

/**
 * \ingroup crux
 * \brief Measured outcome of one run (one scheduler, or one job alone). (Every field of this
 * struct and of ExperimentJobResult is also listed in crux-experiment.cc for the way back from
 * a child process, CruxExperiment::Run(): a new field goes there too.)
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
};

/**
 * \ingroup crux
 * \brief Runs a scenario (Scenario) end to end: topology, lossless RoCEv2 fabric (or the
 * flow-level fabric), DLT jobs, a communication scheduler's decision installed as UDP source
 * ports / pinned routes and DSCP, and the measurements (Crux §2.2, §6).
 *
 * Modes (RunMode):
 *  - "alone": every job runs by itself on the same topology (ECMP, one traffic class); gives
 *    the reference iteration times and, when Scenario::profileIterations > 0, the measured
 *    per-iteration communication time t_j of each job (Crux §5 profiling: the job alone, so at
 *    the top priority, averaged over its first profileIterations iterations after the first);
 *  - any scheduler name of KnownCommSchedulers() ("ecmp", "crux", ...): all jobs together.
 *
 * Measurement window of a run: from the last job start to the first completion of a measured
 * (non-background) job. A job's iteration time is the mean over its iterations that lie inside
 * the window, skipping its first iteration (connection set-up). Alone runs use all iterations
 * but the first.
 *
 * Input checks (constructor): models, scheduler names, placement (explicit hosts exist and
 * have the GPUs; automatic placement finds free hosts), priority levels; failures raise
 * ExperimentError naming the scenario file and the field. Nothing is simulated or written then.
 */
class CruxExperiment
{
  public:
    /**
     * \brief Check the scenario and place the jobs.
     * \param scenario a scenario (Scenario::Validate() is called again)
     * \throws ExperimentError (or ScenarioError) naming the field on bad input
     */
    explicit CruxExperiment(const Scenario& scenario);

    /// \return the scenario
    const Scenario& GetScenario() const;

    /// \return the placed jobs (id = index in the scenario; GPUs assigned)
    const std::vector<DltJob>& GetJobs() const;

    /// \return number of hosts of the scenario's topology
    uint32_t GetNHosts() const;

    /// \return GPUs per host of the scenario's topology
    uint32_t GetGpusPerHost() const;

    /**
     * \brief Check a list of run modes ("alone" or scheduler names).
     * \param modes the modes
     * \throws ExperimentError naming the unknown mode and the known ones
     */
    static void CheckModes(const std::vector<std::string>& modes);

    /**
     * \brief Everything Run() checks before it simulates: the modes, the output directory
     * (ResultDirectory::Problem) and, for "optimal", the size of its search space.
     * \param modes the modes
     * \throws ExperimentError naming the field (one line); nothing is simulated or written
     */
    void Check(const std::vector<std::string>& modes) const;

    /**
     * \brief Run one mode.
     * \param mode "alone" (one run per job) or a scheduler name
     * \return the runs (one per job for "alone", else one)
     * \throws ExperimentError if the mode is unknown or the decision cannot be installed
     */
    std::vector<ExperimentRunResult> RunMode(const std::string& mode);

    /**
     * \brief Run several modes in order ("alone" first if present so that the profiled t_j
     * are available to the schedulers), after Check().
     *
     * Every mode is an independent simulation; with SetParallelRuns(N > 1) they run in N forked
     * child processes at a time (RunParallel). The t_j measured alone (profileIterations > 0)
     * are an input of the scheduler runs, so then the alone (or profiling) runs go first, in
     * parallel, and the scheduler runs after them, in parallel. The results, hence the table
     * and the result files, are the same as one after another.
     * \param modes the modes
     * \return all runs in order
     * \throws ParallelRunError "run <name>: ..." if a run failed in its child process
     */
    std::vector<ExperimentRunResult> Run(const std::vector<std::string>& modes);

    /**
     * \brief How many simulations Run() and RunMode() run at a time, each in its own child
     * process. Default 1: one after another in this process (as the Python bindings use it).
     * \param jobs runs at a time (0 is taken as 1)
     */
    void SetParallelRuns(uint32_t jobs);

    /**
     * \brief Progress lines on stderr (ProgressReporter): within each simulation (simulated
     * time, iterations done of the measured jobs' iterations, time left) and over the runs
     * (runs done k/N, time left).
     * \param seconds wall seconds between two lines; 0 (default) = none
     */
    void SetProgressInterval(double seconds);

    /**
     * \brief Split every simulation over the ranks of ns-3's distributed simulator (MPI; the
     * process must have called CruxDistributed::Enable()). Each rank builds the whole fabric
     * with the nodes of CruxTopologyHelper::AssignRanks() as its own, simulates only those (links
     * between ranks are QbbRemoteChannels) and the applications of the jobs whose hosts are its;
     * the ranks then exchange what they measured (CruxDistributed::AllGather), so that every rank
     * returns the same results. A run ends at the first multiple of \p stopCheckSeconds of
     * simulated time at which every measured job is done (a collective check; a single-process
     * run ends at the completion itself), or at stopTime. Runs go one after another
     * (SetParallelRuns does not apply).
     * \param on true to split \param stopCheckSeconds period of the end-of-run check, s
     * \throws ExperimentError if the scenario's fabric is not "packet", if the rank rule does
     * not support CruxDistributed::GetSize() ranks (more ranks than ToRs), or if a job has hosts
     * on two ranks (naming the job, its hosts and their ranks)
     */
    void SetDistributed(bool on, double stopCheckSeconds = 100e-6);

    /// \return the rank that simulates each job (job id → rank; empty unless distributed)
    const std::map<uint32_t, uint32_t>& GetJobRanks() const;

    /**
     * \brief Per-iteration communication time t_j measured alone (seconds), by job id; empty
     * until an "alone" mode ran (or profiling ran) with Scenario::profileIterations > 0.
     * \return job id → t_j
     */
    const std::map<uint32_t, double>& GetMeasuredCommTimes() const;

    /**
     * \brief The result table: per run and job the iteration time, throughput, level, and the
     * change against the job alone; per run the cluster GPU utilization and its change.
     * \param runs results of Run()
     * \return multi-line text
     */
    std::string FormatTable(const std::vector<ExperimentRunResult>& runs) const;

    /**
     * \brief Write the result files into Scenario::outputDir (created if missing): summary.json,
     * jobs.csv, iterations.csv, links.csv (IP bytes per link and TC), paths.csv, pfc.csv,
     * utilization.csv, drops.csv, table.txt, and timing.csv (wall-clock seconds: the only file
     * that differs between two runs with the same seed). Files are
     * written into a temporary directory inside outputDir first and moved into place only when
     * all were written, so a failure leaves the previous contents untouched.
     * \param runs results of Run() (at least one)
     * \throws ExperimentError naming the path if a file cannot be written, or for no runs
     *         (nothing is written then)
     */
    void WriteResults(const std::vector<ExperimentRunResult>& runs) const;

  private:
    /// One simulation of Run(): the jobs, the scheduler and the t_j it sees.
    struct RunSpec
    {
        /// what the run is for
        enum Kind
        {
            ALONE,   //!< a job alone (a result row; gives its t_j and alone iteration time)
            PROFILE, //!< profiling a job alone for its t_j (no result row)
            MODE     //!< all jobs under a scheduler (a result row)
        };

        Kind kind{MODE};                //!< what the run is for
        std::string label;              //!< run label ("alone:<job>", "profile:<job>", mode)
        std::vector<uint32_t> jobIds;   //!< the jobs of the run
        std::string scheduler;          //!< scheduler name
        uint32_t iterationsOverride{0}; //!< 0 = the scenario's iterations
        /// t_j measured alone of the run's jobs that were known when the run started in
        /// sequence (job id → seconds): the run's only input from other runs
        std::map<uint32_t, double> measuredComm;
    };

    /// Run the modes, "alone" first (after CheckModes). \param ordered the modes
    /// \return the result rows in order
    std::vector<ExperimentRunResult> RunOrdered(const std::vector<std::string>& ordered);
    /// A run of \p jobIds under \p scheduler with the t_j known now. \param kind what for
    /// \param label its label \param jobIds its jobs \param scheduler scheduler name
    /// \param iterationsOverride 0 = the scenario's \return the run
    RunSpec MakeSpec(RunSpec::Kind kind,
                     const std::string& label,
                     const std::vector<uint32_t>& jobIds,
                     const std::string& scheduler,
                     uint32_t iterationsOverride) const;
    /// \return the profiling runs of the jobs whose t_j is not known yet (none if
    /// profileIterations = 0)
    std::vector<RunSpec> ProfileSpecs() const;
    /// Run \p batch (in parallel, see SetParallelRuns), note what the alone and profiling runs
    /// measured, append the result rows to \p out and clear \p batch.
    /// \param batch the runs \param out the result rows \param progress counts the runs
    void RunBatch(std::vector<RunSpec>& batch,
                  std::vector<ExperimentRunResult>& out,
                  ProgressReporter& progress);
    /// Run one simulation (in this process). \param spec the run \return the result
    ExperimentRunResult RunJobs(const RunSpec& spec) const;
    /// RunJobs() split over the MPI ranks (SetDistributed). \param spec the run \return the
    /// result, the same on every rank
    ExperimentRunResult RunJobsDistributed(const RunSpec& spec) const;
    /// Place the jobs on the topology's GPUs and build them (constructor).
    /// \throws ExperimentError naming the job's field
    void PlaceJobs();
    /// Allocate scenario job i on its listed hosts ("hosts", "gpusPerHost").
    /// \param placer the allocator \param i the job \return its GPUs per host
    /// \throws ExperimentError naming jobs[i].hosts, .gpus or .gpusPerHost
    std::vector<HostShare> PlaceOnListedHosts(GpuPlacer& placer, uint32_t i) const;
    /// Allocate scenario job i's "gpus" locality-first.
    /// \param placer the allocator \param i the job \return its GPUs per host
    /// \throws ExperimentError naming jobs[i].gpus when they do not fit
    std::vector<HostShare> PlaceByCount(GpuPlacer& placer, uint32_t i) const;
    /// The job of scenario job i from the model zoo (DltJob::FromModel) with the scenario's
    /// overrides and plan, on the GPUs placed for it.
    /// \throws ExperimentError naming the job's field
    DltJob MakeZooJob(uint32_t i, const std::vector<GpuId>& gpus) const;
    /// \throws ExperimentError "<scenario file>: <field>: <what>", always
    [[noreturn]] void Fail(const std::string& field, const std::string& what) const;
    /// The job of scenario job i that runs a Chakra trace (ChakraTrace::Load, DltJob::FromChakra)
    /// on the GPUs placed for it. \throws ExperimentError naming the file and field, the trace's
    /// file and node
    DltJob MakeChakraJob(uint32_t i, const std::vector<GpuId>& gpus) const;

    Scenario m_scenario;                       //!< the scenario
    std::vector<DltJob> m_jobs;                //!< placed jobs
    ClusterTopology m_cluster;                 //!< the scenario's cluster description
    uint32_t m_nHosts{0};                      //!< hosts of the topology
    uint32_t m_gpusPerHost{0};                 //!< GPUs per host
    std::map<uint32_t, double> m_measuredComm; //!< job id → t_j measured alone, s
    std::map<uint32_t, double> m_aloneIter;    //!< job id → iteration time alone, s
    uint32_t m_parallelRuns{1};                //!< simulations at a time
    double m_progressSeconds{0};               //!< wall seconds between progress lines
    bool m_distributed{false};                 //!< split over MPI ranks (SetDistributed)
    uint32_t m_ranks{1};                       //!< MPI ranks
    double m_stopCheckSeconds{100e-6};         //!< end-of-run check period, s
    std::map<uint32_t, uint32_t> m_jobRank;    //!< job id → rank simulating it
};

/**
 * \ingroup crux
 * \brief Split a comma-separated command-line list ("alone,ecmp,crux") into its items.
 * \param text the list; spaces around an item are dropped ("ecmp, crux" = "ecmp,crux")
 * \param field the option named in the error (e.g. "--modes")
 * \return the items, in order (empty for an empty or all-space text)
 * \throws ExperimentError "<field>: empty item in '<text>'" for an empty item ("ecmp,,crux",
 *         "ecmp,")
 */
std::vector<std::string> SplitCommaList(const std::string& text, const std::string& field);

} // namespace ns3

#endif // CRUX_EXPERIMENT_H
