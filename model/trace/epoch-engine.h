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

#ifndef CRUX_EPOCH_ENGINE_H
#define CRUX_EPOCH_ENGINE_H

#include "epoch-rate-model.h"

#include "ns3/callback.h"
#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/comm-scheduler.h"
#include "ns3/dlt-job.h"
#include "ns3/event-id.h"
#include "ns3/gpu-intensity-tracker.h"
#include "ns3/gpu-placement.h"
#include "ns3/lingjun-trace.h"
#include "ns3/model-mapping.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The knobs of the trace runs' event engine (EpochEngine): placement, scheduling, work
 * model and the output bins. ClusterRunConfig (the trace runner's whole configuration: topology,
 * trace, window, output, evaluator options, ...) derives from it, so each knob is defined once.
 *
 * Times are seconds.
 */
struct EpochEngineConfig
{
    // ------------------------------------------------------------------ placement
    /// "locality", "random" or "buddy" (ParsePlacementPolicy; GpuPlacer), or "trace": the
    /// hosts the trace recorded for the job (TraceJob::hosts, host index = topology host index;
    /// for hand-built traces and for replaying the real Lingjun placement). With "trace" a job
    /// waits until its recorded hosts have the GPUs free, whatever waits before it (no FIFO: a
    /// recorded placement is no decision); pods without GPUs hold no host, and its GPU count
    /// per host must be equal on all its other hosts (else it is unplaceable).
    std::string placement{"locality"};
    uint64_t placementSeed{1}; //!< seed of the random / buddy placement draws

    // ------------------------------------------------------------------ scheduling
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

    // ------------------------------------------------------------------ run length and bins
    /// After windowEnd no job arrives; the run goes on for at most drainSeconds so that the
    /// window's jobs can finish; jobs still running then are reported unfinished.
    double drainSeconds{2 * 86400.0};
    double binSeconds{3600}; //!< bin width of link-intensity.csv, seconds (> 0)

    // ------------------------------------------------------------------ work
    /**
     * What a trace job must do. "iterations" (default): its trace duration x its stand-alone
     * iteration rate, so contention lengthens its JCT and, as long as the cluster is not
     * saturated, the cluster's total work (hence the window's mean GPU utilization) hardly
     * depends on the scheduler. "duration": the job runs exactly its trace duration (the
     * trace's recorded run time) and completes as many iterations as the rates allow, so a
     * scheduler's effect shows in the utilization (GPU-seconds of computation done) instead.
     */
    std::string workModel{"iterations"};

    /**
     * \brief Check the engine's fields, in the order they are declared.
     * \param owner the struct name the messages start with (ClusterRunConfig checks its
     *        inherited fields with its own name)
     * \throws std::invalid_argument "<owner>.<field>: <what is wrong>"
     */
    void Validate(const std::string& owner = "EpochEngineConfig") const;
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
    /// why the job can never be placed (empty unless unplaceable), e.g. "host 3 has 8 GPUs,
    /// the job asks for 9" or unequal recorded GPUs per host under --placement=trace
    std::string unplaceableReason;
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
 * for the way back from a child process, ClusterRun::RunAll(): a new field goes there too.)
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
    /// EpochEngineConfig::uniquePriorities and Decision::uniquePriorities), false: levels only
    bool rankClasses{false};
    uint64_t events{0};         //!< arrivals + completions handled
    uint64_t decisionsMade{0};  //!< scheduler calls
    uint64_t evaluations{0};    //!< FlowEvaluator runs (components + alone)
    uint64_t cacheHits{0};      //!< component rates served from the cache
    uint64_t fluidEvents{0};    //!< fluid simulation steps of all evaluations (the work)
    double schedulerSeconds{0}; //!< wall time in the scheduler (not deterministic)
    double evaluatorSeconds{0}; //!< wall time in the evaluator (not deterministic)
    double wallSeconds{0};      //!< wall time of the whole run (not deterministic)
};

/**
 * \ingroup crux
 * \brief A placed job as the engine runs it: what runs on a live fabric and the scheduler's
 * view of it (flows, candidate paths, ECMP default, compute time, timeline).
 */
struct EpochPlacedJob
{
    /// The job (GPUs = its allocation; only a live fabric, EpochEngineFabric, runs it: the
    /// engine sets iterations and startTime before StartJob()).
    DltJob dlt;
    /// The scheduler's view; sched.id must be the engine's job id. Its flows' candidate paths
    /// are link ids of the engine's topology; SchedFlow::defaultPath is the ECMP default.
    SchedJob sched;
};

/**
 * \ingroup crux
 * \brief Jobs running on a live fabric instead of at an EpochRateModel's steady rates (engine
 * "flow" of the trace runs: LiveClusterFabric behind an adapter in the driver). The engine
 * starts each placed job on it, installs every decision on it and reads the jobs' progress
 * back at every event; it still uses its EpochRateModel for the stand-alone rates.
 */
class EpochEngineFabric
{
  public:
    /// Releases the fabric (the engine destroys it in Finish(), before Simulator::Destroy()).
    virtual ~EpochEngineFabric();

    /**
     * \brief Start a job now.
     * \param job the job (iterations 0 = until StopJob())
     * \param onFinish called with the job id when its last iteration completed; null = none
     */
    virtual void StartJob(const DltJob& job, Callback<void, uint32_t> onFinish) = 0;
    /// \brief Stop a job now (no further iterations). \param jobId a started job
    virtual void StopJob(uint32_t jobId) = 0;
    /**
     * \brief Install a decision on the running jobs (paths and levels).
     * \param model the running jobs the decision was computed on \param decision the decision
     */
    virtual void ApplyDecision(const ClusterModel& model, const Decision& decision) = 0;
    /// \return iterations the job completed so far \param jobId a started job
    virtual uint64_t CompletedIterations(uint32_t jobId) const = 0;
};

/**
 * \ingroup crux
 * \brief State of a run for a progress line (EpochEngine::SetProgressHook()).
 */
struct EpochProgress
{
    std::string scheduler; //!< scheduler of the run
    double time{0};        //!< simulated time, seconds on the trace clock
    double windowEnd{0};   //!< effective window end, seconds on the trace clock
    /// share of the run's arrivals and completions handled (0..1; each job arrives once and
    /// completes once unless found unplaceable, the drain after the window end included)
    double done{0};
    uint64_t events{0};  //!< arrivals and completions handled so far
    uint32_t running{0}; //!< running jobs
    uint32_t queued{0};  //!< jobs waiting for GPUs
};

/**
 * \ingroup crux
 * \brief The event engine of the trace-driven cluster runs (ClusterRun, doc/crux.rst
 * "Trace-driven cluster runs"): one scheduler over one window of trace jobs.
 *
 * Simulation time 0 = window start (trace clock windowStart); every output time is on the trace
 * clock (seconds after the trace's first submission). Each window job arrives at its trace start
 * time (TraceJob::start − origin), joins a FIFO queue and is placed by the GpuPlacer
 * (EpochEngineConfig::placement) in strict FIFO order (a head that does not fit blocks the
 * queue; a job whose shape can never fit is reported unplaceable and skipped); with the
 * recorded placement ("trace") each job starts when its own recorded GPUs are free. Its model is
 * the trace label if that is a ModelZoo key, else ModelMapper's (seeded) assignment; the JobBuilder
 * turns (id, model, allocated GPUs) into its DltJob and SchedJob. A placed job gets its
 * stand-alone rate (EpochRateModel::AloneRate on its ECMP default paths): aloneIter = 1 / rate,
 * intensity I_j = W_j / t_j (JobCommTime on the default paths) and, with work model
 * "iterations", work = trace duration × stand-alone rate iterations.
 *
 * At every instant with arrivals or completions (once, after all of them and their placements:
 * RequestReschedule()) the scheduler decides paths and levels of all running jobs
 * (SchedulerConfig: numLevels, seed); the engine records the decision rows and each job's
 * stand-alone rate on its newly installed paths, and asks the EpochRateModel for every running
 * job's steady rate under the decision (priority class = level, or the rank for a decision with
 * uniquePriorities when EpochEngineConfig::uniquePriorities). Between events each job advances
 * rate × elapsed iterations; its completion is scheduled at now + remaining work / rate
 * (rescheduled when the rates change; work model "duration": at start + trace duration). Link
 * traffic (rate × bytes per iteration of every job crossing a link, weighted by the decision's
 * intensity) goes into bins of binSeconds; a utilization row Σ numGpus c_j rate_j / total GPUs
 * (and the same sums at the stand-alone rates) is written per such instant. With an
 * EpochEngineFabric ("flow") the jobs run on it instead: decisions are installed on it and the
 * rates are read back as iterations completed per epoch.
 *
 * The run ends when the simulator runs out of events or at (windowEnd − windowStart) +
 * drainSeconds; Finish() then closes the books (unfinished jobs, time-weighted means over
 * [windowStart, windowEnd]).
 *
 * Usage (the caller owns the ns-3 Simulator): construct, Start(), Simulator::Run(), Finish(),
 * Simulator::Destroy(). One engine runs once.
 */
class EpochEngine
{
  public:
    /**
     * \brief Builds a placed job: its DltJob and SchedJob.
     * \param id the engine's job id (index in the window) \param zooModel its ModelZoo key
     * \param gpus its allocated GPUs (host index, local GPU), host by host
     */
    using JobBuilder = std::function<
        EpochPlacedJob(uint32_t id, const std::string& zooModel, const std::vector<GpuId>& gpus)>;
    /// Called at every arrival and completion, before it is handled (see EpochProgress).
    using ProgressHook = std::function<void(const EpochProgress&)>;

    /**
     * \param config the engine's knobs (checked: EpochEngineConfig::Validate())
     * \param topo the cluster (kept by reference: must outlive the engine)
     * \param window the window's trace jobs in arrival order (kept by reference; none with zero
     *        duration, see ClusterRun)
     * \param origin trace time of the first submission, seconds (TraceJob times − origin = the
     *        trace clock)
     * \param windowStart window start on the trace clock, seconds
     * \param windowEnd effective window end on the trace clock, seconds (> windowStart)
     * \param scheduler a CreateCommScheduler() name
     * \param builder turns a placed job into its DltJob and SchedJob (must not be null)
     * \param rates the epoch evaluation (must not be null)
     * \param fabric null: jobs progress at the rate model's steady rates (engine "epoch");
     *        else they run on this fabric (engine "flow")
     * \throws std::invalid_argument for a bad config, an unknown scheduler or a null argument
     */
    EpochEngine(const EpochEngineConfig& config,
                const ClusterTopology& topo,
                const std::vector<TraceJob>& window,
                double origin,
                double windowStart,
                double windowEnd,
                const std::string& scheduler,
                JobBuilder builder,
                std::unique_ptr<EpochRateModel> rates,
                std::unique_ptr<EpochEngineFabric> fabric = nullptr);

    /// Cancels nothing: the caller destroys the Simulator (after Finish()).
    ~EpochEngine();

    EpochEngine(const EpochEngine&) = delete;
    EpochEngine& operator=(const EpochEngine&) = delete;

    /// \brief Set the progress hook (none by default; it never changes a result).
    /// \param hook called at every event
    void SetProgressHook(ProgressHook hook);

    /**
     * \brief Schedule every window job's arrival and the simulator's stop at
     * (windowEnd − windowStart) + drainSeconds, and write the first utilization row. Call once,
     * then Simulator::Run().
     * \throws std::logic_error if called twice
     */
    void Start();

    /**
     * \brief After Simulator::Run(): advance the jobs to the last event (or to the stop time if
     * jobs are still running or queued), release the fabric and fill the result's summary.
     * \return the run's result (jobsZeroDuration 0: the caller knows them)
     * \throws std::logic_error if Start() was not called or Finish() was called already
     */
    ClusterRunResult Finish();

  private:
    /// State of one job during a run.
    struct RunJob
    {
        const TraceJob* trace{nullptr};  //!< its trace record
        ClusterJobResult res;            //!< output row
        JobShape shape;                  //!< requested shape
        bool running{false};             //!< placed and not finished
        bool finished{false};            //!< completed its work
        double rate{0};                  //!< iterations per second in the current epoch
        double lastUpdate{0};            //!< sim seconds of the last progress update
        EventId completion;              //!< pending completion event
        std::vector<uint32_t> installed; //!< installed path index per flow (empty: none yet)
        PathChoice defaults;             //!< ECMP default choice
        LinkLoad load;                   //!< bytes per iteration per link on installed paths
        double intensity{0};             //!< I_j of the installed decision, FLOPs/s
        uint64_t flowDone{0};            //!< fabric: iterations counted at the last Advance
        double aloneDefaultRate{0};      //!< iterations/s alone on the ECMP default paths
        double aloneInstalledRate{0};    //!< iterations/s alone on the installed paths
    };

    /// \return simulation seconds now
    static double Now();
    /// Call the progress hook, if any.
    void Progress();
    /// Arrival event. \param i job
    void Arrive(uint32_t i);
    /// Completion event. \param i job
    void Complete(uint32_t i);
    /// Allocation on the trace's recorded hosts. \param i job \param tj its trace record
    /// \return the allocation, nullopt if busy now \throws std::invalid_argument if it can
    /// never fit
    std::optional<std::vector<HostShare>> AllocateTrace(uint32_t i, const TraceJob& tj);
    /// Place queued jobs in FIFO order while the head fits (strict FIFO: the head blocks); with
    /// the recorded placement every queued job whose recorded GPUs are free, in queue order.
    void PlaceQueued();
    /// Start a placed job. \param i job \param alloc its GPUs
    void StartJob(uint32_t i, const std::vector<HostShare>& alloc);
    /// Add a job's link traffic at its current rate to m_linkRate. \param j the job
    void AddLinkRates(const RunJob& j);
    /// Advance every running job's progress, the link bins and the utilization integral to
    /// sim time t (the rates of the current epoch held since m_lastEvent). \param t sim seconds
    void Advance(double t);
    /// Scheduler decision over all running jobs, rates, completion events.
    void Reschedule();
    /// Reschedule() once after every event of this instant: the first arrival or completion
    /// of an instant schedules it (ScheduleNow, so it runs after the events of the instant
    /// already scheduled, e.g. arrivals of the same trace minute); a state between events of
    /// one instant lasts no time, so no decision or evaluation is spent on it.
    void RequestReschedule();
    /// The event RequestReschedule() schedules: clears m_reschedulePending, Reschedule().
    void DeferredReschedule();
    /// Record a decision for every running job: its path choice (and stand-alone rate on new
    /// paths), link loads, intensity and the decisions row.
    /// \param d the decision \param choice per running job (m_model.jobs order), filled
    void InstallDecision(const Decision& d, std::vector<PathChoice>& choice);
    /**
     * \brief Hand the rates of the running jobs (actual, stand-alone on the defaults, stand-alone
     * on the installed paths) from sim time t on to the three utilization accounts.
     * \param t sim seconds
     */
    void RecordRates(double t);
    /// Append a utilization row for the state from sim time t on. \param t sim seconds
    void Sample(double t);
    /// Fill the summary fields of m_result.
    void Summarize();

    EpochEngineConfig m_config;                  //!< config
    const ClusterTopology& m_topo;               //!< topology
    const std::vector<TraceJob>& m_window;       //!< window jobs
    double m_origin;                             //!< trace origin
    double m_ws;                                 //!< window start (trace clock)
    double m_we;                                 //!< window end (trace clock)
    Ptr<CommScheduler> m_scheduler;              //!< scheduler
    JobBuilder m_builder;                        //!< placed job -> DltJob, SchedJob
    std::unique_ptr<EpochRateModel> m_rates;     //!< epoch evaluation
    std::unique_ptr<EpochEngineFabric> m_fabric; //!< engine "flow" only
    ProgressHook m_progress;                     //!< progress hook (may be null)
    ModelMapper m_mapper;                        //!< label -> zoo model
    SchedulerConfig m_sc;                        //!< scheduler config
    std::unique_ptr<GpuPlacer> m_placer;         //!< the GPU allocator
    bool m_tracePlacement{false};                //!< placement "trace"
    bool m_fixedDuration{false};                 //!< work model "duration"
    uint32_t m_total{0};                         //!< GPUs
    uint32_t m_busy{0};                          //!< allocated GPUs
    std::vector<RunJob> m_jobs;                  //!< per window job
    std::size_t m_unplaceable{0};    //!< jobs found unplaceable (they arrive, never complete)
    std::deque<uint32_t> m_queue;    //!< FIFO of waiting jobs
    std::vector<uint32_t> m_running; //!< running jobs, start order
    ClusterModel m_model;            //!< running jobs (scheduler input)
    double m_lastEvent{0};           //!< sim seconds of the last Advance
    double m_stop{0};                //!< sim seconds of the stop
    std::map<uint32_t, std::pair<double, double>> m_linkRate; //!< link -> (B/s, B/s × I)
    ClusterRunResult m_result;                                //!< output
    /// The utilization accounts (GpuIntensityTracker's fluid input, the one place GPU
    /// utilization is computed): the jobs' rates, their stand-alone rates on the default
    /// paths and on the installed paths (the contention decomposition's references).
    Ptr<GpuIntensityTracker> m_util;
    Ptr<GpuIntensityTracker> m_utilAloneDefault;   //!< see m_util
    Ptr<GpuIntensityTracker> m_utilAloneInstalled; //!< see m_util
    double m_wall0{0};                             //!< wall clock at Start()
    bool m_started{false};                         //!< Start() was called
    bool m_finished{false};                        //!< Finish() was called
    bool m_reschedulePending{false};               //!< see RequestReschedule()
};

} // namespace ns3

#endif // CRUX_EPOCH_ENGINE_H
