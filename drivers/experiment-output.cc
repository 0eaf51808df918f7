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

#include "experiment-output.h"

#include "result-directory.h"

#include "ns3/double.h"
#include "ns3/gpu-intensity-tracker.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

namespace
{

/// Percentage change of x against a reference (NaN if the reference is 0).
double
PercentChange(double x, double ref)
{
    return ref > 0 ? (x / ref - 1.0) * 100.0 : std::nan("");
}

/// A percentage change as the table shows it ("+12.3%", "-" for NaN).
std::string
Pct(double v)
{
    std::ostringstream o;
    if (std::isnan(v))
    {
        o << "-";
    }
    else
    {
        o << std::showpos << std::fixed << std::setprecision(1) << v << "%";
    }
    return o.str();
}

} // namespace

ExperimentOutput::ExperimentOutput(const Scenario& scenario,
                                   uint32_t nHosts,
                                   uint32_t gpusPerHost,
                                   const std::vector<DltJob>& jobs,
                                   const std::map<uint32_t, double>& aloneIter,
                                   const std::map<uint32_t, double>& measuredComm)
    : m_scenario(scenario),
      m_nHosts(nHosts),
      m_gpusPerHost(gpusPerHost),
      m_jobs(jobs),
      m_aloneIter(aloneIter),
      m_measuredComm(measuredComm)
{
}

std::string
ExperimentOutput::FormatTable(const std::vector<ExperimentRunResult>& runs) const
{
    std::ostringstream os;
    os << std::fixed;
    os << "scenario " << m_scenario.name << " (" << m_scenario.source << "), fabric "
       << m_scenario.fabric << ", seed " << m_scenario.seed << ", " << m_nHosts << " hosts x "
       << m_gpusPerHost << " GPUs\n";
    os << std::left << std::setw(18) << "run" << std::setw(12) << "job" << std::right
       << std::setw(6) << "level" << std::setw(10) << "iters" << std::setw(14) << "iter time s"
       << std::setw(10) << "vs alone" << std::setw(14) << "throughput/s" << std::setw(10)
       << "vs alone" << std::setw(12) << "JCT s"
       << "\n";
    FormatJobRows(os, runs);
    // Peak FLOP/s per GPU: the current default of the attribute, which every run's tracker
    // was created with.
    TypeId::AttributeInformation peakInfo;
    GpuIntensityTracker::GetTypeId().LookupAttributeByName("PeakFlops", &peakInfo);
    const double peakFlops = DynamicCast<const DoubleValue>(peakInfo.initialValue)->Get();
    FormatUtilization(os, runs, peakFlops);
    if (m_scenario.fabric == "packet")
    {
        FormatPacketCounters(os, runs);
    }
    return os.str();
}

void
ExperimentOutput::FormatJobRows(std::ostream& os,
                                const std::vector<ExperimentRunResult>& runs) const
{
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            auto a = m_aloneIter.find(j.id);
            const double ref =
                (a != m_aloneIter.end() && r.run.rfind("alone:", 0) != 0) ? a->second : 0.0;
            const double refTput = ref > 0 ? 1.0 / ref : 0.0;
            os << std::left << std::setw(18) << r.run << std::setw(12) << j.name << std::right
               << std::setw(6) << j.level << std::setw(10) << j.measuredIterations << std::setw(14)
               << std::setprecision(4) << j.meanIterationTime << std::setw(10)
               << Pct(PercentChange(j.meanIterationTime, ref)) << std::setw(14)
               << std::setprecision(3) << j.throughput << std::setw(10)
               << Pct(PercentChange(j.throughput, refTput)) << std::setw(12)
               << std::setprecision(3);
            if (j.jct >= 0)
            {
                os << j.jct;
            }
            else
            {
                os << "-";
            }
            os << "\n";
        }
        if (!r.complete)
        {
            os << "  (stopTime reached before every measured job finished)\n";
        }
    }
}

void
ExperimentOutput::FormatUtilization(std::ostream& os,
                                    const std::vector<ExperimentRunResult>& runs,
                                    double peakFlops) const
{
    double aloneFlopRate = 0;
    bool allAlone = true;
    for (const auto& job : m_jobs)
    {
        auto it = m_aloneIter.find(job.id);
        if (it == m_aloneIter.end() || it->second <= 0)
        {
            allAlone = false;
            continue;
        }
        aloneFlopRate += job.flopsPerIteration / it->second;
    }
    const uint32_t gpus = m_nHosts * m_gpusPerHost;
    os << "cluster GPU utilization (" << gpus << " GPUs, " << std::setprecision(0)
       << peakFlops / 1e12 << " TFLOP/s peak each):\n";
    const double aloneUtil = aloneFlopRate / (gpus * peakFlops);
    if (allAlone)
    {
        os << "  " << std::left << std::setw(16) << "alone (sum)" << std::right
           << std::setprecision(4) << aloneUtil << "\n";
    }
    for (const auto& r : runs)
    {
        if (r.run.rfind("alone:", 0) == 0 || r.run.rfind("profile:", 0) == 0)
        {
            continue;
        }
        os << "  " << std::left << std::setw(16) << r.run << std::right << std::setprecision(4)
           << r.utilization << std::setw(10)
           << Pct(allAlone ? PercentChange(r.utilization, aloneUtil) : std::nan(""));
        if (!r.jobsOutsideWindow.empty())
        {
            os << "  INCOMPLETE: without";
            for (const auto& name : r.jobsOutsideWindow)
            {
                os << " " << name;
            }
            os << " (no iteration inside the measurement window)";
        }
        os << "\n";
    }
}

void
ExperimentOutput::FormatPacketCounters(std::ostream& os,
                                       const std::vector<ExperimentRunResult>& runs) const
{
    // Every packet-level number must come without artefacts: the counts that would show one.
    os << "packet fabric (" << m_scenario.congestionControl
       << "): PAUSE frames, drops, retransmitted packets, timeouts:\n";
    for (const auto& r : runs)
    {
        uint64_t drops = 0;
        for (const auto& [reason, n] : r.drops)
        {
            drops += n;
        }
        os << "  " << std::left << std::setw(16) << r.run << std::right << std::setw(12)
           << r.pauseFrames << std::setw(8) << drops << std::setw(12) << r.retransmittedPackets
           << std::setw(10) << r.timeouts << "\n";
    }
}

namespace
{

/// jobs.csv: one row per run and job.
void
WriteJobsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,scheduler,job,model,gpus,background,level,dscp,flops_per_iteration,"
         "scheduler_comm_time_s,intensity_flops_per_s,k,rerouted_flows,measured_iterations,"
         "mean_iteration_s,throughput_iter_per_s,mean_comm_s,jct_s\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            f << r.run << "," << r.scheduler << "," << j.name << "," << j.model << "," << j.gpus
              << "," << (j.background ? 1 : 0) << "," << j.level << "," << j.dscp << ","
              << j.flopsPerIteration << "," << j.schedulerCommTime << "," << j.intensity << ","
              << j.k << "," << j.reroutedFlows << "," << j.measuredIterations << ","
              << j.meanIterationTime << "," << j.throughput << "," << j.meanCommTime << "," << j.jct
              << "\n";
        }
    }
}

/// iterations.csv: one row per run, job and iteration.
void
WriteIterationsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,job,iteration,start_s,end_s,duration_s,allreduce_s\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            for (size_t i = 0; i < j.iterStart.size(); ++i)
            {
                f << r.run << "," << j.name << "," << i << "," << j.iterStart[i] << ","
                  << j.iterEnd[i] << "," << j.iterEnd[i] - j.iterStart[i] << "," << j.iterComm[i]
                  << "\n";
            }
        }
    }
}

/// links.csv: IP bytes per run, link and TC (non-zero only).
void
WriteLinksCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,link,tc,bytes\n";
    for (const auto& r : runs)
    {
        for (const auto& [l, tcs] : r.linkTcBytes)
        {
            for (size_t tc = 0; tc < tcs.size(); ++tc)
            {
                if (tcs[tc] > 0)
                {
                    f << r.run << "," << l << "," << tc << "," << tcs[tc] << "\n";
                }
            }
        }
    }
}

/// paths.csv: the links of every flow of every run and job.
void
WritePathsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,job,flow,links\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            for (const auto& [flow, path] : j.flowPaths)
            {
                f << r.run << "," << j.name << "," << flow << "," << path << "\n";
            }
        }
    }
}

/// pfc.csv: PAUSE frames sent per run, link and paused traffic class (rows with frames only).
void
WritePfcCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,link,tc,pause_frames_sent\n";
    for (const auto& r : runs)
    {
        for (const auto& [l, perTc] : r.linkPauseTx)
        {
            for (size_t tc = 0; tc < perTc.size(); ++tc)
            {
                if (perTc[tc] > 0)
                {
                    f << r.run << "," << l << "," << tc << "," << perTc[tc] << "\n";
                }
            }
        }
    }
}

/// drops.csv: dropped frames per run and reason.
void
WriteDropsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,reason,frames\n";
    for (const auto& r : runs)
    {
        for (const auto& [reason, n] : r.drops)
        {
            f << r.run << "," << reason << "," << n << "\n";
        }
    }
}

/// utilization.csv: the FLOP utilization series of every run.
void
WriteUtilizationCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,bin_start_s,bin_s,flop_utilization\n";
    for (const auto& r : runs)
    {
        for (size_t b = 0; b < r.utilizationSeries.size(); ++b)
        {
            f << r.run << "," << b * r.utilizationBin << "," << r.utilizationBin << ","
              << r.utilizationSeries[b] << "\n";
        }
    }
}

/// timing.csv: wall-clock seconds, simulated seconds and ns-3 events of every run (the one file
/// that differs between two runs with the same seed: the wall-clock column).
void
WriteTimingCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,wall_s,simulated_s,events\n";
    for (const auto& r : runs)
    {
        f << r.run << "," << r.wallSeconds << "," << r.simulatedTime << "," << r.events << "\n";
    }
}

/// summary.json: the scenario as it ran, the t_j measured alone and every run's numbers.
nlohmann::json
SummaryJson(const Scenario& scenario,
            const std::map<uint32_t, double>& measuredComm,
            const std::vector<ExperimentRunResult>& runs)
{
    using nlohmann::json;
    json j;
    j["scenario"] = json::parse(scenario.ToJson());
    j["measuredCommTime"] = json::object();
    for (const auto& [id, t] : measuredComm)
    {
        j["measuredCommTime"][scenario.jobs[id].name] = t;
    }
    j["runs"] = json::array();
    for (const auto& r : runs)
    {
        json jr;
        jr["run"] = r.run;
        jr["scheduler"] = r.scheduler;
        jr["complete"] = r.complete;
        jr["windowStart"] = r.windowStart;
        jr["windowEnd"] = r.windowEnd;
        jr["utilization"] = r.utilization;
        if (!r.jobsOutsideWindow.empty())
        {
            jr["utilizationIncomplete"] = r.jobsOutsideWindow; // jobs it leaves out
        }
        jr["pauseFrames"] = r.pauseFrames;
        jr["retransmittedPackets"] = r.retransmittedPackets;
        jr["timeouts"] = r.timeouts;
        jr["drops"] = r.drops;
        if (!r.maxQueueBytes.empty())
        {
            jr["maxQueueBytes"] = r.maxQueueBytes; // packet fabric: TC 0..7, control class
        }
        jr["simulatedTime"] = r.simulatedTime;
        jr["jobs"] = json::array();
        for (const auto& jb : r.jobs)
        {
            jr["jobs"].push_back({{"name", jb.name},
                                  {"model", jb.model},
                                  {"gpus", jb.gpus},
                                  {"hosts", jb.hosts},
                                  {"level", jb.level},
                                  {"dscp", jb.dscp},
                                  {"intensity", jb.intensity},
                                  {"schedulerCommTime", jb.schedulerCommTime},
                                  {"k", jb.k},
                                  {"reroutedFlows", jb.reroutedFlows},
                                  {"measuredIterations", jb.measuredIterations},
                                  {"meanIterationTime", jb.meanIterationTime},
                                  {"throughput", jb.throughput},
                                  {"meanCommTime", jb.meanCommTime},
                                  {"jct", jb.jct}});
        }
        j["runs"].push_back(jr);
    }
    return j;
}

} // namespace

void
ExperimentOutput::Write(const std::vector<ExperimentRunResult>& runs) const
{
    ResultDirectory out(m_scenario.outputDir);
    WriteJobsCsv(out.Open("jobs.csv"), runs);
    WriteIterationsCsv(out.Open("iterations.csv"), runs);
    WriteLinksCsv(out.Open("links.csv"), runs);
    WritePathsCsv(out.Open("paths.csv"), runs);
    WritePfcCsv(out.Open("pfc.csv"), runs);
    WriteDropsCsv(out.Open("drops.csv"), runs);
    WriteUtilizationCsv(out.Open("utilization.csv"), runs);
    out.Open("table.txt") << FormatTable(runs);
    out.Open("summary.json") << SummaryJson(m_scenario, m_measuredComm, runs).dump(2) << "\n";
    // Wall-clock times differ between runs; they go to a separate file so that the result files
    // above are identical for the same seed.
    WriteTimingCsv(out.Open("timing.csv"), runs);
    out.Commit();
}

} // namespace ns3
