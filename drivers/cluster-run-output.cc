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
#include "result-directory.h"

#include "ns3/contention-decomposition.h"
#include "ns3/rfc4180-csv.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

// The outputs of ClusterRun (doc/crux.rst, "Output files"): jobs.csv, summary.json, the other
// CSV files and the printed table; the runs themselves are in cluster-run.cc.

namespace ns3
{

namespace
{

/// The files of a scheduler's directory (doc/crux.rst, "Output files")
constexpr const char* JOBS_FILE = "jobs.csv";
constexpr const char* UTILIZATION_FILE = "utilization.csv";       //!< see JOBS_FILE
constexpr const char* LINK_INTENSITY_FILE = "link-intensity.csv"; //!< see JOBS_FILE
constexpr const char* DECISIONS_FILE = "decisions.csv";           //!< see JOBS_FILE
constexpr const char* SUMMARY_FILE = "summary.json";              //!< see JOBS_FILE

/// jobs.csv of one run (doc/crux.rst, "Output files"). \param f the file \param r the run
void
WriteJobsCsv(std::ostream& f, const ClusterRunResult& r)
{
    f << "job,name,model,gpus,hosts,submit_s,start_s,end_s,jct_s,iterations,"
         "alone_iter_s,mean_iter_s,slowdown,flops_per_iter,intensity,arrival_s,"
         "work_iterations,finished\n";
    for (const auto& j : r.jobs)
    {
        const bool fin = j.end >= 0;
        const double until = fin ? j.end : r.simEnd;
        const double meanIter = j.start >= 0 && j.done > 0 ? (until - j.start) / j.done : 0.0;
        f << j.id << "," << CsvQuote(j.name) << "," << CsvQuote(j.model) << "," << j.gpus << ","
          << j.hosts << "," << j.submit << ",";
        if (j.start >= 0)
        {
            f << j.start;
        }
        f << ",";
        if (fin)
        {
            f << j.end;
        }
        f << ",";
        if (fin)
        {
            f << j.end - j.arrival;
        }
        f << "," << j.done << "," << j.aloneIter << "," << meanIter << ","
          << (j.aloneIter > 0 && meanIter > 0 ? meanIter / j.aloneIter : 0.0) << ","
          << j.flopsPerIter << ",";
        // +∞ (no byte on a modelled link) as "inf", which pandas and Python's float() read
        if (std::isinf(j.intensity))
        {
            f << "inf";
        }
        else if (std::isfinite(j.intensity))
        {
            f << j.intensity;
        }
        f << "," << j.arrival << "," << j.work << "," << (fin ? 1 : (j.unplaceable ? -1 : 0))
          << "\n";
    }
}

} // namespace

std::string
ClusterRun::SummaryJson(const ClusterRunResult& r) const
{
    nlohmann::ordered_json j;
    j["scheduler"] = r.scheduler;
    j["topology"] = m_config.topology;
    j["total_gpus"] = m_topo.NumGpus();
    const ClosConfig closDefaults;
    const ClosConfig& clos = m_config.clos;
    if (m_config.topology == "clos" &&
        (clos.tors != closDefaults.tors || clos.aggs != closDefaults.aggs ||
         clos.numHosts != closDefaults.numHosts))
    {
        // only for a resized Clos (--closTors / --closAggs / --closHosts): a default run keeps
        // its file byte for byte
        j["clos"] = {{"tors", clos.tors}, {"aggs", clos.aggs}, {"hosts", clos.numHosts}};
    }
    j["placement"] = m_config.placement;
    j["seed"] = m_config.seed;
    j["num_levels"] = m_config.numLevels;
    // "rank": one class per job (unique priorities, epoch engine), "level": K levels
    j["priority_classes"] = r.rankClasses ? "rank" : "level";
    j["engine"] = m_config.engine;
    j["evaluator"] = m_config.evaluator;
    // the coarse evaluator's options; null under the exact evaluation, which has none
    const bool coarse = m_config.evaluator == "coarse";
    j["timescale_ratio"] = coarse ? nlohmann::json(m_config.timescaleRatio) : nlohmann::json();
    j["weak_link_bound"] = coarse ? nlohmann::json(m_config.weakLinkBound) : nlohmann::json();
    j["weak_link_rule"] = coarse ? nlohmann::json(m_config.weakLinkRule) : nlohmann::json();
    j["weak_link_classes"] = coarse ? nlohmann::json(m_config.weakLinkClasses) : nlohmann::json();
    j["timeline"] = m_config.timeline;
    // What else defines the run, so that two runs' settings can be told apart
    // (scripts/compare-evaluators.py refuses runs that differ in them).
    j["work_model"] = m_config.workModel;
    j["unique_priorities"] = m_config.uniquePriorities;
    j["placement_seed"] = m_config.placementSeed;
    j["max_paths"] = m_config.maxPaths;
    j["horizon_iterations"] = m_config.horizonIterations;
    j["steady_horizon_limit"] = m_config.steadyHorizonLimit;
    j["warmup_fraction"] = m_config.warmupFraction;
    j["align_ratio"] = m_config.alignRatio;
    j["drain_s"] = m_config.drainSeconds;
    j["bin_s"] = m_config.binSeconds;
    if (!m_config.jobCsv.empty())
    {
        j["trace"] = {{"source", "file"},
                      {"job_csv", m_config.jobCsv},
                      {"worker_csv", m_config.workerCsv}};
    }
    else if (!m_config.jobs.empty())
    {
        j["trace"] = {{"source", "config"}, {"jobs", m_config.jobs.size()}};
    }
    else
    {
        j["trace"] = {{"source", "generated"},
                      {"days", m_config.traceDays},
                      {"jobs_per_day", m_config.jobsPerDay}};
    }
    if (!m_config.topoCsv.empty())
    {
        j["topo_csv"] = m_config.topoCsv;
    }
    // the link rates of the topology's layers, bit/s (each topology's defaults or the options)
    if (m_config.topology == "clos")
    {
        j["link_rates_bps"] = {{"host", m_config.clos.hostLinkBps},
                               {"tor_agg", m_config.clos.torAggBps}};
    }
    else if (m_config.topology == "double-sided")
    {
        j["link_rates_bps"] = {{"host", m_config.doubleSided.hostLinkBps},
                               {"tor_agg", m_config.doubleSided.torAggBps},
                               {"agg_core", m_config.doubleSided.aggCoreBps}};
    }
    else
    {
        j["link_rates_bps"] = {{"host", m_config.threeTier.hostLinkBps},
                               {"tor_agg", m_config.threeTier.torAggBps},
                               {"agg_core", m_config.threeTier.aggCoreBps}};
    }
    if (m_config.intraHost.enabled)
    {
        // only with intra-host links: a run without them keeps its file byte for byte
        const IntraHostConfig& ih = m_config.intraHost;
        j["intra_host"] = {{"pcie_bps", ih.pcieBps},
                           {"pcie_latency_s", ih.pcieDelay},
                           {"nvlink_bps", ih.nvlinkBps},
                           {"nvlink_latency_s", ih.nvlinkDelay}};
    }
    j["window"] = {{"start_s", r.windowStart}, {"end_s", r.windowEnd}};
    j["sim_end_s"] = r.simEnd;
    j["mean_gpu_utilization"] = r.meanUtilization;
    // Contention decomposition (doc/crux.rst, "Output files"): the same window mean
    // with every running job at its stand-alone rate on its ECMP default paths, and on
    // the paths the scheduler installed.
    j["utilization_alone_default"] = r.meanUtilAloneDefault;
    j["utilization_alone_installed"] = r.meanUtilAloneInstalled;
    j["busy_gpu_fraction"] = r.meanBusyFraction;
    j["jobs"] = r.jobs.size();
    j["jobs_finished"] = r.jobsFinished;
    j["jobs_unfinished"] = r.jobsUnfinished;
    j["jobs_unplaceable"] = r.jobsUnplaceable;
    j["jobs_zero_duration"] = r.jobsZeroDuration;
    j["trace_rows_skipped"] = m_traceWarnings.size();
    j["mean_jct_s"] = r.meanJct;
    j["events"] = r.events;
    j["decisions"] = r.decisionsMade;
    j["evaluations"] = r.evaluations;
    j["cache_hits"] = r.cacheHits;
    j["fluid_events"] = r.fluidEvents;
    // Wall-clock times: the only non-deterministic fields.
    j["timing"] = {{"wall_seconds", r.wallSeconds},
                   {"scheduler_seconds", r.schedulerSeconds},
                   {"evaluator_seconds", r.evaluatorSeconds}};
    return j.dump(2);
}

const std::vector<std::string>&
ClusterRun::ResultFiles()
{
    static const std::vector<std::string> files{JOBS_FILE,
                                                UTILIZATION_FILE,
                                                LINK_INTENSITY_FILE,
                                                DECISIONS_FILE,
                                                SUMMARY_FILE};
    return files;
}

void
ClusterRun::WriteResults(const std::vector<ClusterRunResult>& runs) const
{
    namespace fs = std::filesystem;
    if (m_config.outputDir.empty())
    {
        return;
    }
    // Create every scheduler's directory before writing any result, so a bad output location
    // fails before earlier results are replaced.
    std::vector<std::unique_ptr<ResultDirectory>> outs;
    for (const auto& r : runs)
    {
        outs.push_back(std::make_unique<ResultDirectory>(
            (fs::path(m_config.outputDir) / r.scheduler).string()));
    }
    for (size_t run = 0; run < runs.size(); ++run)
    {
        const ClusterRunResult& r = runs[run];
        ResultDirectory& out = *outs[run];
        auto open = [&out](const std::string& name) { return &out.Open(name); };
        WriteJobsCsv(*open(JOBS_FILE), r);
        {
            auto f = open(UTILIZATION_FILE);
            *f << "time_s,running_jobs,queued_jobs,busy_gpus,gpu_utilization,"
                  "utilization_alone_default,utilization_alone_installed\n";
            for (const auto& u : r.util)
            {
                *f << u.time << "," << u.running << "," << u.queued << "," << u.busyGpus << ","
                   << u.utilization << "," << u.aloneDefault << "," << u.aloneInstalled << "\n";
            }
        }
        {
            auto f = open(LINK_INTENSITY_FILE);
            *f << "bin_start_s,link,bytes,mean_intensity_flops_per_s\n";
            for (const auto& [key, v] : r.linkBins)
            {
                if (v.first <= 0)
                {
                    continue;
                }
                *f << key.first * m_config.binSeconds << "," << m_topo.links.at(key.second).name
                   << "," << v.first << "," << v.second / v.first << "\n";
            }
        }
        {
            auto f = open(DECISIONS_FILE);
            *f << "time_s,job,level,rank,paths_changed\n";
            for (const auto& d : r.decisions)
            {
                *f << d.time << "," << d.job << "," << d.level << "," << d.rank << ","
                   << d.pathsChanged << "\n";
            }
        }
        *open(SUMMARY_FILE) << SummaryJson(r) << "\n";
    }
    // All or nothing: every scheduler's files are closed and checked (no space left, a
    // directory where a file goes) before any replaces an earlier run's, and a file that
    // cannot be replaced puts every earlier file back (ResultDirectory::CommitAll).
    std::vector<ResultDirectory*> dirs;
    for (auto& out : outs)
    {
        dirs.push_back(out.get());
    }
    ResultDirectory::CommitAll(dirs);
}

ContentionDecomposition
ClusterRun::Decomposition(const ClusterRunResult& r)
{
    // the epoch engine's stand-alone series: every running job at its stand-alone rate on its
    // ECMP default paths (alone@ECMP) and on the installed paths (alone@paths); no one-class
    // or collision-free series
    ContentionDecomposition d;
    d.aloneEcmp = r.meanUtilAloneDefault;
    d.alonePaths = r.meanUtilAloneInstalled;
    d.mix = r.meanUtilization;
    return d;
}

std::string
ClusterRun::FormatTable(const std::vector<ClusterRunResult>& runs)
{
    std::ostringstream os;
    // the change of mean util against the first scheduler, in percent (as Fig. 23 prints it)
    const std::string vs = "vs " + (runs.empty() ? std::string("-") : runs[0].scheduler) + " (%)";
    const int vsWidth = std::max(14, static_cast<int>(vs.size()) + 2);
    os << std::left << std::setw(12) << "scheduler" << std::right << std::setw(12) << "mean util"
       << std::setw(10) << "finished" << std::setw(12) << "unfinished" << std::setw(14)
       << "mean JCT (s)" << std::setw(vsWidth) << vs << std::setw(8) << "busy" << std::setw(12)
       << "alone@ECMP" << std::setw(13) << "alone@paths" << std::setw(16) << "inter-job loss"
       << std::setw(10) << "wall (s)"
       << "\n";
    for (const auto& r : runs)
    {
        const double base = runs.front().meanUtilization;
        os << std::left << std::setw(12) << r.scheduler << std::right << std::fixed
           << std::setprecision(4) << std::setw(12) << r.meanUtilization << std::setw(10)
           << r.jobsFinished << std::setw(12) << r.jobsUnfinished << std::setprecision(1)
           << std::setw(14) << r.meanJct << std::setprecision(3) << std::setw(vsWidth);
        if (base > 0)
        {
            os << std::setprecision(2) << std::showpos << (r.meanUtilization / base - 1.0) * 100.0
               << std::noshowpos;
        }
        else
        {
            os << "n/a"; // the baseline did no work in the window: no ratio
        }
        os << std::setprecision(4) << std::setw(8) << r.meanBusyFraction << std::setw(12)
           << r.meanUtilAloneDefault << std::setw(13) << r.meanUtilAloneInstalled << std::setw(16)
           << Decomposition(r).InterJobLoss() << std::setprecision(1) << std::setw(10)
           << r.wallSeconds << "\n";
    }
    return os.str();
}

} // namespace ns3
