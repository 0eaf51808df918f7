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

/**
 * \file
 * \ingroup crux
 * Statistics of an Alibaba Lingjun 2023 trace (Crux §6.3), real or generated, printed next to
 * the published ones (data/lingjun-2023/SOURCE.md, the Crux paper).
 *
 *   # the real trace (job.csv and worker.csv downloaded from alibaba-lingjun-dataset-2023):
 *   lingjun-trace-stats --jobs=job.csv --workers=worker.csv --topo=data/lingjun-2023/topo.csv
 *   # a synthetic two-week trace on the real topology, also written to files:
 *   lingjun-trace-stats --seed=3 --days=14 --writeJobs=/tmp/job.csv --writeWorkers=/tmp/worker.csv
 *
 * Skipped rows are counted and the first --showWarnings of them printed. The mapping of the
 * model labels onto the model zoo (ModelMapper, --mapSeed) is summarised too.
 */

#include "ns3/checked-command-line.h"
#include "ns3/crux-run-error.h"
#include "ns3/lingjun-trace-generator.h"
#include "ns3/lingjun-trace.h"
#include "ns3/model-mapping.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

void
Row(const std::string& what, const std::string& ours, const std::string& published)
{
    std::printf("  %-44s %-22s %s\n", what.c_str(), ours.c_str(), published.c_str());
}

std::string
Num(double v, int decimals = 0)
{
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

std::string
Pct(double part, double whole)
{
    return whole > 0 ? Num(100.0 * part / whole, 1) + " %" : "-";
}

uint64_t
Count(const std::map<std::string, uint64_t>& m, const std::string& k)
{
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

/// The program's options.
struct StatsOptions
{
    std::string topoPath{"data/lingjun-2023/topo.csv"}; //!< topo.csv
    std::string jobsPath;                               //!< job.csv to read
    std::string workersPath;                            //!< worker.csv to read
    std::string writeJobs;                              //!< where to write the generated job.csv
    std::string writeWorkers;                           //!< where to write the generated worker.csv
    uint64_t seed{1};                                   //!< seed of the generated trace
    double days{14};                                    //!< its submission window, days
    uint64_t mapSeed{1};                                //!< seed of the model draw
    uint32_t showWarnings{10};                          //!< skipped rows printed at most
};

/// Read job.csv and worker.csv, or generate them. \param o the options \param topo topo.csv
/// \param jobs receives job.csv \param workers receives worker.csv \param warnings receives
/// the skipped rows \return where the tables come from (a line of the report)
std::string
LoadTables(const StatsOptions& o,
           const LingjunTopology& topo,
           LingjunJobTable& jobs,
           LingjunWorkerTable& workers,
           std::vector<TraceWarning>& warnings)
{
    const std::string& jobsPath = o.jobsPath;
    const std::string& workersPath = o.workersPath;
    const std::string& writeJobs = o.writeJobs;
    const std::string& writeWorkers = o.writeWorkers;
    const uint64_t seed = o.seed;
    const double days = o.days;
    std::string source;
    if (!jobsPath.empty() || !workersPath.empty())
    {
        if (jobsPath.empty() || workersPath.empty())
        {
            throw TraceError("--jobs and --workers must be given together");
        }
        jobs = ReadLingjunJobs(jobsPath, warnings);
        workers = ReadLingjunWorkers(workersPath, warnings);
        source = jobsPath + " + " + workersPath;
    }
    else
    {
        LingjunGeneratorConfig config;
        config.seed = seed;
        config.span = days * 86400.0;
        GeneratedLingjunTrace g = (!writeJobs.empty() && !writeWorkers.empty())
                                      ? WriteLingjunTrace(config, topo, writeJobs, writeWorkers)
                                      : GenerateLingjunTrace(config, topo);
        std::istringstream jobIn(g.jobCsv);
        std::istringstream workerIn(g.workerCsv);
        jobs = ParseLingjunJobs(jobIn, "generated job.csv", warnings);
        workers = ParseLingjunWorkers(workerIn, "generated worker.csv", warnings);
        source = "generated, seed " + std::to_string(seed) + ", " + Num(days, 1) + " days (" +
                 std::to_string(g.extraHosts) + " hosts outside topo.csv, " +
                 std::to_string(g.oversubscribedPods) + " oversubscribed pods)";
    }
    return source;
}

/// Print the topology and the trace's statistics beside the published numbers.
/// \param topo topo.csv \param s the statistics
void
PrintStatistics(const LingjunTopology& topo, const LingjunTraceStats& s)
{
    std::printf("topology: %zu hosts, %zu ToRs (PSW, ASW), %zu PSWs, %zu DSWs  "
                "[published: 847 hosts, 119 ToRs, 3 PSWs, 1 DSW]\n\n",
                topo.hosts.size(),
                topo.tors.size(),
                topo.psws.size(),
                topo.dsws.size());
    std::printf("  %-44s %-22s %s\n", "statistic", "this trace", "published");
    const double rows = static_cast<double>(s.jobRows);
    Row("job.csv rows", std::to_string(s.jobRows), "5,180 (\"5,000+ jobs\", paper)");
    Row("submission span, days",
        Num((s.lastSubmit - s.firstSubmit) / 86400.0, 2),
        "\"two weeks\" (paper); 7/15-7/31 in the timestamps");
    Row("job.csv rows per day", Num(s.submitsPerDay, 1), "370 (5,180 / 14 d)");
    Row("status Succeeded", Pct(Count(s.statusCounts, "Succeeded"), rows), "43.3 % (2,242)");
    Row("status Stopped", Pct(Count(s.statusCounts, "Stopped"), rows), "31.5 % (1,634)");
    Row("status Failed", Pct(Count(s.statusCounts, "Failed"), rows), "25.0 % (1,295)");
    Row("status Running", Pct(Count(s.statusCounts, "Running"), rows), "0.2 % (9)");
    Row("never ran (empty gmt_job_running)", Pct(s.neverRan, rows), "15.5 % (803)");
    Row("worker.csv rows", std::to_string(s.workerRows), "23,742");
    Row("distinct job_names in worker.csv", std::to_string(s.workerJobNames), "5,294");
    Row("... of which in job.csv", std::to_string(s.workerJobNamesInJobCsv), "5,051");
    Row("pods per worker.csv job_name", Num(s.podsPerWorkerJob, 2), "4.48");
    Row("pods asking for 8 GPUs", Num(100 * s.PodGpuShare(8), 1) + " %", "most pods");
    Row("pods asking for 1 GPU", Num(100 * s.PodGpuShare(1), 1) + " %", "second largest group");
    Row("pods asking for 2 / 4 GPUs",
        Num(100 * s.PodGpuShare(2), 1) + " / " + Num(100 * s.PodGpuShare(4), 1) + " %",
        "-");
    Row("pods on hosts not in topo.csv",
        Pct(s.unknownHostRows, static_cast<double>(s.workerRows)),
        "12-14 %");
    std::printf("\n  jobs usable for a run (ran, consistent times, >= 1 GPU, all pods on "
                "topo.csv hosts): %llu\n",
                static_cast<unsigned long long>(s.assembledJobs));
    std::map<std::string, uint64_t> sizes;
    for (const auto& [g, n] : s.jobGpuCounts)
    {
        const std::string bucket = g == 1    ? "1"
                                   : g < 8   ? "2-7"
                                   : g == 8  ? "8"
                                   : g <= 64 ? "9-64"
                                             : ">64";
        sizes[bucket] += n;
    }
    const double usable = static_cast<double>(s.assembledJobs);
    Row("job GPUs 1 / 2-7 / 8",
        Pct(Count(sizes, "1"), usable) + " / " + Pct(Count(sizes, "2-7"), usable) + " / " +
            Pct(Count(sizes, "8"), usable),
        "not published");
    Row("job GPUs 9-64 / >64",
        Pct(Count(sizes, "9-64"), usable) + " / " + Pct(Count(sizes, ">64"), usable),
        "not published");
    Row("run time median / mean, min",
        Num(s.durationMedianMin, 1) + " / " + Num(s.durationMeanMin, 1),
        "not published");
    Row("run time p25 / p90 / p99, min",
        Num(s.durationP25Min, 1) + " / " + Num(s.durationP90Min, 0) + " / " +
            Num(s.durationP99Min, 0),
        "not published");
    Row("concurrent jobs mean / peak",
        Num(s.meanConcurrentJobs, 1) + " / " + std::to_string(s.peakConcurrentJobs),
        "peak ~30 (algorithms.md, unsourced)");
    Row("busy GPUs mean / peak",
        Num(s.meanBusyGpus, 0) + " / " + std::to_string(s.peakBusyGpus),
        "\"2,000+ GPUs\" in the cluster (paper)");
}

/// Print which zoo model the usable jobs get (ModelMapper). \param trace the assembled trace
/// \param mapSeed seed of the draw for unknown labels
void
PrintModelAssignment(const LingjunTrace& trace, uint64_t mapSeed)
{
    std::map<std::string, uint64_t> zoo;
    uint64_t drawn = 0;
    ModelMapper mapper(mapSeed);
    for (const auto& j : trace.jobs)
    {
        ModelAssignment a = mapper.Map(j.modelLabel, j.name);
        ++zoo[a.zooModel];
        drawn += a.fromLabel ? 0 : 1;
    }
    std::printf("\n  model zoo assignment of the usable jobs (%llu drawn at random, seed "
                "%llu):\n",
                static_cast<unsigned long long>(drawn),
                static_cast<unsigned long long>(mapSeed));
    for (const auto& [name, n] : zoo)
    {
        std::printf("    %-22s %llu\n", name.c_str(), static_cast<unsigned long long>(n));
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    StatsOptions o;
    CheckedCommandLine cmd(__FILE__);
    cmd.AddValue("topo", "topo.csv of the Lingjun trace", o.topoPath);
    cmd.AddValue("jobs", "job.csv to read (empty: generate a trace)", o.jobsPath);
    cmd.AddValue("workers", "worker.csv to read (with --jobs)", o.workersPath);
    cmd.AddValue("seed", "Seed of the generated trace", o.seed);
    cmd.AddValue("days", "Submission window of the generated trace, days", o.days);
    cmd.AddValue("writeJobs", "Write the generated job.csv here (optional)", o.writeJobs);
    cmd.AddValue("writeWorkers", "Write the generated worker.csv here (optional)", o.writeWorkers);
    cmd.AddValue("mapSeed", "Seed of the model draw for unknown labels", o.mapSeed);
    cmd.AddValue("showWarnings", "Print at most this many skipped rows", o.showWarnings);
    try
    {
        cmd.Parse(argc, argv);
        std::vector<TraceWarning> warnings;
        LingjunTopology topo = ReadLingjunTopology(o.topoPath, warnings);
        LingjunJobTable jobs;
        LingjunWorkerTable workers;
        const std::string source = LoadTables(o, topo, jobs, workers, warnings);
        LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
        warnings.insert(warnings.end(), trace.warnings.begin(), trace.warnings.end());
        LingjunTraceStats s = ComputeLingjunTraceStats(jobs, workers, topo, trace.jobs);

        std::printf("Lingjun trace statistics: %s\n", source.c_str());
        PrintStatistics(topo, s);
        PrintModelAssignment(trace, o.mapSeed);
        std::printf("\n  skipped or suspicious rows: %zu\n", warnings.size());
        for (size_t i = 0; i < warnings.size() && i < o.showWarnings; ++i)
        {
            std::printf("    %s\n", ToString(warnings[i]).c_str());
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << CruxRunError::Format("lingjun-trace-stats", e);
        return 1;
    }
    return 0;
}
