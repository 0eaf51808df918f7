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

// Statistics of a Lingjun trace (declared in lingjun-trace.h).

#include "lingjun-trace.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ns3
{

namespace
{

/// Nearest-rank percentile (p in (0,1]) of sorted values; 0 if empty.
double
Percentile(const std::vector<double>& sorted, double p)
{
    if (sorted.empty())
    {
        return 0;
    }
    size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    rank = std::min(std::max<size_t>(rank, 1), sorted.size());
    return sorted[rank - 1];
}

} // namespace

double
LingjunTraceStats::PodGpuShare(uint32_t g) const
{
    if (workerRows == 0)
    {
        return 0;
    }
    auto it = podGpuCounts.find(g);
    return it == podGpuCounts.end()
               ? 0.0
               : static_cast<double>(it->second) / static_cast<double>(workerRows);
}

LingjunTraceStats
ComputeLingjunTraceStats(const LingjunJobTable& jobs,
                         const LingjunWorkerTable& workers,
                         const LingjunTopology& topology,
                         const std::vector<TraceJob>& assembled)
{
    LingjunTraceStats s;
    s.jobRows = jobs.rows.size();
    std::set<std::string> jobNames;
    for (size_t i = 0; i < jobs.rows.size(); ++i)
    {
        const auto& r = jobs.rows[i];
        ++s.statusCounts[r.status];
        ++s.modelCounts[r.model];
        if (!r.running)
        {
            ++s.neverRan;
        }
        s.firstSubmit = i == 0 ? r.submit : std::min(s.firstSubmit, r.submit);
        s.lastSubmit = i == 0 ? r.submit : std::max(s.lastSubmit, r.submit);
        jobNames.insert(r.name);
    }
    if (s.lastSubmit > s.firstSubmit)
    {
        s.submitsPerDay =
            static_cast<double>(s.jobRows) / ((s.lastSubmit - s.firstSubmit) / 86400.0);
    }

    s.workerRows = workers.rows.size();
    std::set<std::string> workerJobs;
    for (const auto& w : workers.rows)
    {
        workerJobs.insert(w.jobName);
        ++s.podGpuCounts[w.gpus];
        if (!topology.FindHost(w.hostIp))
        {
            ++s.unknownHostRows;
        }
    }
    s.workerJobNames = workerJobs.size();
    for (const auto& n : workerJobs)
    {
        s.workerJobNamesInJobCsv += jobNames.count(n);
    }
    if (s.workerJobNames > 0)
    {
        s.podsPerWorkerJob =
            static_cast<double>(s.workerRows) / static_cast<double>(s.workerJobNames);
    }

    s.assembledJobs = assembled.size();
    std::vector<double> durations;
    // Sweep events: (time, +1/-1 job, +/-gpus); ends sort before starts at equal times.
    std::vector<std::pair<double, std::pair<int, int64_t>>> events;
    for (const auto& j : assembled)
    {
        ++s.jobGpuCounts[j.gpus];
        durations.push_back(j.Duration() / 60.0);
        if (j.end > j.start)
        {
            events.push_back({j.start, {+1, static_cast<int64_t>(j.gpus)}});
            events.push_back({j.end, {-1, -static_cast<int64_t>(j.gpus)}});
        }
    }
    std::sort(durations.begin(), durations.end());
    if (!durations.empty())
    {
        double sum = 0;
        for (double d : durations)
        {
            sum += d;
        }
        s.durationMeanMin = sum / static_cast<double>(durations.size());
        s.durationP25Min = Percentile(durations, 0.25);
        s.durationMedianMin = Percentile(durations, 0.50);
        s.durationP90Min = Percentile(durations, 0.90);
        s.durationP99Min = Percentile(durations, 0.99);
    }
    std::sort(events.begin(), events.end());
    int64_t jobsNow = 0;
    int64_t gpusNow = 0;
    for (const auto& e : events)
    {
        jobsNow += e.second.first;
        gpusNow += e.second.second;
        s.peakConcurrentJobs = std::max<uint32_t>(s.peakConcurrentJobs, jobsNow);
        s.peakBusyGpus = std::max<uint32_t>(s.peakBusyGpus, gpusNow);
    }
    // Time averages over the submission window [firstSubmit, lastSubmit] (the long tail of jobs
    // still running after the last submission would otherwise dilute them).
    const double lo = s.firstSubmit;
    const double hi = s.lastSubmit;
    if (hi > lo)
    {
        double jobArea = 0;
        double gpuArea = 0;
        for (const auto& j : assembled)
        {
            const double overlap = std::max(0.0, std::min(j.end, hi) - std::max(j.start, lo));
            jobArea += overlap;
            gpuArea += overlap * j.gpus;
        }
        s.meanConcurrentJobs = jobArea / (hi - lo);
        s.meanBusyGpus = gpuArea / (hi - lo);
    }
    return s;
}

} // namespace ns3
