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
 * arrive on a large topology, are placed, and every arrival or completion re-runs the
 * communication scheduler over all running jobs. One run per scheduler; results under
 * <outputDir>/<scheduler>/ (jobs.csv, utilization.csv, link-intensity.csv, decisions.csv,
 * summary.json; see doc/crux.rst "Trace-driven cluster runs").
 *
 *   crux-trace-run --topology=clos --schedulers=crux,ecmp --days=14 --outputDir=out
 *   crux-trace-run --windowStart=1d --windowEnd=1.25d --schedulers=crux,sincronia,ecmp
 *   crux-trace-run --topology=lingjun --topoCsv=data/lingjun-2023/topo.csv
 *
 * Bad input: one line on stderr naming the option, exit status 1, nothing written.
 */

#include "ns3/cluster-run.h"
#include "ns3/command-line.h"
#include "ns3/crux-experiment.h"
#include "ns3/data-rate.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Error in a command-line option.
struct OptionError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// \return a double parsed from text, or OptionError naming the option
double
ParseNumber(const std::string& opt, const std::string& text)
{
    try
    {
        size_t pos = 0;
        const double v = std::stod(text, &pos);
        if (pos != text.size() || !std::isfinite(v))
        {
            throw std::invalid_argument(text);
        }
        return v;
    }
    catch (const std::exception&)
    {
        throw OptionError("--" + opt + ": '" + text + "' is not a number");
    }
}

/// \return the bit rate of an ns-3 DataRate string ("100Gbps"), or OptionError naming the option
double
ParseRateBps(const std::string& opt, const std::string& text)
{
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()) || v.Get().GetBitRate() == 0)
    {
        throw OptionError("--" + opt + ": '" + text +
                          "' is not a positive data rate (e.g. 100Gbps)");
    }
    return static_cast<double>(v.Get().GetBitRate());
}

/// \return seconds for "3600", "90s", "30m", "6h", "1.5d"
double
ParseDuration(const std::string& opt, const std::string& text)
{
    if (text.empty())
    {
        throw OptionError("--" + opt + ": empty");
    }
    double unit = 1;
    std::string num = text;
    switch (text.back())
    {
    case 's':
        unit = 1;
        break;
    case 'm':
        unit = 60;
        break;
    case 'h':
        unit = 3600;
        break;
    case 'd':
        unit = 86400;
        break;
    default:
        num += "_"; // keep the whole text below
        break;
    }
    num.pop_back();
    return ParseNumber(opt, num) * unit;
}

/// \return an unsigned integer, or OptionError
uint64_t
ParseUnsigned(const std::string& opt, const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    {
        throw OptionError("--" + opt + ": '" + text + "' is not a non-negative integer");
    }
    return std::stoull(text);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topology = "clos";
    std::string topoCsv;
    std::string placement = "locality";
    std::string placementSeed = "1";
    std::string schedulers = "crux,ecmp";
    std::string seed = "1";
    std::string windowStart = "0";
    std::string windowEnd = "-1";
    std::string days = "14";
    std::string drain = "2d";
    std::string binSeconds = "3600";
    std::string outputDir = "crux-trace-run-output";
    std::string numLevels = "8";
    std::string engine = "epoch";
    std::string jobCsv;
    std::string workerCsv;
    std::string horizon = "4";
    std::string workModel = "iterations";
    std::string jobsPerDay;
    std::string hostLinkRate;
    std::string torAggRate;
    std::string aggCoreRate;
    bool quiet = false;
    bool uniquePriorities = true;
    std::string progress; // empty: 30 s, or 0 (off) with --quiet

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "clos, double-sided or lingjun", topology);
    cmd.AddValue("topoCsv", "Lingjun topo.csv (needed for lingjun and for --jobCsv)", topoCsv);
    cmd.AddValue("placement", "locality, random, buddy or trace (recorded hosts)", placement);
    cmd.AddValue("placementSeed", "Seed of the random/buddy placement", placementSeed);
    cmd.AddValue("schedulers",
                 "Comma-separated scheduler names (first = baseline of the "
                 "relative column)",
                 schedulers);
    cmd.AddValue("seed", "Seed of trace generation, model draw, ECMP hash, schedulers", seed);
    cmd.AddValue("windowStart",
                 "Window start after the first submission (s, or 30m/6h/1d)",
                 windowStart);
    cmd.AddValue("windowEnd", "Window end (s, or 30m/6h/1d); -1 = whole trace", windowEnd);
    cmd.AddValue("days", "Submission span of the generated trace (days)", days);
    cmd.AddValue("drain", "Run at most this long after windowEnd (s, or 6h/1d)", drain);
    cmd.AddValue("binSeconds", "Bin of link-intensity.csv (seconds)", binSeconds);
    cmd.AddValue("outputDir", "Output directory (one subdirectory per scheduler)", outputDir);
    cmd.AddValue("numLevels", "Priority levels K (1..8)", numLevels);
    cmd.AddValue("uniquePriorities",
                 "Epoch engine: evaluate crux-pa / crux-ps-pa with one priority class per job "
                 "(their rank, as the paper does); false = on the numLevels hardware levels",
                 uniquePriorities);
    cmd.AddValue("engine", "epoch (steady rates per epoch) or flow", engine);
    cmd.AddValue("jobCsv", "Real job.csv (with --workerCsv, --topoCsv); empty = generate", jobCsv);
    cmd.AddValue("workerCsv", "Real worker.csv", workerCsv);
    cmd.AddValue("horizonIterations", "Evaluator horizon, longest iterations", horizon);
    cmd.AddValue("workModel",
                 "iterations (trace duration x alone rate; contention lengthens JCT) or "
                 "duration (each job runs its trace duration; contention lowers utilization)",
                 workModel);
    cmd.AddValue("jobsPerDay",
                 "Arrival rate of the generated trace, jobs per day (default: the real "
                 "trace's 5180 / 14)",
                 jobsPerDay);
    cmd.AddValue("hostLinkRate",
                 "Host-ToR link rate per NIC port (e.g. 200Gbps); omit for the topology default",
                 hostLinkRate);
    cmd.AddValue("torAggRate",
                 "ToR-aggregation link rate (e.g. 100Gbps); omit for the topology default",
                 torAggRate);
    cmd.AddValue("aggCoreRate",
                 "Aggregation-core link rate (double-sided, lingjun); omit for the default",
                 aggCoreRate);
    cmd.AddValue("quiet",
                 "Do not print the table (and no progress lines unless --progress)",
                 quiet);
    cmd.AddValue("progress",
                 "Wall seconds between progress lines on stderr; 0 = none (default 30, "
                 "0 with --quiet)",
                 progress);
    cmd.Parse(argc, argv);

    ClusterRunConfig c;
    try
    {
        c.topology = topology;
        c.topoCsv = topoCsv;
        c.placement = placement;
        c.placementSeed = ParseUnsigned("placementSeed", placementSeed);
        c.schedulers = SplitCommaList(schedulers, "--schedulers");
        c.seed = ParseUnsigned("seed", seed);
        c.windowStart = ParseDuration("windowStart", windowStart);
        c.windowEnd = windowEnd == "-1" ? -1.0 : ParseDuration("windowEnd", windowEnd);
        c.traceDays = ParseNumber("days", days);
        if (!jobsPerDay.empty())
        {
            c.jobsPerDay = ParseNumber("jobsPerDay", jobsPerDay);
        }
        c.drainSeconds = ParseDuration("drain", drain);
        c.binSeconds = ParseDuration("binSeconds", binSeconds);
        c.outputDir = outputDir;
        c.numLevels = static_cast<uint32_t>(ParseUnsigned("numLevels", numLevels));
        c.uniquePriorities = uniquePriorities;
        c.engine = engine;
        c.jobCsv = jobCsv;
        c.workerCsv = workerCsv;
        c.horizonIterations = ParseNumber("horizonIterations", horizon);
        c.workModel = workModel;
        c.progressSeconds =
            progress.empty() ? (quiet ? 0.0 : 30.0) : ParseNumber("progress", progress);
        if (!hostLinkRate.empty())
        {
            const double bps = ParseRateBps("hostLinkRate", hostLinkRate);
            c.clos.hostLinkBps = bps;
            c.doubleSided.hostLinkBps = bps;
            c.threeTier.hostLinkBps = bps;
        }
        if (!torAggRate.empty())
        {
            const double bps = ParseRateBps("torAggRate", torAggRate);
            c.clos.torAggBps = bps;
            c.doubleSided.torAggBps = bps;
            c.threeTier.torAggBps = bps;
        }
        if (!aggCoreRate.empty())
        {
            if (topology == "clos")
            {
                throw OptionError("--aggCoreRate: the two-layer clos has no core layer");
            }
            const double bps = ParseRateBps("aggCoreRate", aggCoreRate);
            c.doubleSided.aggCoreBps = bps;
            c.threeTier.aggCoreBps = bps;
        }
        if (outputDir.empty())
        {
            throw OptionError("--outputDir: empty");
        }
    }
    catch (const OptionError& e)
    {
        std::cerr << "crux-trace-run: error: " << e.what() << std::endl;
        return 1;
    }
    catch (const ExperimentError& e) // SplitCommaList
    {
        std::cerr << "crux-trace-run: error: " << e.what() << std::endl;
        return 1;
    }
    // Map the config's field names back to the options for the one-line error.
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
        {"ClusterRunConfig.horizonIterations", "--horizonIterations"},
        {"ClusterRunConfig.workModel", "--workModel"},
        {"ClusterRunConfig.progressSeconds", "--progress"},
        {"ClusterRunConfig.outputDir", "--outputDir"},
        {"ClusterRunConfig.jobs:", "trace (--jobCsv / --workerCsv, or the generated one):"},
        {"ClusterRunConfig.threeTier", "--topoCsv / lingjun topology"},
    };
    try
    {
        ClusterRun run(c);
        // Skipped trace rows are reported, never silently dropped: all of them for files the
        // user gave, a count for a generated trace (it skips rows on purpose, like the real one).
        const auto& warnings = run.GetTraceWarnings();
        if (!warnings.empty())
        {
            size_t generated = 0;
            for (const auto& w : warnings)
            {
                if (w.file.rfind("generated ", 0) == 0)
                {
                    ++generated; // on purpose: jobs that never ran, pods on unknown hosts
                    continue;
                }
                std::cerr << "crux-trace-run: warning: " << ToString(w) << "\n";
            }
            const size_t listed = warnings.size() - generated;
            std::cerr << "crux-trace-run: warning: " << warnings.size()
                      << " trace rows/jobs skipped";
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
        const auto runs = run.RunAll();
        run.WriteResults(runs);
        if (!quiet)
        {
            std::cout << "trace window [" << runs.front().windowStart << ", "
                      << runs.front().windowEnd << "] s, " << run.GetWindowJobs().size()
                      << " jobs, " << run.GetTopology().NumGpus() << " GPUs (" << c.topology << ", "
                      << c.placement << " placement)\n"
                      << ClusterRun::FormatTable(runs)
                      << "busy: mean allocated GPU fraction (the utilization if communication "
                         "cost nothing); alone@ECMP / alone@paths: mean utilization with every "
                         "running job at its stand-alone rate on its ECMP default / installed "
                         "paths; "
                         "alone@paths - alone@ECMP = what the paths gain per job, inter-job "
                         "loss = alone@paths - mean util (contention between jobs)\n"
                      << "results in " << c.outputDir << "/<scheduler>/\n";
        }
        if (runs.front().jobsUnplaceable > 0)
        {
            // The same jobs for every scheduler (placement does not depend on it).
            std::cerr << "crux-trace-run: warning: " << runs.front().jobsUnplaceable
                      << " window jobs can never fit the topology (unplaceable, skipped; "
                         "finished = -1 in jobs.csv, jobs_unplaceable in summary.json)"
                      << std::endl;
        }
    }
    catch (const std::exception& e)
    {
        std::string msg = e.what();
        for (const auto& [field, option] : fieldToOption)
        {
            if (msg.rfind(field, 0) == 0)
            {
                msg = option + msg.substr(field.size());
                break;
            }
        }
        std::cerr << "crux-trace-run: error: " << msg << std::endl;
        return 1;
    }
    return 0;
}
