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

#include "cluster-run.h"

#include "cluster-run-engine.h"
#include "parallel-runs.h"
#include "progress-reporter.h"
#include "result-directory.h"

#include "ns3/cluster-topology-spec.h"
#include "ns3/comm-scheduler.h"
#include "ns3/flow-evaluator.h"
#include "ns3/gpu-placement.h"
#include "ns3/lingjun-trace-generator.h"
#include "ns3/log.h"
#include "ns3/model-mapping.h"
#include "ns3/model-zoo.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterRun");

namespace
{

/// Longest window bound and drain, seconds (about 31 years): an assumption far beyond any trace,
/// well inside ns-3's clock (int64 nanoseconds, 292 years).
constexpr double MAX_RUN_SECONDS = 1e9;

/// Most bins of link-intensity.csv over the window and the drain: an assumption bounding its
/// memory (a row per bin and link with traffic; 1 s bins over three days took 2.3 GB).
constexpr double MAX_BINS = 1e5;

/// Most bins x links of link-intensity.csv (each cell with traffic costs a map node of about 80
/// bytes): an assumption; 2.5 s bins over half a day and the drain on the Clos (8e8 cells)
/// took 1.9 GB.
constexpr double MAX_BIN_CELLS = 1e8;

/// Most jobs of a generated trace: an assumption bounding its memory (300,000 took 2.4 GB).
constexpr double MAX_GENERATED_JOBS = 5e5;

/// \param x a number \param digits significant digits \return it as ostream writes it
std::string
ShortNumber(double x, int digits = 6)
{
    std::ostringstream os;
    os << std::setprecision(digits) << x;
    return os.str();
}

/// \return "ClusterRunConfig.<field>: <what>" as std::invalid_argument
std::invalid_argument
ConfigError(const std::string& field, const std::string& what)
{
    return std::invalid_argument("ClusterRunConfig." + field + ": " + what);
}

/// "; N rows skipped, e.g. <first three as file:line: reason>" (empty if none): the reasons
/// behind an input that ends up empty, for its error message.
std::string
SkippedRowsDigest(const std::vector<TraceWarning>& w)
{
    if (w.empty())
    {
        return "";
    }
    std::string out = "; " + std::to_string(w.size()) + " rows skipped, e.g. ";
    for (size_t k = 0; k < w.size() && k < 3; ++k)
    {
        out += (k > 0 ? " | " : "") + ToString(w[k]);
    }
    return out;
}

/// A Lingjun-like host list over a ClusterTopology (for the trace generator).
LingjunTopology
LingjunViewOf(const ClusterTopology& topo)
{
    LingjunTopology lt;
    uint32_t groups = 0;
    for (uint32_t g : topo.torGroup)
    {
        groups = std::max(groups, g + 1);
    }
    for (uint32_t g = 0; g < groups; ++g)
    {
        lt.psws.push_back("psw" + std::to_string(g));
    }
    lt.dsws.push_back("dsw0");
    for (uint32_t t = 0; t < topo.NumTors(); ++t)
    {
        lt.tors.emplace_back(lt.psws.at(topo.torGroup.at(t)), "asw" + std::to_string(t));
        lt.torPsw.push_back(topo.torGroup.at(t));
        lt.torDsw.push_back(0);
    }
    for (uint32_t h = 0; h < topo.NumHosts(); ++h)
    {
        lt.hosts.push_back("host" + std::to_string(h));
        lt.hostTor.push_back(topo.hostTor.at(h));
        lt.hostIndex[lt.hosts.back()] = h;
    }
    return lt;
}

} // namespace

// The results of a run as JSON, to come back from a child process (RunAll; MessagePack keeps
// every double's bits). Every field of the structs is listed.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClusterJobResult,
                                   id,
                                   name,
                                   model,
                                   gpus,
                                   hosts,
                                   submit,
                                   arrival,
                                   start,
                                   end,
                                   work,
                                   done,
                                   aloneIter,
                                   flopsPerIter,
                                   intensity,
                                   unplaceable,
                                   unplaceableReason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClusterUtilSample,
                                   time,
                                   running,
                                   queued,
                                   busyGpus,
                                   utilization,
                                   aloneDefault,
                                   aloneInstalled)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClusterDecisionRow, time, job, level, rank, pathsChanged)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClusterRunResult,
                                   scheduler,
                                   jobs,
                                   util,
                                   decisions,
                                   linkBins,
                                   windowStart,
                                   windowEnd,
                                   simEnd,
                                   meanUtilization,
                                   meanUtilAloneDefault,
                                   meanUtilAloneInstalled,
                                   meanBusyFraction,
                                   jobsFinished,
                                   jobsZeroDuration,
                                   jobsUnfinished,
                                   jobsUnplaceable,
                                   meanJct,
                                   rankClasses,
                                   events,
                                   decisionsMade,
                                   evaluations,
                                   cacheHits,
                                   fluidEvents,
                                   schedulerSeconds,
                                   evaluatorSeconds,
                                   wallSeconds)

// ------------------------------------------------------------------------------- config

ClusterRunConfig::ClusterRunConfig() = default;
ClusterRunConfig::~ClusterRunConfig() = default;
ClusterRunConfig::ClusterRunConfig(const ClusterRunConfig&) = default;
ClusterRunConfig::ClusterRunConfig(ClusterRunConfig&&) noexcept = default;
ClusterRunConfig& ClusterRunConfig::operator=(const ClusterRunConfig&) = default;
ClusterRunConfig& ClusterRunConfig::operator=(ClusterRunConfig&&) noexcept = default;

FlowEvaluatorOptions
ClusterRunConfig::EvaluatorOptions() const
{
    FlowEvaluatorOptions o;
    o.horizonIterations = horizonIterations;
    o.steadyHorizonLimit = steadyHorizonLimit;
    o.warmupFraction = warmupFraction;
    o.alignRatio = alignRatio;
    return o;
}

void
ClusterRunConfig::Validate() const
{
    if (topology != "clos" && topology != "double-sided" && topology != "lingjun")
    {
        throw ConfigError("topology", "'" + topology + "' is not clos, double-sided or lingjun");
    }
    if (topology == "lingjun" && topoCsv.empty())
    {
        throw ConfigError("topoCsv",
                          "topology lingjun needs the topo.csv path (the module ships "
                          "data/lingjun-2023/topo.csv)");
    }
    if (maxPaths == 0)
    {
        throw ConfigError("maxPaths", "must be >= 1");
    }
    // placement, numLevels, drainSeconds, binSeconds, workModel
    EpochEngineConfig::Validate("ClusterRunConfig");
    if (schedulers.empty())
    {
        throw ConfigError("schedulers", "empty");
    }
    const auto known = KnownCommSchedulers();
    for (const auto& s : schedulers)
    {
        if (std::find(known.begin(), known.end(), s) == known.end())
        {
            std::string list;
            for (const auto& k : known)
            {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw ConfigError("schedulers", "unknown scheduler '" + s + "' (known: " + list + ")");
        }
        if (std::count(schedulers.begin(), schedulers.end(), s) > 1)
        {
            throw ConfigError("schedulers", "'" + s + "' is listed twice");
        }
        if (s == "optimal")
        {
            // The exhaustive search refuses models beyond 1e6 candidates (optimal-scheduler.h):
            // at trace scale it would fail at the first busy event, so refuse it up front.
            throw ConfigError("schedulers",
                              "'optimal' is for small cases only (exhaustive search, "
                              "crux-microbenchmark), not for trace-scale runs");
        }
    }
    if (jobCsv.empty() != workerCsv.empty())
    {
        throw ConfigError(jobCsv.empty() ? "jobCsv" : "workerCsv",
                          "job.csv and worker.csv must be given together");
    }
    if (jobs.empty() && !jobCsv.empty() && topoCsv.empty())
    {
        throw ConfigError("topoCsv", "reading job.csv/worker.csv needs the topo.csv path");
    }
    if (jobs.empty() && !jobCsv.empty() && placement == "trace" && topology != "lingjun")
    {
        // the recorded hosts are rows of topo.csv: on another topology their indices would
        // name unrelated hosts
        throw ConfigError("placement",
                          "'trace' replays the hosts job.csv/worker.csv recorded, which are "
                          "topo.csv's: it needs --topology=lingjun, not '" +
                              topology + "'");
    }
    if (!(traceDays > 0) || !std::isfinite(traceDays) || traceDays > 366)
    {
        throw ConfigError("traceDays", "must be a positive number of days, at most 366");
    }
    if (!(jobsPerDay > 0) || !std::isfinite(jobsPerDay) || jobsPerDay > 1e5)
    {
        throw ConfigError("jobsPerDay", "must be a positive number of jobs per day, at most 1e5");
    }
    if (jobs.empty() && jobCsv.empty() && traceDays * jobsPerDay > MAX_GENERATED_JOBS)
    {
        throw ConfigError("jobsPerDay",
                          "x --days gives " + ShortNumber(traceDays * jobsPerDay, 12) +
                              " generated jobs; at most " + ShortNumber(MAX_GENERATED_JOBS) +
                              " (about 4 GB)");
    }
    if (!(windowStart >= 0) || !(windowStart <= MAX_RUN_SECONDS))
    {
        throw ConfigError("windowStart",
                          "must be in [0, " + ShortNumber(MAX_RUN_SECONDS) + "] seconds");
    }
    if ((windowEnd < 0 && windowEnd != -1.0) || !(windowEnd <= MAX_RUN_SECONDS))
    {
        throw ConfigError("windowEnd",
                          "must be in [0, " + ShortNumber(MAX_RUN_SECONDS) +
                              "] seconds, or exactly -1 for the whole trace");
    }
    if (!(drainSeconds <= MAX_RUN_SECONDS))
    {
        throw ConfigError("drainSeconds",
                          "must be at most " + ShortNumber(MAX_RUN_SECONDS) + " seconds");
    }
    if (windowEnd >= 0 && !(windowEnd > windowStart))
    {
        throw ConfigError("windowEnd", "must be > windowStart (or -1 for the whole trace)");
    }
    if (engine != "epoch" && engine != "flow")
    {
        throw ConfigError("engine", "'" + engine + "' is not epoch or flow");
    }
    if (evaluator != "coarse" && evaluator != "exact")
    {
        throw ConfigError("evaluator", "'" + evaluator + "' is not coarse or exact");
    }
    if (timeline != "collective" && timeline != "step")
    {
        throw ConfigError("timeline", "'" + timeline + "' is not collective or step");
    }
    if (!(timescaleRatio >= 2) || !std::isfinite(timescaleRatio))
    {
        throw ConfigError("timescaleRatio", "must be a finite number >= 2");
    }
    if (!(weakLinkBound >= 0 && weakLinkBound < 1))
    {
        throw ConfigError("weakLinkBound", "must be in [0, 1) (0 = no cut)");
    }
    if (weakLinkRule != "bound" && weakLinkRule != "overlap")
    {
        throw ConfigError("weakLinkRule", "'" + weakLinkRule + "' is not bound or overlap");
    }
    if (!(horizonIterations >= 1 && horizonIterations <= 1000))
    {
        // below one longest iteration a component's slowest job completes none in the horizon;
        // the cost grows linearly with it
        throw ConfigError("horizonIterations", "must be in [1, 1000]");
    }
    if (!(steadyHorizonLimit >= 1) || !std::isfinite(steadyHorizonLimit))
    {
        throw ConfigError("steadyHorizonLimit", "must be a finite number >= 1");
    }
    if (!(alignRatio >= 1))
    {
        throw ConfigError("alignRatio", "must be >= 1 (a large value such as 1e9: never)");
    }
    if (!(warmupFraction >= 0 && warmupFraction < 1))
    {
        throw ConfigError("warmupFraction", "must be in [0, 1)");
    }
    if (!(progressSeconds >= 0) || !std::isfinite(progressSeconds))
    {
        throw ConfigError("progressSeconds", "must be >= 0 wall seconds (0 = no progress lines)");
    }
    if (parallelRuns == 0)
    {
        throw ConfigError("parallelRuns", "must be >= 1 (1 = one run after another)");
    }
    if (evaluatorThreads == 0)
    {
        throw ConfigError("evaluatorThreads", "must be >= 1 (1 = one component at a time)");
    }
    for (size_t k = 0; k < jobs.size(); ++k)
    {
        const TraceJob& j = jobs[k];
        const std::string f = "jobs[" + std::to_string(k) + "]";
        if (j.gpus == 0)
        {
            throw ConfigError(f + ".gpus", "must be >= 1");
        }
        if (!(j.end >= j.start) || !(j.start >= j.submit))
        {
            throw ConfigError(f, "needs submit <= start <= end");
        }
    }
}

// ------------------------------------------------------------------------------- ClusterRun

ClusterRun::ClusterRun(const ClusterRunConfig& config)
    : m_config(config)
{
    m_config.Validate();
    CheckOutputDir();
    BuildTopology();
    LoadTrace();
}

void
ClusterRun::CheckOutputDir() const
{
    if (m_config.outputDir.empty())
    {
        return;
    }
    const std::string why =
        ResultDirectory::Problem(m_config.outputDir, m_config.schedulers, ResultFiles());
    if (!why.empty())
    {
        throw ConfigError("outputDir", why);
    }
}

const ClusterRunConfig&
ClusterRun::GetConfig() const
{
    return m_config;
}

const ClusterTopology&
ClusterRun::GetTopology() const
{
    return m_topo;
}

const std::vector<TraceJob>&
ClusterRun::GetWindowJobs() const
{
    return m_window;
}

double
ClusterRun::GetTraceOrigin() const
{
    return m_origin;
}

const std::vector<TraceWarning>&
ClusterRun::GetTraceWarnings() const
{
    return m_traceWarnings;
}

uint32_t
ClusterRun::GetZeroDurationJobs() const
{
    return m_zeroDuration;
}

uint32_t
ClusterRun::GetJobsRunningAtWindowStart() const
{
    return m_runningAtWindowStart;
}

void
ClusterRun::BuildTopology()
{
    std::vector<TraceWarning> warnings;
    if (!m_config.topoCsv.empty())
    {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(m_config.topoCsv, ec))
        {
            throw ConfigError("topoCsv", "'" + m_config.topoCsv + "' is not a readable file");
        }
        m_lingjun = ReadLingjunTopology(m_config.topoCsv, warnings);
        m_traceWarnings.insert(m_traceWarnings.end(), warnings.begin(), warnings.end());
    }
    if (m_config.topology == "lingjun" && m_lingjun.hostTor.empty())
    {
        throw ConfigError("topoCsv",
                          "'" + m_config.topoCsv + "' has no usable host row" +
                              SkippedRowsDigest(m_traceWarnings));
    }
    ClusterTopologySpec spec;
    spec.type = m_config.topology == "lingjun" ? "three-tier" : m_config.topology;
    spec.clos = m_config.clos;
    spec.doubleSided = m_config.doubleSided;
    spec.threeTier = m_config.threeTier;
    if (spec.type == "three-tier")
    {
        spec.hostTor = m_lingjun.hostTor;
        spec.torGroup = m_lingjun.torPsw;
    }
    try
    {
        m_topo = BuildClusterTopology(spec);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(m_config.topology == "clos"           ? "clos"
                          : m_config.topology == "double-sided" ? "doubleSided"
                                                                : "threeTier",
                          e.what());
    }
    if (m_config.intraHost.enabled)
    {
        try
        {
            AddIntraHostLinks(m_topo, m_config.intraHost);
        }
        catch (const std::invalid_argument& e)
        {
            throw ConfigError("intraHost", e.what());
        }
    }
}

void
ClusterRun::LoadTrace()
{
    std::vector<TraceJob> all;
    double origin = std::numeric_limits<double>::infinity();
    if (!m_config.jobs.empty())
    {
        all = m_config.jobs;
        for (const auto& j : all)
        {
            origin = std::min(origin, j.submit);
        }
    }
    else
    {
        std::vector<TraceWarning> warnings;
        LingjunJobTable jt;
        LingjunWorkerTable wt;
        // The real trace names topo.csv hosts; a generated one is made on a host list of the
        // run's own topology (its recorded hosts are then host indices of that topology).
        const LingjunTopology view = m_config.jobCsv.empty() && m_config.topology != "lingjun"
                                         ? LingjunViewOf(m_topo)
                                         : m_lingjun;
        if (!m_config.jobCsv.empty())
        {
            for (const auto& [path, field] :
                 {std::pair{m_config.jobCsv, "jobCsv"}, std::pair{m_config.workerCsv, "workerCsv"}})
            {
                std::error_code ec;
                if (!std::filesystem::is_regular_file(path, ec))
                {
                    throw ConfigError(field, "'" + path + "' is not a readable file");
                }
            }
            jt = ReadLingjunJobs(m_config.jobCsv, warnings);
            wt = ReadLingjunWorkers(m_config.workerCsv, warnings);
        }
        else
        {
            LingjunGeneratorConfig gc;
            gc.seed = m_config.seed;
            gc.span = m_config.traceDays * 86400.0;
            gc.jobsPerDay = m_config.jobsPerDay;
            gc.gpusPerHost = m_topo.gpusPerHost;
            const GeneratedLingjunTrace g = GenerateLingjunTrace(gc, view);
            std::istringstream js(g.jobCsv);
            std::istringstream ws(g.workerCsv);
            jt = ParseLingjunJobs(js, "generated job.csv", warnings);
            wt = ParseLingjunWorkers(ws, "generated worker.csv", warnings);
        }
        for (const auto& r : jt.rows)
        {
            origin = std::min(origin, r.submit);
        }
        LingjunTrace assembled = AssembleLingjunTrace(jt, wt, view);
        all = std::move(assembled.jobs);
        m_traceWarnings.insert(m_traceWarnings.end(), warnings.begin(), warnings.end());
        m_traceWarnings.insert(m_traceWarnings.end(),
                               assembled.warnings.begin(),
                               assembled.warnings.end());
    }
    if (all.empty())
    {
        throw ConfigError("jobs",
                          "the trace has no usable job" + SkippedRowsDigest(m_traceWarnings));
    }
    m_origin = origin;
    std::stable_sort(all.begin(), all.end(), [](const TraceJob& a, const TraceJob& b) {
        return a.start < b.start;
    });
    const double ws = m_config.windowStart;
    double lastArrival = 0;
    for (const auto& j : all)
    {
        const double a = j.start - origin;
        if (a < ws && j.Duration() > 0 && a + j.Duration() > ws)
        {
            ++m_runningAtWindowStart; // a cold start: its load is missing at the window's start
        }
        if (a >= ws && (m_config.windowEnd < 0 || a < m_config.windowEnd))
        {
            if (!(j.Duration() > 0))
            {
                // Zero run time (start == end at the trace's minute resolution): no measurable
                // work; it would count as finished with JCT 0. Left out, counted.
                ++m_zeroDuration;
                continue;
            }
            m_window.push_back(j);
            lastArrival = std::max(lastArrival, a);
        }
    }
    if (m_window.empty())
    {
        // the option that shut the jobs out: the start if it is after the trace's last arrival
        // (or no end was given), else the end
        const double first = all.front().start - origin;
        const double last = all.back().start - origin;
        const bool end = m_config.windowEnd >= 0 && ws <= last;
        const std::string where =
            " [" + ShortNumber(ws) + ", " +
            (m_config.windowEnd >= 0 ? ShortNumber(m_config.windowEnd) : std::string("end")) +
            ") s; the trace's arrivals span [" + ShortNumber(first) + ", " + ShortNumber(last) +
            "] s";
        throw ConfigError(end ? "windowEnd" : "windowStart",
                          m_zeroDuration > 0
                              ? "no job with a non-zero run time arrives in the window" + where +
                                    " (" + std::to_string(m_zeroDuration) + " zero-duration jobs)"
                              : "no job arrives in the window" + where);
    }
    m_windowEnd = m_config.windowEnd >= 0 ? m_config.windowEnd : std::max(lastArrival, ws + 1.0);
    // the run lasts at most the window and the drain; link-intensity.csv keeps a row per bin
    // and link with traffic
    const double span = m_windowEnd - ws;
    const double bins = (span + m_config.drainSeconds) / m_config.binSeconds;
    const double cells = std::ceil(bins) * static_cast<double>(m_topo.links.size());
    if (bins > MAX_BINS || cells > MAX_BIN_CELLS)
    {
        // both spans named: a long --drain is as much the cause as a narrow bin
        const std::string what = ShortNumber(m_config.binSeconds) + " s gives " +
                                 ShortNumber(std::ceil(bins), 12) + " bins over the window (" +
                                 ShortNumber(span) + " s) and the drain (" +
                                 ShortNumber(m_config.drainSeconds) + " s)";
        const std::string fix = " (a wider bin, or a shorter window or drain)";
        throw ConfigError("binSeconds",
                          bins > MAX_BINS ? what + "; at most " + ShortNumber(MAX_BINS) + fix
                                          : what + " x " + std::to_string(m_topo.links.size()) +
                                                " links = " + ShortNumber(cells) +
                                                " link-intensity cells; at most " +
                                                ShortNumber(MAX_BIN_CELLS) + fix);
    }
}

ClusterRunResult
ClusterRun::Run(const std::string& scheduler)
{
    ClusterRunResult r = RunClusterEngine(m_config,
                                          m_topo,
                                          m_window,
                                          m_origin,
                                          m_config.windowStart,
                                          m_windowEnd,
                                          scheduler);
    r.jobsZeroDuration = m_zeroDuration;
    return r;
}

std::vector<ClusterRunResult>
ClusterRun::RunAll()
{
    std::vector<ParallelRun> runs;
    for (const auto& s : m_config.schedulers)
    {
        runs.push_back(ParallelRun{s, [this, &s]() {
                                       std::string bytes;
                                       nlohmann::json::to_msgpack(nlohmann::json(Run(s)), bytes);
                                       return bytes;
                                   }});
    }
    ProgressReporter progress("crux-trace-run", m_config.progressSeconds);
    progress.StartRuns(static_cast<uint32_t>(runs.size()));
    std::vector<ClusterRunResult> out;
    for (const std::string& bytes : RunParallel(runs, m_config.parallelRuns, &progress))
    {
        out.push_back(nlohmann::json::from_msgpack(bytes).get<ClusterRunResult>());
    }
    return out;
}

} // namespace ns3
