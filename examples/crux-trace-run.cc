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

/*
 * Trace-driven cluster run (Crux §6.3, Fig. 23-25): jobs of a generated (or real) Lingjun trace
 * arrive on a large topology, are placed, and every instant with arrivals or completions re-runs
 * the communication scheduler over all running jobs. One run per scheduler; results under
 * <outputDir>/<scheduler>/ (jobs.csv, utilization.csv, link-intensity.csv, decisions.csv,
 * summary.json; see doc/crux.rst "Trace-driven cluster runs").
 *
 *   crux-trace-run --topology=clos --schedulers=crux,ecmp --days=14 --outputDir=out
 *   crux-trace-run --windowStart=1d --windowEnd=1.25d --schedulers=crux,sincronia,ecmp
 *   crux-trace-run --topology=lingjun --topoCsv=data/lingjun-2023/topo.csv
 *   crux-trace-run --schedulers=crux,ecmp,sincronia --jobs=1   # one scheduler at a time
 *   crux-trace-run --intraHost=true --pcieRate=128Gbps   # PCIe / NVLink links in every host
 *   crux-trace-run --closTors=865 --closHosts=1250 --jobsPerDay=1850   # 5x the Clos and load
 *
 * The schedulers' runs are independent: they run in parallel, each in its own child process,
 * --jobs at a time (default: all cores); the files are the same as with --jobs=1.
 *
 * Bad input: one line on stderr naming the option, exit status 1, nothing written.
 */

#include "ns3/checked-command-line.h"
#include "ns3/checked-parse.h"
#include "ns3/cluster-run.h"
#include "ns3/config.h"
#include "ns3/crux-experiment.h"
#include "ns3/crux-run-error.h"
#include "ns3/crux-scheduler.h"
#include "ns3/data-rate.h"
#include "ns3/distributed-run.h"
#include "ns3/parallel-runs.h"
#include "ns3/roce-constants.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The program's options.
struct TraceRunOptions
{
    ClusterRunConfig c;   //!< the run's config
    std::string progress; //!< empty: 10 s, or 0 (off) with --quiet
    bool quiet{false};    //!< no table
    bool dryRun{false};   //!< check and exit
    uint32_t threads{0};  //!< threads per scheduler run (0: cores / runs at a time)
    /// the ns-3 attribute ns3::CruxIntensityPriorities::Threads was set (command line or
    /// NS_ATTRIBUTE_DEFAULT): it wins over the automatic choice
    bool threadsAttributeGiven{false};
    /// the value NS_ATTRIBUTE_DEFAULT gives ns3::CruxIntensityPriorities::Threads (checked,
    /// 1-256), 0 if it gives none: ns-3 applies it when the object is built, over SetDefault
    uint32_t envThreads{0};
};

/// Register the link-rate options (one rate for the same layer of every topology).
void
AddRateOptions(CheckedCommandLine& cmd, ClusterRunConfig& c)
{
    auto rate = [](const std::string& option, std::vector<double*> targets) {
        return [option, targets](const std::string& text) {
            const auto bps = static_cast<double>(ParseDataRate(text, option).GetBitRate());
            for (double* t : targets)
            {
                *t = bps;
            }
        };
    };
    cmd.AddConverted(
        "hostLinkRate",
        "Host-ToR link rate per NIC port (e.g. 200Gbps); omit for the topology default",
        "",
        rate("--hostLinkRate",
             {&c.clos.hostLinkBps, &c.doubleSided.hostLinkBps, &c.threeTier.hostLinkBps}));
    cmd.AddConverted("torAggRate",
                     "ToR-aggregation link rate (e.g. 100Gbps); omit for the topology default",
                     "",
                     rate("--torAggRate",
                          {&c.clos.torAggBps, &c.doubleSided.torAggBps, &c.threeTier.torAggBps}));
    cmd.AddConverted("aggCoreRate",
                     "Aggregation-core link rate (double-sided, lingjun); omit for the default",
                     "",
                     rate("--aggCoreRate", {&c.doubleSided.aggCoreBps, &c.threeTier.aggCoreBps}));
}

/// Register the intra-host link options (the scenario's topology.intraHost fields, parsed by the
/// same ParseDataRate / ParseTime; defaults from IntraHostConfig, the one place they live).
void
AddIntraHostOptions(CheckedCommandLine& cmd, ClusterRunConfig& c)
{
    IntraHostConfig& ih = c.intraHost;
    cmd.AddValue("intraHost",
                 "Intra-host links: per host a PCIe switch per NIC shared by its GPUs and an "
                 "NVSwitch (GPU paths in both engines, NVLink all-reduce of single-host jobs)",
                 ih.enabled);
    auto bps = [](double v) { return std::to_string(std::llround(v)) + "bps"; };
    auto ns = [](double v) { return std::to_string(std::llround(v * 1e9)) + "ns"; };
    cmd.AddConverted("pcieRate",
                     "With --intraHost: each PCIe link, per direction (NCCL's Gen4 x16)",
                     bps(ih.pcieBps),
                     [&ih](const std::string& text) {
                         ih.pcieBps =
                             static_cast<double>(ParseDataRate(text, "--pcieRate").GetBitRate());
                     });
    cmd.AddConverted("pcieLatency",
                     "With --intraHost: each PCIe link's one-way latency",
                     ns(ih.pcieDelay),
                     [&ih](const std::string& text) {
                         ih.pcieDelay = ParseTime(text, "--pcieLatency").GetSeconds();
                     });
    cmd.AddConverted("nvlinkRate",
                     "With --intraHost: each GPU <-> NVSwitch link, per direction (A100)",
                     bps(ih.nvlinkBps),
                     [&ih](const std::string& text) {
                         ih.nvlinkBps =
                             static_cast<double>(ParseDataRate(text, "--nvlinkRate").GetBitRate());
                     });
    cmd.AddConverted("nvlinkLatency",
                     "With --intraHost: each NVLink link's one-way latency",
                     ns(ih.nvlinkDelay),
                     [&ih](const std::string& text) {
                         ih.nvlinkDelay = ParseTime(text, "--nvlinkLatency").GetSeconds();
                     });
}

/// Register the trace and window options.
void
AddTraceOptions(CheckedCommandLine& cmd, ClusterRunConfig& c)
{
    cmd.AddConverted("windowStart",
                     "Window start after the first submission (s, or 30m/6h/1d)",
                     "0",
                     [&c](const std::string& text) {
                         c.windowStart = ParseDurationSeconds(text, "--windowStart");
                     });
    cmd.AddConverted(
        "windowEnd",
        "Window end (s, or 30m/6h/1d); -1 = whole trace",
        "-1",
        [&c](const std::string& text) { c.windowEnd = ParseDurationSeconds(text, "--windowEnd"); });
    cmd.AddValue("days", "Submission span of the generated trace (days)", c.traceDays);
    cmd.AddConverted(
        "drain",
        "Run at most this long after windowEnd (s, or 6h/1d)",
        "2d",
        [&c](const std::string& text) { c.drainSeconds = ParseDurationSeconds(text, "--drain"); });
    cmd.AddConverted("binSeconds",
                     "Bin of link-intensity.csv (seconds)",
                     "3600",
                     [&c](const std::string& text) {
                         c.binSeconds = ParseDurationSeconds(text, "--binSeconds");
                     });
    cmd.AddValue("jobCsv",
                 "Real job.csv (with --workerCsv, --topoCsv); empty = generate",
                 c.jobCsv);
    cmd.AddValue("workerCsv", "Real worker.csv", c.workerCsv);
    cmd.AddConverted(
        "jobsPerDay",
        "Arrival rate of the generated trace, jobs per day (default: the real "
        "trace's 5180 / 14)",
        "",
        [&c](const std::string& text) { c.jobsPerDay = ParseDouble(text, "--jobsPerDay"); });
}

/// Register every option of the program.
void
AddOptions(CheckedCommandLine& cmd, TraceRunOptions& o)
{
    ClusterRunConfig& c = o.c;
    cmd.Usage("Runs a Lingjun-style trace of training jobs (generated, or read from job.csv) on a "
              "cluster under each scheduler and writes per-job, utilization, link and decision "
              "files (doc/crux.rst, \"Trace-driven cluster runs\").");
    cmd.AddValue("topology", "clos, double-sided or lingjun", c.topology);
    // The Clos's size (ClosConfig; defaults: Crux §6.3's 173 ToRs and 16 aggregation switches,
    // our 250 hosts). A larger cluster keeps the load per GPU with --jobsPerDay scaled alike.
    cmd.AddValue("closTors", "With --topology=clos: ToR switches", c.clos.tors, 1, 65536);
    cmd.AddValue("closAggs",
                 "With --topology=clos: aggregation switches (the paths between two ToRs)",
                 c.clos.aggs,
                 1,
                 4096);
    cmd.AddValue("closHosts",
                 "With --topology=clos: hosts (8 GPUs each), spread evenly over the ToRs",
                 c.clos.numHosts,
                 1,
                 65536);
    cmd.AddValue("topoCsv",
                 "Lingjun topo.csv (needed for lingjun and for --jobCsv; the module ships "
                 "data/lingjun-2023/topo.csv)",
                 c.topoCsv);
    cmd.AddValue("placement", "locality, random, buddy or trace (recorded hosts)", c.placement);
    cmd.AddValue("placementSeed", "Seed of the random/buddy placement", c.placementSeed);
    cmd.AddConverted(
        "schedulers",
        "Comma-separated scheduler names (first = baseline of the "
        "relative column)",
        "crux,ecmp",
        [&c](const std::string& text) { c.schedulers = SplitCommaList(text, "--schedulers"); });
    cmd.AddValue("seed", "Seed of trace generation, model draw, ECMP hash, schedulers", c.seed);
    AddTraceOptions(cmd, c);
    c.outputDir = "crux-trace-run-output";
    cmd.AddValue("outputDir", "Output directory (one subdirectory per scheduler)", c.outputDir);
    cmd.AddValue("numLevels",
                 "Priority levels K (1..8)",
                 c.numLevels,
                 1,
                 crux::NUM_TRAFFIC_CLASSES);
    cmd.AddValue("uniquePriorities",
                 "Epoch engine: evaluate crux-pa / crux-ps-pa with one priority class per job "
                 "(their rank, as the paper does); false = on the numLevels hardware levels",
                 c.uniquePriorities);
    cmd.AddValue("engine", "epoch (steady rates per epoch) or flow", c.engine);
    cmd.AddValue("evaluator",
                 "Epoch engine's evaluation: coarse (time-scale coarsening, bounded work) or "
                 "exact (every iteration; the cross-check)",
                 c.evaluator);
    cmd.AddValue("timeline",
                 "Jobs' communication timeline: collective (one phase per collective operation; "
                 "the default) or step (one phase per instant; the numbers measured before "
                 "2026-12-05)",
                 c.timeline);
    cmd.AddValue("timescaleRatio",
                 "Coarse evaluator: in a component of one priority class, jobs at most "
                 "1/(2K) of its slowest are time-dilated by a power of two, at most into "
                 "(1/(2K), 1/K] of it (K >= 2; neighbours within 2x share a factor, a dilated "
                 "job stays at most half a slower neighbour's period)",
                 c.timescaleRatio);
    cmd.AddValue("weakLinkBound",
                 "Coarse evaluator: a link on which the jobs of a component can lengthen each "
                 "other's iteration by at most this fraction (their mean loads, the flows "
                 "counted, the higher classes' loads) does not join them; in a component of "
                 "one class (more than two jobs) the pieces keep the whole component's "
                 "dilation factors and horizon, one of several classes is cut with "
                 "--weakLinkClasses ([0, 1); 0 = no cut)",
                 c.weakLinkBound);
    cmd.AddValue("weakLinkRule",
                 "Coarse evaluator: what the weak-link cut compares with --weakLinkBound: bound "
                 "(how much the others can at most lengthen a job's iteration on the link; the "
                 "default) or overlap (the expected lengthening when the jobs' transfers meet "
                 "at random: cuts more, not a bound)",
                 c.weakLinkRule);
    cmd.AddValue("weakLinkClasses",
                 "Coarse evaluator: cut components of several priority classes too (a job's "
                 "bound counts the higher classes' mean loads on the link, not the lower ones'); "
                 "each piece is evaluated as a component of its own",
                 c.weakLinkClasses);
    cmd.AddValue("horizonIterations", "Evaluator horizon, longest iterations", c.horizonIterations);
    cmd.AddValue("steadyHorizonLimit",
                 "Evaluator: a job without a whole iteration after the warm-up is simulated on "
                 "past the horizon, up to this many horizons (>= 1; 1 = never)",
                 c.steadyHorizonLimit);
    cmd.AddValue("alignRatio",
                 "Evaluator: a job this many times faster than the slowest job of a higher class "
                 "in its component is rated over that job's window (>= 1, 1e9 = never)",
                 c.alignRatio);
    cmd.AddValue("workModel",
                 "iterations (trace duration x alone rate; contention lengthens JCT) or "
                 "duration (each job runs its trace duration; contention lowers utilization)",
                 c.workModel);
    AddRateOptions(cmd, c);
    AddIntraHostOptions(cmd, c);
    cmd.AddValue("quiet",
                 "Do not print the table (and no progress lines unless --progress, no count "
                 "of the rows the generated trace skips on purpose)",
                 o.quiet);
    cmd.AddValue("progress",
                 "Wall seconds between progress lines on stderr; 0 = none (default 10, "
                 "0 with --quiet)",
                 o.progress);
    c.parallelRuns = DefaultParallelJobs();
    cmd.AddValue("jobs",
                 "Scheduler runs at a time, each in its own process (default: all cores; 1 = "
                 "one after another in this process); the results do not depend on it",
                 c.parallelRuns,
                 1,
                 4096);
    cmd.AddValue("threads",
                 "Threads of each scheduler run for its independent computations (the "
                 "components of an epoch that the evaluator has not cached, Crux's correction "
                 "factors k_j of one decision); 0 = the cores divided by the runs at a time "
                 "(at most 256), "
                 "unless --ns3::CruxIntensityPriorities::Threads is given (then that value); "
                 "the results do not depend on it",
                 o.threads,
                 0,
                 256);
    cmd.AddValue("dryRun",
                 "Check the options, the output directory and the trace (read or generated), "
                 "print the window's size and exit without simulating",
                 o.dryRun);
}

/// \return \p msg with a config field name in front ("ClusterRunConfig.topoCsv: ...") replaced
/// by its option ("--topoCsv: ...")
std::string
WithOptionName(std::string msg)
{
    static const std::vector<std::pair<std::string, std::string>> fieldToOption = {
        {"ClusterRunConfig.topoCsv", "--topoCsv"},
        {"ClusterRunConfig.topology", "--topology"},
        {"ClusterRunConfig.placement", "--placement"},
        {"ClusterRunConfig.schedulers", "--schedulers"},
        {"ClusterRunConfig.numLevels", "--numLevels"},
        {"ClusterRunConfig.jobCsv", "--jobCsv"},
        {"ClusterRunConfig.workerCsv", "--workerCsv"},
        {"ClusterRunConfig.traceDays", "--days"},
        {"ClusterRunConfig.jobsPerDay", "--jobsPerDay"},
        {"ClusterRunConfig.windowStart", "--windowStart"},
        {"ClusterRunConfig.windowEnd", "--windowEnd"},
        {"ClusterRunConfig.drainSeconds", "--drain"},
        {"ClusterRunConfig.binSeconds", "--binSeconds"},
        {"ClusterRunConfig.engine", "--engine"},
        {"ClusterRunConfig.evaluator", "--evaluator"},
        {"ClusterRunConfig.timeline", "--timeline"},
        {"ClusterRunConfig.timescaleRatio", "--timescaleRatio"},
        {"ClusterRunConfig.weakLinkBound", "--weakLinkBound"},
        {"ClusterRunConfig.weakLinkRule", "--weakLinkRule"},
        {"ClusterRunConfig.weakLinkClasses", "--weakLinkClasses"},
        {"ClusterRunConfig.horizonIterations", "--horizonIterations"},
        {"ClusterRunConfig.steadyHorizonLimit", "--steadyHorizonLimit"},
        {"ClusterRunConfig.alignRatio", "--alignRatio"},
        {"ClusterRunConfig.workModel", "--workModel"},
        {"ClusterRunConfig.progressSeconds", "--progress"},
        {"ClusterRunConfig.parallelRuns", "--jobs"},
        {"ClusterRunConfig.evaluatorThreads", "--threads"},
        {"ClusterRunConfig.outputDir", "--outputDir"},
        {"ClusterRunConfig.jobs:", "trace (--jobCsv / --workerCsv, or the generated one):"},
        {"ClusterRunConfig.threeTier", "--topoCsv / lingjun topology"},
        {"ClusterRunConfig.clos", "--closTors / --closAggs / --closHosts"},
        {"ClusterRunConfig.intraHost", "--intraHost"},
    };
    for (const auto& [field, option] : fieldToOption)
    {
        if (msg.rfind(field, 0) == 0)
        {
            return option + msg.substr(field.size());
        }
    }
    return msg;
}

/// Skipped trace rows are reported, never silently dropped: all of them for files the user
/// gave, a count for a generated trace (it skips rows on purpose, like the real one; with
/// \p quiet that count is only in summary.json). \param run the run \param quiet --quiet
void
ReportTraceWarnings(const ClusterRun& run, bool quiet)
{
    const auto& warnings = run.GetTraceWarnings();
    const bool onPurposeOnly =
        std::all_of(warnings.begin(), warnings.end(), [](const TraceWarning& w) {
            return w.file.rfind("generated ", 0) == 0;
        });
    if (!warnings.empty() && !(quiet && onPurposeOnly))
    {
        size_t generated = 0;
        for (const auto& w : warnings)
        {
            if (w.file.rfind("generated ", 0) == 0)
            {
                ++generated; // on purpose: jobs that never ran, pods on unknown hosts
                continue;
            }
            std::cerr << "crux-trace-run: warning: " << OneLine(ToString(w)) << "\n";
        }
        const size_t listed = warnings.size() - generated;
        std::cerr << "crux-trace-run: warning: " << warnings.size() << " trace rows/jobs skipped";
        if (listed > 0)
        {
            std::cerr << " (" << listed << " listed above)";
        }
        if (generated > 0)
        {
            std::cerr << "; " << generated
                      << " by the generated trace on purpose (jobs that never ran, pods on "
                         "hosts outside the topology, as in the real trace)";
        }
        std::cerr << "; trace_rows_skipped in summary.json" << std::endl;
    }
    if (run.GetZeroDurationJobs() > 0)
    {
        std::cerr << "crux-trace-run: warning: " << run.GetZeroDurationJobs()
                  << " window jobs with zero run time (start == end) left out of the run; "
                     "jobs_zero_duration in summary.json"
                  << std::endl;
    }
}

/// Print the window, the table and the legend of its columns.
void
PrintTable(const ClusterRun& run, const std::vector<ClusterRunResult>& runs)
{
    const ClusterRunConfig& c = run.GetConfig();
    std::cout << "trace window [" << runs.front().windowStart << ", " << runs.front().windowEnd
              << "] s, " << run.GetWindowJobs().size() << " jobs, " << run.GetTopology().NumGpus()
              << " GPUs (" << c.topology << ", " << c.placement << " placement)\n"
              << ClusterRun::FormatTable(runs)
              << "busy: mean allocated GPU fraction (the utilization if communication "
                 "cost nothing); alone@ECMP / alone@paths: mean utilization with every "
                 "running job at its stand-alone rate on its ECMP default / installed "
                 "paths; "
                 "alone@paths - alone@ECMP = what the paths gain per job, inter-job "
                 "loss = alone@paths - mean util (contention between jobs)\n"
              << "results in " << c.outputDir << "/<scheduler>/\n";
}

/**
 * Warns when the default window (--windowEnd=-1: up to the last arrival) holds less than half
 * of the jobs' GPU time (found by a breaker helper: a trace whose jobs all arrive in one minute
 * had the window [0, 60] s, and every scheduler's mean utilization, averaged over it, read 0).
 * \param r a scheduler's result (the first: the jobs' run times differ little between them)
 */
void
WarnIfWindowMissesTheWork(const ClusterRunResult& r)
{
    double total = 0;  // GPU-seconds of the jobs' runs
    double inside = 0; // of them inside the window
    double last = r.windowEnd;
    for (const auto& j : r.jobs)
    {
        if (j.start < 0)
        {
            continue;
        }
        const double end = j.end >= 0 ? j.end : r.simEnd;
        total += j.gpus * std::max(0.0, end - j.start);
        inside +=
            j.gpus * std::max(0.0, std::min(end, r.windowEnd) - std::max(j.start, r.windowStart));
        last = std::max(last, end);
    }
    if (total > 0 && inside < 0.5 * total)
    {
        std::ostringstream os;
        os << std::fixed << std::setprecision(1) << "crux-trace-run: warning: the window ["
           << r.windowStart << ", " << r.windowEnd << "] s holds " << 100 * inside / total
           << " % of the jobs' GPU time (they run until " << last
           << " s): mean_gpu_utilization averages the window only (--windowEnd; -1 = the last "
              "arrival); give a later --windowEnd to measure their runs\n";
        std::cerr << os.str();
    }
}

/// The most threads ns3::CruxIntensityPriorities::Threads accepts (its checker's maximum): the
/// automatic --threads=0 stays within it on any machine.
constexpr uint32_t MAX_THREADS = 256;

/// Check, run, write and print (after the options were parsed). \param o the options
/// \return the exit status
int
RunTrace(const TraceRunOptions& o)
{
    uint32_t threads = o.threads;
    if (threads == 0 && o.threadsAttributeGiven)
    {
        // keep the attribute's value (--threads absent or 0)
    }
    else if (threads == 0)
    {
        const auto runsAtOnce = static_cast<uint32_t>(
            std::max<std::size_t>(1,
                                  std::min<std::size_t>(o.c.parallelRuns, o.c.schedulers.size())));
        threads = std::min(MAX_THREADS, std::max(1U, DefaultParallelJobs() / runsAtOnce));
    }
    // Before any scheduler exists (the runs in child processes inherit it).
    if (threads > 0)
    {
        Config::SetDefault("ns3::CruxIntensityPriorities::Threads", UintegerValue(threads));
    }
    // The epoch evaluation uses as many: the attribute's default (set above, or by
    // --ns3::CruxIntensityPriorities::Threads), read without creating the object.
    TypeId::AttributeInformation info;
    TypeId::LookupByName("ns3::CruxIntensityPriorities").LookupAttributeByName("Threads", &info);
    const auto used = DynamicCast<const UintegerValue>(info.initialValue);
    ClusterRunConfig c = o.c;
    c.evaluatorThreads = o.envThreads > 0 ? o.envThreads
                         : used ? std::max<uint32_t>(1, static_cast<uint32_t>(used->Get()))
                                : 1;
    ClusterRun run(c);
    ReportTraceWarnings(run, o.quiet);
    if (run.GetJobsRunningAtWindowStart() > 0)
    {
        // a new-user finding: a six-hour window in mid-trace read Crux 10.6 % over ECMP from an
        // empty cluster, without a word
        std::cerr << "crux-trace-run: warning: the cluster starts empty at --windowStart ("
                  << c.windowStart << " s): " << run.GetJobsRunningAtWindowStart()
                  << " jobs of the trace that arrived before it and ran past it are not run, so "
                     "the window's first hours hold less load than the trace had there (a cold "
                     "start; compare schedulers over one window, and prefer a window from the "
                     "first arrival)"
                  << std::endl;
    }
    if (o.dryRun)
    {
        std::cout << "dry run: " << run.GetWindowJobs().size() << " window jobs, "
                  << run.GetTopology().NumGpus() << " GPUs (" << o.c.topology << "), "
                  << c.evaluatorThreads
                  << " thread(s) per scheduler run; nothing simulated or written\n";
        return 0;
    }
    const auto runs = run.RunAll();
    run.WriteResults(runs);
    if (!o.quiet)
    {
        PrintTable(run, runs);
    }
    if (c.windowEnd < 0)
    {
        WarnIfWindowMissesTheWork(runs.front()); // a window the user did not choose
    }
    if (runs.front().jobsUnplaceable > 0)
    {
        // The same jobs for every scheduler (placement does not depend on it).
        std::string first;
        for (const auto& j : runs.front().jobs)
        {
            if (j.unplaceable)
            {
                first = "; the first, job " + OneLine(j.name) + ": " + j.unplaceableReason;
                break;
            }
        }
        std::cerr << "crux-trace-run: warning: " << runs.front().jobsUnplaceable
                  << " window jobs can never be placed (unplaceable, skipped; "
                     "finished = -1 in jobs.csv, jobs_unplaceable in summary.json"
                  << first << ")" << std::endl;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    TraceRunOptions o;
    CheckedCommandLine cmd(__FILE__);
    AddOptions(cmd, o);
    try
    {
        cmd.Parse(argc, argv);
        if (CruxDistributed::LauncherSize() > 1)
        {
            throw InputError("mpirun",
                             "started with " + std::to_string(CruxDistributed::LauncherSize()) +
                                 " processes: crux-trace-run does not run distributed (every "
                                 "process would run the whole trace and write the same files); "
                                 "--jobs runs the schedulers in parallel");
        }
        const std::string attribute = "ns3::CruxIntensityPriorities::Threads";
        for (int i = 1; i < argc; ++i)
        {
            const std::string arg = argv[i];
            o.threadsAttributeGiven |= arg.find("-" + attribute + "=") != std::string::npos;
        }
        // NS_ATTRIBUTE_DEFAULT ("name=value|name=value"): checked here, since ns-3 aborts on a
        // bad value when it builds the object and lets a good one override --threads
        const char* env = std::getenv("NS_ATTRIBUTE_DEFAULT");
        std::istringstream entries(env != nullptr ? env : "");
        for (std::string entry; std::getline(entries, entry, '|');)
        {
            if (entry.rfind(attribute + "=", 0) != 0)
            {
                continue;
            }
            const std::string value = entry.substr(attribute.size() + 1);
            const bool digits = !value.empty() && value.size() <= 3 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            const unsigned long v = digits ? std::stoul(value) : 0;
            if (v < 1 || v > MAX_THREADS)
            {
                throw InputError("NS_ATTRIBUTE_DEFAULT",
                                 attribute + " must be a whole number in [1, " +
                                     std::to_string(MAX_THREADS) + "] (got '" + value + "')");
            }
            o.envThreads = static_cast<uint32_t>(v);
            o.threadsAttributeGiven = true;
        }
        if (o.envThreads > 0 && o.threads > 0)
        {
            throw InputError("--threads",
                             "conflicts with " + attribute +
                                 " in NS_ATTRIBUTE_DEFAULT, which ns-3 applies over it; give one");
        }
        o.c.progressSeconds =
            o.progress.empty() ? (o.quiet ? 0.0 : 10.0) : ParseDouble(o.progress, "--progress");
        for (const char* name : {"closTors", "closAggs", "closHosts"})
        {
            // (an unknown --topology is named by its own check later)
            if (cmd.IsGiven(name) && (o.c.topology == "double-sided" || o.c.topology == "lingjun"))
            {
                throw InputError(std::string("--") + name,
                                 "applies to --topology=clos only (got --topology=" + o.c.topology +
                                     ")");
            }
        }
        if (cmd.IsGiven("topoCsv") && o.c.topology != "lingjun" && o.c.jobCsv.empty())
        {
            // a generated trace is laid on the run's own topology: the file would be ignored
            throw InputError("--topoCsv",
                             "applies to --topology=lingjun or to a trace read with --jobCsv "
                             "(got --topology=" +
                                 o.c.topology + ")");
        }
        for (const char* name :
             {"timescaleRatio", "weakLinkBound", "weakLinkRule", "weakLinkClasses"})
        {
            // the exact evaluation has no coarsening and no cut: the option would be ignored
            if (cmd.IsGiven(name) && o.c.evaluator == "exact")
            {
                throw InputError(std::string("--") + name,
                                 "applies to --evaluator=coarse only (got --evaluator=exact)");
            }
        }
        if (cmd.IsGiven("aggCoreRate") && o.c.topology == "clos")
        {
            throw InputError("--aggCoreRate", "the two-layer clos has no core layer");
        }
        for (const char* name : {"pcieRate", "pcieLatency", "nvlinkRate", "nvlinkLatency"})
        {
            if (cmd.IsGiven(name) && !o.c.intraHost.enabled)
            {
                throw InputError(std::string("--") + name,
                                 "applies to intra-host links only; add --intraHost=true");
            }
        }
    }
    catch (const InputError& e)
    {
        std::cerr << "crux-trace-run: error: " << OneLine(e.what()) << std::endl;
        return 1;
    }
    try
    {
        return RunTrace(o);
    }
    catch (const std::exception& e)
    {
        const auto* run = dynamic_cast<const CruxRunError*>(&e);
        if (run != nullptr && run->GetLines().size() > 1)
        {
            std::cerr << CruxRunError::Format("crux-trace-run", e); // one line per stuck job
        }
        else
        {
            std::cerr << "crux-trace-run: error: " << OneLine(WithOptionName(CruxRunError::What(e)))
                      << std::endl;
        }
        return 1;
    }
}
