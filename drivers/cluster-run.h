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

#ifndef CRUX_CLUSTER_RUN_H
#define CRUX_CLUSTER_RUN_H

#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/contention-decomposition.h"
#include "ns3/dlt-job.h"
#include "ns3/lingjun-trace.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Every knob of a trace-driven cluster run (ClusterRun).
 *
 * Times are seconds. The trace's clock starts at the first submission of the trace (t = 0);
 * the window and all output times use that clock.
 */
struct ClusterRunConfig
{
    // ------------------------------------------------------------------ topology
    /// "clos" (two-layer Clos, BuildTwoLayerClos), "double-sided" (BuildDoubleSided) or
    /// "lingjun" (BuildThreeTier on the hosts/ToRs/PSWs of topoCsv).
    std::string topology{"clos"};
    /// topo.csv of the Lingjun trace; required for topology "lingjun" (and for reading a real
    /// trace, whose worker.csv names the hosts of this file).
    std::string topoCsv;
    ClosConfig clos;               //!< builder config of "clos"
    DoubleSidedConfig doubleSided; //!< builder config of "double-sided"
    ThreeTierConfig threeTier;     //!< builder config of "lingjun"
    /// Cap on the equal-cost candidate paths of one flow (ClusterTopology::EqualCostPaths).
    uint32_t maxPaths{64};
    /**
     * Intra-host links (AddIntraHostLinks(): per host a GPU node per GPU, a PCIe switch per NIC
     * shared by its GPUs, an NVSwitch; rates, delays and their sources: IntraHostConfig).
     * enabled = false (default): none, every result as without this field. With them both
     * engines carry every flow GPU -> PCIe switch -> NIC -> network -> NIC -> PCIe switch ->
     * GPU, single-host jobs all-reduce over NVLink (DltJob::intraHostAllReduce), and t_j / I_j
     * include the intra-host links (Crux Definition 2).
     */
    IntraHostConfig intraHost;

    // ------------------------------------------------------------------ placement
    /// "locality", "random" or "buddy" (ParsePlacementPolicy; GpuPlacer), or "trace": the
    /// hosts the trace recorded for the job (TraceJob::hosts, host index = topology host index;
    /// for hand-built traces and for replaying the real Lingjun placement). With "trace" a job
    /// waits in the FIFO queue until its recorded hosts have the GPUs free; its GPU count per
    /// host must be equal on all its hosts.
    std::string placement{"locality"};
    uint64_t placementSeed{1}; //!< seed of the random / buddy placement draws

    // ------------------------------------------------------------------ scheduling
    /// Scheduler names (CreateCommScheduler): one independent run per name, same trace. "optimal"
    /// is refused (exhaustive search, small cases only).
    std::vector<std::string> schedulers{"crux", "ecmp"};
    uint32_t numLevels{8}; //!< K priority levels (Crux §6.1 uses 8)
    /**
     * Engine "epoch": a scheduler that meant one unique priority per job
     * (Decision::uniquePriorities: crux-pa, crux-ps-pa) is evaluated with one priority class
     * per job (its rank), as the paper evaluates Crux-PA and Crux-PS-PA (without compression).
     * false: every scheduler is evaluated on its K hardware levels (JobDecision::level; for
     * those two: the top K-1 ranks get their own level, the rest share level 0). Engine "flow"
     * always uses the levels (DSCP 8L -> TC L on the fabric).
     */
    bool uniquePriorities{true};
    /// Seed of the schedulers (SchedulerConfig::seed), of the ECMP hash (EcmpPathIndex), of the
    /// model draw for unknown labels (ModelMapper) and of the generated trace.
    uint64_t seed{1};

    // ------------------------------------------------------------------ trace
    /// job.csv and worker.csv of a real trace (both or neither). Empty: a trace is generated
    /// with GenerateLingjunTrace (seed, traceDays) on a Lingjun-like host list made from the
    /// topology (the recorded hosts are then meaningless and ignored unless placement is
    /// "trace").
    std::string jobCsv;
    std::string workerCsv; //!< see jobCsv
    double traceDays{14};  //!< submission span of a generated trace, days (> 0)
    /// Arrival rate of a generated trace, job.csv rows per day (> 0, at most 1e5); the default
    /// is the real trace's 5,180 rows over 14 days (LingjunGeneratorConfig::jobsPerDay). Raise
    /// it to study a more loaded cluster.
    double jobsPerDay{5180.0 / 14.0};
    /// Hand-built trace: if non-empty it is used as is (jobCsv and generation are ignored).
    /// TraceJob::modelLabel may be a model zoo key. Times: TraceJob::submit / start / end.
    std::vector<TraceJob> jobs;

    // ------------------------------------------------------------------ window and output
    /// Jobs whose arrival (trace start time, relative to the first submission) lies in
    /// [windowStart, windowEnd) are run; windowEnd = -1 = the whole trace (other negative values
    /// are rejected).
    double windowStart{0};
    double windowEnd{-1};
    /// After windowEnd no job arrives; the run goes on for at most drainSeconds so that the
    /// window's jobs can finish; jobs still running then are reported unfinished.
    double drainSeconds{2 * 86400.0};
    double binSeconds{3600}; //!< bin width of link-intensity.csv, seconds (> 0)
    /// Output directory; one subdirectory per scheduler. Empty: nothing is written.
    std::string outputDir;

    // ------------------------------------------------------------------ engine
    /// "epoch" (steady rates per epoch, FlowEvaluator) or "flow" (LiveClusterFabric).
    std::string engine{"epoch"};
    /**
     * What a trace job must do. "iterations" (default): its trace duration x its stand-alone
     * iteration rate, so contention lengthens its JCT and, as long as the cluster is not
     * saturated, the cluster's total work (hence the window's mean GPU utilization) hardly
     * depends on the scheduler. "duration": the job runs exactly its trace duration (the
     * trace's recorded run time) and completes as many iterations as the rates allow, so a
     * scheduler's effect shows in the utilization (GPU-seconds of computation done) instead.
     */
    std::string workModel{"iterations"};
    /// FlowEvaluator horizon in longest stand-alone iterations of a component (> 0). Measured
    /// on two weeks of the generated trace (Clos, random placement): 4 and 12 give mean JCTs
    /// within 0.01 % of each other; 12 costs 2.5x the wall time under ECMP.
    double horizonIterations{4};
    /// FlowEvaluator steady-state extension limit, multiples of the horizon (>= 1; 1 = none):
    /// a job without a whole iteration interval after the warm-up by the horizon is simulated
    /// on until it has one (FlowEvaluatorOptions::steadyHorizonLimit). Without it, jobs whose
    /// iterations are longer than the stand-alone estimate (llama-7b on 12-80 GPUs in 2 days of
    /// the generated trace) were rated at half their speed, alone as well as in contention.
    double steadyHorizonLimit{16};
    /// FlowEvaluator warm-up fraction [0, 1).
    double warmupFraction{0.25};

    // ------------------------------------------------------------------ progress
    /**
     * Wall-clock seconds between progress lines on stderr (>= 0, finite; 0 = none). A line
     * "crux-trace-run: <scheduler>: sim <x> d of <window end> d, <events> events, <running>
     * running, <queued> queued, wall <s> s" is printed at the first arrival or completion
     * handled after each interval. Checked at event handling only (no simulator events), so
     * it never changes a result.
     */
    double progressSeconds{0};

    /// Scheduler runs at a time (>= 1), each in its own child process (RunParallel); 1 = one
    /// after another in this process. The results do not depend on it.
    uint32_t parallelRuns{1};

    /**
     * \brief Check every field.
     * \throws std::invalid_argument "ClusterRunConfig.<field>: <what is wrong>"
     */
    void Validate() const;
};

/**
 * \ingroup crux
 * \brief Result of one job in one run (one row of jobs.csv).
 */
struct ClusterJobResult
{
    uint32_t id{0};          //!< run-local job id (index in the window's job list)
    std::string name;        //!< trace job name
    std::string model;       //!< model zoo key
    uint32_t gpus{0};        //!< GPUs
    uint32_t hosts{0};       //!< hosts (0 if never placed)
    double submit{0};        //!< trace submission, seconds
    double arrival{0};       //!< arrival = trace start time, seconds
    double start{-1};        //!< placement time in the run, seconds (-1: never placed)
    double end{-1};          //!< completion, seconds (-1: unfinished)
    double work{0};          //!< iterations to run = trace duration × alone rate
    double done{0};          //!< iterations completed (fractional)
    double aloneIter{0};     //!< stand-alone iteration time, seconds
    double flopsPerIter{0};  //!< W_j, FLOPs
    double intensity{0};     //!< I_j alone on default paths, FLOPs/s
    bool unplaceable{false}; //!< the shape can never fit the topology (skipped)
};

/**
 * \ingroup crux
 * \brief One row of utilization.csv (state from time on until the next row).
 */
struct ClusterUtilSample
{
    double time{0};        //!< seconds
    uint32_t running{0};   //!< running jobs
    uint32_t queued{0};    //!< queued jobs
    uint32_t busyGpus{0};  //!< GPUs allocated to running jobs
    double utilization{0}; //!< Σ_j numGpus_j c_j rate_j / total GPUs (0..1)
    /// The same sum with each running job at its stand-alone rate on its ECMP default paths
    /// (1 / aloneIter): the utilization without any contention and without path selection.
    double aloneDefault{0};
    /// The same sum with each running job at its stand-alone rate on its currently installed
    /// paths (the job alone in the cluster, the scheduler's path choice): without contention
    /// between jobs.
    double aloneInstalled{0};
};

/**
 * \ingroup crux
 * \brief One row of decisions.csv.
 */
struct ClusterDecisionRow
{
    double time{0};           //!< seconds
    uint32_t job{0};          //!< run-local job id
    uint32_t level{0};        //!< installed level (K-1 highest)
    uint32_t rank{0};         //!< rank in the scheduler's order (0 highest)
    uint32_t pathsChanged{0}; //!< flows whose path differs from the previous installed one
                              //!< (a new job: from its ECMP default path)
};

/**
 * \ingroup crux
 * \brief Everything one scheduler's run produced. (Every field is also listed in cluster-run.cc
 * for the way back from a child process, RunAll(): a new field goes there too.)
 */
struct ClusterRunResult
{
    std::string scheduler;                     //!< scheduler name
    std::vector<ClusterJobResult> jobs;        //!< per window job
    std::vector<ClusterUtilSample> util;       //!< utilization series
    std::vector<ClusterDecisionRow> decisions; //!< installed decisions
    /// (bin index, link id) -> (bytes, Σ bytes × intensity) of that bin
    std::map<std::pair<uint64_t, uint32_t>, std::pair<double, double>> linkBins;
    double windowStart{0};     //!< seconds
    double windowEnd{0};       //!< seconds (effective)
    double simEnd{0};          //!< last simulated time, seconds
    double meanUtilization{0}; //!< time-weighted over the window, 0..1
    /// ClusterUtilSample::aloneDefault time-weighted over the window like meanUtilization
    double meanUtilAloneDefault{0};
    /// ClusterUtilSample::aloneInstalled time-weighted over the window like meanUtilization
    double meanUtilAloneInstalled{0};
    /// busyGpus / total GPUs, time-weighted over the window like meanUtilization: the
    /// utilization if communication cost nothing (every running job compute-bound), the
    /// ceiling of the contention decomposition (0..1)
    double meanBusyFraction{0};
    uint32_t jobsFinished{0}; //!< window jobs that finished
    /// trace jobs arriving in the window with zero run time (end == start: recorded at minute
    /// resolution), left out of the run (they do no measurable work); not in jobs
    uint32_t jobsZeroDuration{0};
    uint32_t jobsUnfinished{0};  //!< window jobs still running or queued at the end
    uint32_t jobsUnplaceable{0}; //!< window jobs whose shape never fits
    double meanJct{0};           //!< mean end - arrival over finished jobs, seconds
    /// true if some decision of the run was evaluated with one class per job (its rank;
    /// ClusterRunConfig::uniquePriorities and Decision::uniquePriorities), false: levels only
    bool rankClasses{false};
    uint64_t events{0};         //!< arrivals + completions handled
    uint64_t decisionsMade{0};  //!< scheduler calls
    uint64_t evaluations{0};    //!< FlowEvaluator runs (components + alone)
    uint64_t cacheHits{0};      //!< component rates served from the cache
    double schedulerSeconds{0}; //!< wall time in the scheduler (not deterministic)
    double evaluatorSeconds{0}; //!< wall time in the evaluator (not deterministic)
    double wallSeconds{0};      //!< wall time of the whole run (not deterministic)
};

/**
 * \ingroup crux
 * \brief Trace-driven cluster run: jobs of a (real or generated) Lingjun trace arrive on a
 * large topology, are placed, scheduled by a communication scheduler on every arrival and
 * completion (Crux §4.1, §5), and progress at the iteration rates the fluid FlowEvaluator gives
 * under each decision (engine "epoch"; see doc/crux.rst "Trace-driven cluster runs").
 *
 * Usage: construct with a config (validated, trace loaded, topology built), Run() each
 * scheduler or RunAll(), WriteResults().
 */
class ClusterRun
{
  public:
    /**
     * \param config the run's knobs
     * \throws std::invalid_argument naming the field for a bad config (also an output
     *         directory that cannot be written, checked before anything runs); TraceError for an
     *         unreadable trace file
     */
    explicit ClusterRun(const ClusterRunConfig& config);

    /// \return the configuration
    const ClusterRunConfig& GetConfig() const;
    /// \return the topology
    const ClusterTopology& GetTopology() const;
    /// \return the window's trace jobs (arrival order) that the runs use
    const std::vector<TraceJob>& GetWindowJobs() const;
    /**
     * \return every row or job the trace readers skipped (topo.csv, job.csv, worker.csv, and
     *         AssembleLingjunTrace()), in the order found, each "file:line: reason" via
     *         ToString(); also counted as trace_rows_skipped in summary.json. A generated trace
     *         has such rows on purpose (jobs that never ran, pods on unknown hosts, as the real
     *         trace has).
     */
    const std::vector<TraceWarning>& GetTraceWarnings() const;
    /// \return the trace time origin (first submission), LingjunTime seconds
    double GetTraceOrigin() const;
    /**
     * \return the trace jobs whose arrival lies in the window but whose run time is zero
     *         (TraceJob::Duration() == 0, e.g. gmt_job_running == gmt_job_finished at the
     *         trace's minute resolution): they are left out of the window jobs (they would count
     *         as finished with JCT 0) and reported as jobs_zero_duration in summary.json
     */
    uint32_t GetZeroDurationJobs() const;

    /**
     * \brief Run one scheduler over the window (ns-3 Simulator; destroyed afterwards).
     * \param scheduler a CreateCommScheduler name
     * \return the run's results
     * \throws std::invalid_argument for an unknown scheduler
     */
    ClusterRunResult Run(const std::string& scheduler);

    /**
     * \brief Run() of every configured scheduler: ClusterRunConfig::parallelRuns at a time,
     * each in its own child process (one after another in this process if 1); with
     * progressSeconds > 0 a line "runs done k/N" on stderr as they finish.
     * \return the results, in the order of ClusterRunConfig::schedulers
     * \throws ParallelRunError "run <scheduler>: ..." if a run failed in its child process
     */
    std::vector<ClusterRunResult> RunAll();

    /**
     * \brief Write <outputDir>/<scheduler>/{jobs.csv, utilization.csv, link-intensity.csv,
     * decisions.csv, summary.json} for each run: into a temporary directory first, renamed into
     * place when complete. Everything but summary.json's "timing" object is deterministic.
     * \param runs results of Run()
     * \throws std::runtime_error naming the path if a file cannot be written
     */
    void WriteResults(const std::vector<ClusterRunResult>& runs) const;

    /**
     * \brief Per-scheduler summary table: mean GPU utilization, jobs finished, mean JCT,
     * utilization relative to the first run, and the contention decomposition: "busy"
     * (meanBusyFraction, the utilization if communication cost nothing), "alone@ECMP"
     * (meanUtilAloneDefault), "alone@paths" (meanUtilAloneInstalled) and "inter-job loss"
     * (meanUtilAloneInstalled - meanUtilization).
     * \param runs results of Run()
     * \return multi-line text
     */
    static std::string FormatTable(const std::vector<ClusterRunResult>& runs);

    /**
     * \brief The run's contention decomposition (ns3/contention-decomposition.h, the one
     * computation shared with the scenario driver): alone@ECMP = meanUtilAloneDefault,
     * alone@paths = meanUtilAloneInstalled, mix = meanUtilization; the trace runner measures
     * no collision-free or one-class series, so those terms are absent.
     * \param r a run of Run()
     * \return the decomposition
     */
    static ContentionDecomposition Decomposition(const ClusterRunResult& r);

  private:
    /// Fail early (before any simulation) if outputDir cannot hold the results: an existing
    /// non-directory, an unwritable directory, a scheduler's subdirectory that is a file, or
    /// no writable existing ancestor. Writes nothing.
    /// \throws std::invalid_argument "ClusterRunConfig.outputDir: ..."
    void CheckOutputDir() const;
    void LoadTrace();     //!< fill m_trace from the config
    void BuildTopology(); //!< fill m_topo from the config

    ClusterRunConfig m_config;                 //!< the config
    ClusterTopology m_topo;                    //!< the topology
    LingjunTopology m_lingjun;                 //!< topo.csv (if read)
    std::vector<TraceJob> m_window;            //!< window jobs, arrival order
    uint32_t m_zeroDuration{0};                //!< window jobs left out: zero run time
    double m_origin{0};                        //!< first submission, LingjunTime seconds
    double m_windowEnd{0};                     //!< effective window end, seconds
    std::vector<TraceWarning> m_traceWarnings; //!< rows/jobs the readers skipped
};

} // namespace ns3

#endif // CRUX_CLUSTER_RUN_H
