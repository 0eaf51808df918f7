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
#include "ns3/epoch-engine.h"
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
 * \brief Every knob of a trace-driven cluster run (ClusterRun): the event engine's
 * (EpochEngineConfig: placement, placementSeed, numLevels, uniquePriorities, seed, drainSeconds,
 * binSeconds, workModel) and the runner's own (topology, trace, window, output, engine and
 * evaluator, progress).
 *
 * Times are seconds. The trace's clock starts at the first submission of the trace (t = 0);
 * the window and all output times use that clock.
 */
struct ClusterRunConfig : public EpochEngineConfig
{
    // Special members out of line (cluster-run.cc): cppyy's JIT then calls the library's instead
    // of generating them (cling 2.4.2 crashed generating the derived struct's constructor).
    ClusterRunConfig();                                       //!< defaults as declared
    ~ClusterRunConfig();                                      //!< destructor
    ClusterRunConfig(const ClusterRunConfig&);                //!< copy
    ClusterRunConfig(ClusterRunConfig&&) noexcept;            //!< move
    ClusterRunConfig& operator=(const ClusterRunConfig&);     //!< copy \return *this
    ClusterRunConfig& operator=(ClusterRunConfig&&) noexcept; //!< move \return *this

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

    // ------------------------------------------------------------------ scheduling
    /// Scheduler names (CreateCommScheduler): one independent run per name, same trace. "optimal"
    /// is refused (exhaustive search, small cases only).
    std::vector<std::string> schedulers{"crux", "ecmp"};

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
    /// Output directory; one subdirectory per scheduler. Empty: nothing is written.
    std::string outputDir;

    // ------------------------------------------------------------------ engine
    /// "epoch" (steady rates per epoch, FlowEvaluator) or "flow" (LiveClusterFabric).
    std::string engine{"epoch"};
    /**
     * Epoch engine: how an epoch's rates are evaluated. "coarse" (default): the component's
     * fluid simulation with time-scale coarsening (CoarseEpochRateModel: a job much faster than
     * the component's slowest is simulated as its time-dilated copy, so one evaluation's work is
     * bounded whatever the ratio of iteration times); "exact": every iteration of every job
     * (ExactEpochRateModel), the cross-check. Accuracy of coarse against exact: doc/crux.rst,
     * "Evaluator of the trace runs".
     */
    std::string evaluator{"coarse"};
    /**
     * Granularity of every job's communication timeline (the phases the evaluator, Crux's k_j
     * and the other schedulers see; TimelineGranularity): "collective" (default since
     * 2026-12-05: one phase per operation, its steps, channels and TP ranks merged, NVLink hops
     * overlapping the transfers; within 1.5 % of the flow engine's stand-alone iterations) or
     * "step" (one phase per instant at which messages start; the numbers measured before, off by
     * up to +89 % where operations of one job start together). doc/crux.rst, "Timeline
     * granularity of the trace runs".
     */
    std::string timeline{"collective"};
    /// K of the coarse evaluator (finite, >= 2, checked also with "exact"): jobs whose
    /// stand-alone iteration is at most 1/(2K) of the component's longest are dilated by a power
    /// of two, at most into (1/(2K), 1/K] of it, in components whose jobs share one priority
    /// class (neighbours within 2x share a factor; a dilated job stays at most half a slower
    /// neighbour's period: CoarseEpochRateModel).
    double timescaleRatio{4};
    /**
     * Weak-link cut of the coarse evaluator (fraction of an iteration, [0, 1); 0 = no cut;
     * ignored with "exact"): in a component of one priority class and more than two jobs, a
     * link shared by jobs that can lengthen each other's iteration there by at most this
     * fraction (their mean loads on it, the flows counted) does not join them; the pieces are
     * evaluated apart, each with the dilation factors and the horizon of the whole component
     * (ExactEpochRateModel::SetWeakLinkBound).
     * Accuracy and cost: doc/crux.rst, "Weak-link cut".
     */
    double weakLinkBound{0.01};
    /**
     * What the weak-link cut compares with weakLinkBound (WeakLinkRule): "bound" (the fraction
     * by which the others can at most lengthen a job's iteration on the link; the default) or
     * "overlap" (the expected lengthening when the jobs' transfers meet at random: cuts more,
     * is not a bound). Measured: doc/crux.rst, "The overlap rule" under "Weak-link cut".
     */
    std::string weakLinkRule{"bound"};
    /// Cut components of several priority classes too (ExactEpochRateModel::
    /// SetWeakLinkClasses; the default since 2026-12-06): a job's bound counts the higher
    /// classes' mean loads on the link in full and the lower classes' not at all. Measured:
    /// doc/crux.rst, "The cut across classes".
    bool weakLinkClasses{true};
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
    /// FlowEvaluator period alignment (>= 1, or infinity = never;
    /// FlowEvaluatorOptions::alignRatio): a job this many times faster than the slowest job of
    /// a higher class in its component is rated over that job's window, so a stretch in which
    /// the slow higher class starves it counts over whole periods.
    double alignRatio{FlowEvaluatorOptions().alignRatio};

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

    /// Threads of each scheduler run's epoch evaluation (>= 1): the components of one epoch
    /// that miss the evaluator's cache are evaluated on this many threads
    /// (ExactEpochRateModel::SetThreads). The results do not depend on it.
    uint32_t evaluatorThreads{1};

    /**
     * \brief Check every field (the engine's by EpochEngineConfig::Validate()).
     * \throws std::invalid_argument "ClusterRunConfig.<field>: <what is wrong>"
     */
    void Validate() const;

    /**
     * \brief The fluid evaluator's options of the run's epoch engine: horizonIterations,
     * steadyHorizonLimit, warmupFraction and alignRatio of this configuration, the other fields
     * FlowEvaluatorOptions' defaults (both evaluators, and the benches and tests that rate a
     * job as the trace runs do).
     * \return the options
     */
    FlowEvaluatorOptions EvaluatorOptions() const;
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
     * \return the trace's jobs that arrived before ClusterRunConfig::windowStart and, by their
     *         trace run times, were still running at it: the cluster starts without them (a
     *         cold start; crux-trace-run warns)
     */
    uint32_t GetJobsRunningAtWindowStart() const;

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
     * decisions.csv, summary.json} (ResultFiles()) for each run: into a temporary directory
     * first; every run's files are closed and checked before any is renamed into place, so a
     * failure leaves an earlier run's files as they were. Everything but summary.json's
     * "timing" object is deterministic.
     * \param runs results of Run()
     * \throws std::runtime_error naming the path if a file cannot be written
     */
    void WriteResults(const std::vector<ClusterRunResult>& runs) const;

    /// \return the names of the files WriteResults() writes into each scheduler's directory
    static const std::vector<std::string>& ResultFiles();

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
    /**
     * \param r one scheduler's run
     * \return its summary.json text (doc/crux.rst, "Output files"), without the final newline
     */
    std::string SummaryJson(const ClusterRunResult& r) const;

    /// Fail early (before any simulation) if outputDir cannot hold the results: an existing
    /// non-directory, an unwritable directory, a scheduler's subdirectory that is a file, or
    /// no writable existing ancestor. Writes nothing.
    /// \throws std::invalid_argument "ClusterRunConfig.outputDir: ..."
    void CheckOutputDir() const;
    void LoadTrace();     //!< fill m_trace from the config
    void BuildTopology(); //!< fill m_topo from the config

    ClusterRunConfig m_config;      //!< the config
    ClusterTopology m_topo;         //!< the topology
    LingjunTopology m_lingjun;      //!< topo.csv (if read)
    std::vector<TraceJob> m_window; //!< window jobs, arrival order
    uint32_t m_zeroDuration{0};     //!< window jobs left out: zero run time
    /// jobs that arrived before windowStart and ran (by the trace) past it: not run
    uint32_t m_runningAtWindowStart{0};
    double m_origin{0};                        //!< first submission, LingjunTime seconds
    double m_windowEnd{0};                     //!< effective window end, seconds
    std::vector<TraceWarning> m_traceWarnings; //!< rows/jobs the readers skipped
};

} // namespace ns3

#endif // CRUX_CLUSTER_RUN_H
