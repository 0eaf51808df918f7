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

#include "experiment-summary.h"
#include "result-directory.h"

#include "ns3/double.h"
#include "ns3/gpu-intensity-tracker.h"
#include "ns3/sample-statistics.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

namespace
{

/// A fractional change as the table shows it: "+12.3 %" / "+12.3 ± 4.5 %"; "–" without data.
std::string
Pct(const SampleSummary& v)
{
    if (v.n == 0)
    {
        return "–";
    }
    std::string text = FormatInterval(v, 100);
    if (text != "–" && text[0] != '-')
    {
        text = "+" + text;
    }
    return text + " %";
}

/// A utilization (fraction) in percent: "12.34 %" / "12.34 ± 0.56 %"; "–" without data.
std::string
Util(const SampleSummary& v)
{
    return v.n == 0 ? "–" : FormatInterval(v, 100) + " %";
}

/// A utilization difference in percentage points: "+1.23 pp"; "–" without data.
std::string
Points(const SampleSummary& v)
{
    if (v.n == 0)
    {
        return "–";
    }
    std::string text = FormatInterval(v, 100);
    if (text != "–" && text[0] != '-')
    {
        text = "+" + text;
    }
    return text + " pp";
}

/// An iteration time with its interval and unit: "274.7 ms", "1.284 ± 0.012 s".
std::string
Duration(const SampleSummary& v)
{
    if (v.n == 0)
    {
        return "–";
    }
    if (v.n < 2 || v.halfWidth == 0)
    {
        return FormatDuration(v.mean);
    }
    // the unit of the mean, the interval in the same unit
    const std::string mean = FormatDuration(v.mean);
    const std::string unit = mean.substr(mean.find(' ') + 1);
    const double scale = unit == "s" ? 1 : unit == "ms" ? 1e3 : unit == "us" ? 1e6 : 1e9;
    return FormatInterval(v, scale) + " " + unit;
}

/// A left-aligned cell of \p width.
std::string
Cell(const std::string& text, size_t width)
{
    // width in characters, not bytes: "±" and "–" are two/three bytes in UTF-8
    size_t chars = 0;
    for (unsigned char c : text)
    {
        chars += (c & 0xC0) != 0x80 ? 1 : 0;
    }
    return text + std::string(width > chars ? width - chars : 1, ' ');
}

} // namespace

ExperimentOutput::ExperimentOutput(const Scenario& scenario,
                                   uint32_t nHosts,
                                   uint32_t gpusPerHost,
                                   const std::vector<DltJob>& jobs,
                                   const std::map<uint32_t, double>& measuredComm)
    : m_scenario(scenario),
      m_nHosts(nHosts),
      m_gpusPerHost(gpusPerHost),
      m_jobs(jobs),
      m_measuredComm(measuredComm)
{
}

ExperimentSummary
ExperimentOutput::Summary(const std::vector<ExperimentRunResult>& runs) const
{
    std::vector<uint64_t> seeds;
    for (uint32_t i = 0; i < m_scenario.seeds; ++i)
    {
        seeds.push_back(m_scenario.seed + i);
    }
    return SummarizeExperiment(runs, seeds, m_scenario.minMeasuredIterations);
}

std::string
ExperimentOutput::FormatTable(const std::vector<ExperimentRunResult>& runs) const
{
    const ExperimentSummary sum = Summary(runs);
    const Scenario& s = m_scenario;
    std::ostringstream os;
    os << "scenario " << s.name << " (" << s.source << "), fabric " << s.fabric << ", " << m_nHosts
       << " hosts x " << m_gpusPerHost << " GPUs, ";
    if (s.seeds > 1)
    {
        os << "ECMP seeds " << s.seed << ".." << s.seed + s.seeds - 1 << ": mean ± 95 % "
           << "Student-t interval over the " << s.seeds << " seeds\n";
    }
    else
    {
        os << "ECMP seed " << s.seed << " (one draw; --seeds=N gives intervals)\n";
    }
    FormatReferences(os, sum);
    FormatJobRows(os, sum);
    FormatUtilization(os, sum);
    FormatCutShort(os, runs);
    if (s.fabric == "packet")
    {
        FormatPacketCounters(os, runs);
    }
    return os.str();
}

void
ExperimentOutput::FormatCutShort(std::ostream& os,
                                 const std::vector<ExperimentRunResult>& runs) const
{
    std::string names;
    for (const auto& r : runs)
    {
        if (!r.complete)
        {
            names += " " + r.run;
        }
    }
    if (!names.empty())
    {
        os << "INCOMPLETE: cut short by stopTime (" << FormatSignificant(m_scenario.stopTime, 4)
           << " s) before every measured job finished its iterations:" << names
           << " (their numbers are those of the iterations done inside the window; "
              "\"complete\": false in summary.json)\n";
    }
}

void
ExperimentOutput::FormatReferences(std::ostream& os, const ExperimentSummary& sum) const
{
    if (!sum.references)
    {
        return;
    }
    os << "each job alone (iteration time; alone@ECMP over the seeds, alone@free on "
          "collision-free paths, alone@paths on each scheduler's):\n";
    std::vector<std::string> schedulers;
    for (const auto& c : sum.clusters)
    {
        schedulers.push_back(c.scheduler);
    }
    os << "  " << Cell("job", 12) << Cell("alone@ECMP", 24) << Cell("alone@free", 16);
    // a column as wide as its header and a space (a long scheduler name)
    auto width = [](const std::string& sch) {
        return std::max<size_t>(22, std::string("alone@paths(" + sch + ")").size() + 2);
    };
    for (const auto& sch : schedulers)
    {
        os << Cell("alone@paths(" + sch + ")", width(sch));
    }
    os << "\n";
    for (const auto& ref : sum.jobs)
    {
        os << "  " << Cell(ref.name, 12) << Cell(Duration(ref.aloneEcmp), 24)
           << Cell(Duration(ref.aloneFree), 16);
        for (const auto& sch : schedulers)
        {
            auto it = ref.alonePaths.find(sch);
            os << Cell(it != ref.alonePaths.end() ? Duration(it->second) : "–", width(sch));
        }
        if (ref.fewIterations)
        {
            os << "n=" << ref.minMeasured << " (< minMeasuredIterations)";
        }
        os << "\n";
    }
}

void
ExperimentOutput::FormatJobRows(std::ostream& os, const ExperimentSummary& sum) const
{
    if (sum.jobRows.empty())
    {
        return;
    }
    os << "jobs together (iteration time in the window; iters: the fewest measured iterations "
          "over the seeds; its relative change against the same job alone, same seed, + = "
          "slower):\n";
    os << "  " << Cell("scheduler", 12) << Cell("job", 12) << Cell("level", 7) << Cell("iters", 6)
       << Cell("iteration time", 22) << Cell("vs alone@ECMP", 20) << Cell("vs alone@paths", 20)
       << "\n";
    bool levelsDiffer = false;
    for (const auto& j : sum.jobRows)
    {
        // the fewest measured iterations over the seeds ("iters"; the seeds are the header's)
        const std::string n = std::to_string(j.minMeasured) + (j.fewIterations ? " few" : "");
        // every level the job had over the seeds ("5/6": the decision depends on the seed)
        std::string level;
        for (uint32_t l : j.levels)
        {
            level += (level.empty() ? "" : "/") + std::to_string(l);
        }
        levelsDiffer = levelsDiffer || j.levels.size() > 1;
        os << "  " << Cell(j.scheduler, 12) << Cell(j.name, 12) << Cell(level, 7) << Cell(n, 6)
           << Cell(Duration(j.iterationTime), 22) << Cell(Pct(j.vsAloneEcmp), 20)
           << Cell(Pct(j.vsAlonePaths), 20);
        if (j.seedsWithout > 0)
        {
            os << "no iteration in the window in " << j.seedsWithout << " seed(s)";
        }
        os << "\n";
    }
    if (levelsDiffer)
    {
        os << "  level a/b: the scheduler gave the job other levels under other seeds' ECMP paths "
              "(its t_j is profiled on them); the row averages them, jobs.csv has each run's\n";
    }
}

void
ExperimentOutput::FormatUtilization(std::ostream& os, const ExperimentSummary& sum) const
{
    // Peak FLOP/s per GPU: the current default of the attribute, which every run's tracker
    // was created with.
    TypeId::AttributeInformation peakInfo;
    GpuIntensityTracker::GetTypeId().LookupAttributeByName("PeakFlops", &peakInfo);
    const double peakFlops = DynamicCast<const DoubleValue>(peakInfo.initialValue)->Get();
    const uint32_t gpus = m_nHosts * m_gpusPerHost;
    os << "cluster GPU utilization (" << gpus << " GPUs, " << FormatSignificant(peakFlops / 1e12, 4)
       << " TFLOP/s peak each) and its contention decomposition (doc/crux.rst, \"Measurement "
          "methodology\"); vs ECMP: the relative change of the utilization against ECMP's, "
          "seed by seed (+: higher); vs alone@ECMP: the relative change against the "
          "jobs alone under ECMP; the terms in percentage points: utilization - "
          "alone@ECMP = path gain - inter-job loss + prio. recovery (own-flow loss: what the "
          "jobs' own flows colliding cost them alone):\n";
    const bool ecmpMix =
        std::any_of(sum.clusters.begin(), sum.clusters.end(), [](const SchedulerSummary& c) {
            return c.scheduler == "ecmp";
        });
    os << "  " << Cell("scheduler", 12) << Cell("runs", 6) << Cell("utilization", 20)
       << Cell("vs ECMP", 20) << Cell("vs alone@ECMP", 20) << Cell("alone@ECMP", 20)
       << Cell("own-flow loss", 20) << Cell("path gain", 20) << Cell("inter-job loss", 20)
       << Cell("prio. recovery", 20) << "\n";
    for (const auto& c : sum.clusters)
    {
        os << "  " << Cell(c.scheduler, 12) << Cell(std::to_string(c.distinctRuns), 6)
           << Cell(Util(c.mix), 20)
           << Cell(c.scheduler == "ecmp" ? "(reference)" : Pct(c.vsEcmp), 20)
           << Cell(Pct(c.vsAloneEcmp), 20) << Cell(Util(c.aloneEcmp), 20)
           << Cell(Points(c.ownFlowLoss), 20) << Cell(Points(c.pathGain), 20)
           << Cell(Points(c.interJobLoss), 20) << Cell(Points(c.priorityRecovery), 20);
        if (c.incomplete)
        {
            os << "INCOMPLETE: without";
            for (const auto& name : c.jobsOutside)
            {
                os << " " << name;
            }
            os << " (no iteration inside the measurement window, which ends when the first "
                  "measured job finishes: give that job more iterations or mark this one "
                  "background; those seeds are not compared with alone)";
        }
        os << "\n";
    }
    if (sum.seeds > 1)
    {
        os << "  runs: simulations of the mix (1: its decision and paths are the same for every "
              "seed)\n";
    }
    if (!sum.references)
    {
        os << "  –: no alone runs (--modes without alone), so no change against alone and no "
              "decomposition\n";
    }
    if (!ecmpMix)
    {
        os << "  vs ECMP –: no ECMP run (--modes without ecmp)\n";
    }
}

void
ExperimentOutput::FormatPacketCounters(std::ostream& os,
                                       const std::vector<ExperimentRunResult>& runs) const
{
    // Every packet-level number must come without artefacts: the counts that would show one.
    os << "packet fabric (" << m_scenario.congestionControl
       << "): PAUSE frames, drops, retransmitted packets, timeouts:\n";
    os << "  " << std::left << std::setw(16) << "run" << std::right << std::setw(12) << "PAUSE"
       << std::setw(8) << "drops" << std::setw(12) << "retransmits" << std::setw(10) << "timeouts"
       << "\n";
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
    for (const auto& r : runs)
    {
        const bool dropped =
            std::any_of(r.drops.begin(), r.drops.end(), [](const auto& d) { return d.second > 0; });
        if (r.retransmittedPackets > 0 && !dropped)
        {
            // nothing was lost, so every resend was spurious: a timer shorter than the time PFC
            // holds a queue pair's packets (doc/crux.rst, "RDMA NIC")
            os << "  ARTEFACT: " << r.run << " retransmitted " << r.retransmittedPackets
               << " packets without a drop (" << r.timeouts
               << " timeouts): spurious resends, ns3::RdmaNic::RetransmitTimeout shorter than "
                  "PFC holds a queue pair; its times include them\n";
        }
    }
}

namespace
{

/// \return whether \p dir is a folder of figures as experiment_plot.py writes them: a real
/// folder (not a link) with the script's values.txt (which it always writes, its first line
/// "<results>: scenario <name>, <fabric> fabric, <n> ECMP seed(s)") and nothing but regular
/// figure files (.png, .pdf, .svg) beside it; a folder holding anything else, or a link, is the
/// user's and is left alone
bool
IsFigureFolder(const std::filesystem::path& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(fs::symlink_status(dir, ec)) ||
        !fs::is_regular_file(fs::symlink_status(dir / "values.txt", ec)))
    {
        return false;
    }
    std::ifstream values(dir / "values.txt");
    std::string first;
    std::getline(values, first);
    if (first.find(": scenario ") == std::string::npos ||
        first.find(" fabric, ") == std::string::npos ||
        first.find("ECMP seed") == std::string::npos)
    {
        return false;
    }
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        const std::string ext = e.path().extension().string();
        const bool figure = ext == ".png" || ext == ".pdf" || ext == ".svg";
        if (!fs::is_regular_file(e.symlink_status(ec)) ||
            !(figure || e.path().filename() == "values.txt"))
        {
            return false;
        }
    }
    return !ec;
}

/// \return the items separated by spaces (a CSV field without commas)
template <typename T>
std::string
JoinSpaced(const std::vector<T>& items)
{
    std::ostringstream o;
    for (size_t i = 0; i < items.size(); ++i)
    {
        o << (i > 0 ? " " : "") << items[i];
    }
    return o.str();
}

/// jobs.csv: one row per run and job.
void
WriteJobsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,roles,seeds,scheduler,job,model,gpus,background,level,dscp,flops_per_iteration,"
         "scheduler_comm_time_s,intensity_flops_per_s,k,rerouted_flows,measured_iterations,"
         "mean_iteration_s,throughput_iter_per_s,mean_comm_s,jct_s,profiled_comm_time_s\n";
    // a number that is not finite (I_j of a job without traffic) and an unknown one (-1) are
    // empty fields: no "inf" or "nan" in a result file
    auto num = [](double v) {
        std::ostringstream o;
        if (std::isfinite(v) && v >= 0)
        {
            o << v;
        }
        return o.str();
    };
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            f << r.run << "," << JoinSpaced(r.roles) << "," << JoinSpaced(r.seeds) << ","
              << r.scheduler << "," << j.name << "," << j.model << "," << j.gpus << ","
              << (j.background ? 1 : 0) << "," << j.level << "," << j.dscp << ","
              << j.flopsPerIteration << "," << num(j.schedulerCommTime) << "," << num(j.intensity)
              << "," << j.k << "," << j.reroutedFlows << "," << j.measuredIterations << ","
              << j.meanIterationTime << "," << j.throughput << "," << j.meanCommTime << ","
              << num(j.jct) << "," << num(j.profiledCommTime) << "\n";
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

/// link_throughput.csv: the sampled throughput of every run, link and TC (non-zero samples only;
/// ns3::LinkThroughputSampler::Interval > 0): the interval's end and length, its bytes and
/// Gbit/s.
void
WriteLinkThroughputCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,time_s,interval_s,link,tc,bytes,gbps\n";
    for (const auto& r : runs)
    {
        for (const LinkThroughputSample& x : r.linkThroughput)
        {
            f << r.run << "," << x.time << "," << x.seconds << "," << x.link << "," << x.tc << ","
              << x.bytes << "," << static_cast<double>(x.bytes) * 8.0 / x.seconds / 1e9 << "\n";
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

/// timing.csv: wall-clock seconds, simulated seconds and ns-3 events of every run, the
/// profiling runs last (the one file that differs between two runs with the same seed: the
/// wall-clock column).
void
WriteTimingCsv(std::ostream& f,
               const std::vector<ExperimentRunResult>& runs,
               const std::vector<ExperimentRunResult>& profileRuns)
{
    f << "run,wall_s,simulated_s,events\n";
    for (const auto* rows : {&runs, &profileRuns})
    {
        for (const auto& r : *rows)
        {
            f << r.run << "," << r.wallSeconds << "," << r.simulatedTime << "," << r.events << "\n";
        }
    }
}

/// \return a SampleSummary as JSON ({"n", "mean", "ci95"}; null without data)
nlohmann::json
StatOf(const SampleSummary& v)
{
    if (v.n == 0)
    {
        return nullptr;
    }
    return {{"n", v.n}, {"mean", v.mean}, {"ci95", v.halfWidth}};
}

/// \return the experiment summary as JSON: references, job rows, clusters (doc: Output)
nlohmann::json
SummaryOf(const ExperimentSummary& sum)
{
    using nlohmann::json;
    json j;
    j["seeds"] = sum.seeds;
    j["references"] = json::array();
    for (const auto& r : sum.jobs)
    {
        json paths = json::object();
        for (const auto& [s, v] : r.alonePaths)
        {
            paths[s] = StatOf(v);
        }
        j["references"].push_back({{"job", r.name},
                                   {"aloneEcmp", StatOf(r.aloneEcmp)},
                                   {"aloneFree", StatOf(r.aloneFree)},
                                   {"alonePaths", paths},
                                   {"minMeasuredIterations", r.minMeasured},
                                   {"fewIterations", r.fewIterations}});
    }
    j["jobs"] = json::array();
    for (const auto& r : sum.jobRows)
    {
        j["jobs"].push_back({{"scheduler", r.scheduler},
                             {"job", r.name},
                             {"level", r.level},
                             {"levels", r.levels},
                             {"iterationTime", StatOf(r.iterationTime)},
                             {"vsAloneEcmp", StatOf(r.vsAloneEcmp)},
                             {"vsAlonePaths", StatOf(r.vsAlonePaths)},
                             {"minMeasuredIterations", r.minMeasured},
                             {"fewIterations", r.fewIterations},
                             {"seedsWithoutIteration", r.seedsWithout}});
    }
    j["clusters"] = json::array();
    for (const auto& c : sum.clusters)
    {
        j["clusters"].push_back({{"scheduler", c.scheduler},
                                 {"runs", c.distinctRuns},
                                 {"utilization", StatOf(c.mix)},
                                 {"vsEcmp", StatOf(c.vsEcmp)},
                                 {"vsAloneEcmp", StatOf(c.vsAloneEcmp)},
                                 {"aloneEcmp", StatOf(c.aloneEcmp)},
                                 {"aloneFree", StatOf(c.aloneFree)},
                                 {"alonePaths", StatOf(c.alonePaths)},
                                 {"ownFlowLoss", StatOf(c.ownFlowLoss)},
                                 {"pathGain", StatOf(c.pathGain)},
                                 {"interJobLoss", StatOf(c.interJobLoss)},
                                 {"priorityRecovery", StatOf(c.priorityRecovery)},
                                 {"maxResidual", c.maxResidual},
                                 {"incomplete", c.incomplete},
                                 {"jobsOutsideWindow", c.jobsOutside}});
    }
    return j;
}

/// summary.json: the scenario as it ran, the t_j measured alone and every run's numbers.
nlohmann::json
SummaryJson(const Scenario& scenario,
            const std::map<uint32_t, double>& measuredComm,
            const std::vector<ExperimentRunResult>& runs,
            const ExperimentSummary& sum)
{
    using nlohmann::json;
    json j;
    j["scenario"] = json::parse(scenario.ToJson());
    j["summary"] = SummaryOf(sum);
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
        jr["roles"] = r.roles;
        jr["seeds"] = r.seeds;
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
                                  {"jct", jb.jct},
                                  {"profiledCommTime", jb.profiledCommTime}});
        }
        j["runs"].push_back(jr);
    }
    return j;
}

/// The result files, one name each (ExperimentOutput::ResultFiles() lists them).
constexpr const char* JOBS_FILE = "jobs.csv";
constexpr const char* ITERATIONS_FILE = "iterations.csv";
constexpr const char* LINKS_FILE = "links.csv";
constexpr const char* LINK_THROUGHPUT_FILE = "link_throughput.csv";
constexpr const char* PATHS_FILE = "paths.csv";
constexpr const char* PFC_FILE = "pfc.csv";
constexpr const char* DROPS_FILE = "drops.csv";
constexpr const char* UTILIZATION_FILE = "utilization.csv";
constexpr const char* TABLE_FILE = "table.txt";
constexpr const char* SUMMARY_FILE = "summary.json";
constexpr const char* TIMING_FILE = "timing.csv";

} // namespace

const std::vector<std::string>&
ExperimentOutput::ResultFiles()
{
    static const std::vector<std::string> files = {JOBS_FILE,
                                                   ITERATIONS_FILE,
                                                   LINKS_FILE,
                                                   LINK_THROUGHPUT_FILE,
                                                   PATHS_FILE,
                                                   PFC_FILE,
                                                   DROPS_FILE,
                                                   UTILIZATION_FILE,
                                                   TABLE_FILE,
                                                   SUMMARY_FILE,
                                                   TIMING_FILE};
    return files;
}

void
ExperimentOutput::Write(const std::vector<ExperimentRunResult>& runs,
                        const std::vector<ExperimentRunResult>& profileRuns) const
{
    ResultDirectory out(m_scenario.outputDir);
    WriteJobsCsv(out.Open(JOBS_FILE), runs);
    WriteIterationsCsv(out.Open(ITERATIONS_FILE), runs);
    WriteLinksCsv(out.Open(LINKS_FILE), runs);
    if (std::any_of(runs.begin(), runs.end(), [](const ExperimentRunResult& r) {
            return r.linkThroughputInterval > 0;
        }))
    {
        WriteLinkThroughputCsv(out.Open(LINK_THROUGHPUT_FILE), runs);
    }
    else
    {
        out.Retire(LINK_THROUGHPUT_FILE); // an earlier run's samples are not this run's
    }
    if (IsFigureFolder(std::filesystem::path(m_scenario.outputDir) / "plots"))
    {
        out.Retire("plots"); // experiment_plot.py's figures of an earlier run
    }
    WritePathsCsv(out.Open(PATHS_FILE), runs);
    WritePfcCsv(out.Open(PFC_FILE), runs);
    WriteDropsCsv(out.Open(DROPS_FILE), runs);
    WriteUtilizationCsv(out.Open(UTILIZATION_FILE), runs);
    out.Open(TABLE_FILE) << FormatTable(runs);
    out.Open(SUMMARY_FILE) << SummaryJson(m_scenario, m_measuredComm, runs, Summary(runs)).dump(2)
                           << "\n";
    // Wall-clock times differ between runs; they go to a separate file so that the result files
    // above are identical for the same seed.
    WriteTimingCsv(out.Open(TIMING_FILE), runs, profileRuns);
    out.Commit();
}

} // namespace ns3
