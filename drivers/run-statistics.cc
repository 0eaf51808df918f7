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

#include "run-statistics.h"

#include "ns3/crux-compat.h"
#include "ns3/crux-run-error.h"
#include "ns3/crux-switch.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/qbb-net-device.h"
#include "ns3/sample-statistics.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunStatistics");

namespace
{

/// The bytes link \p l carried in class \p tc so far: the packet fabric's IP bytes of its data
/// frames (ACK/NAK/CNP travel in the control class), the flow fabric's payload bytes. The one
/// counter of links.csv and of the throughput samples.
uint64_t
LinkTcBytes(const ScenarioFabric& f, uint32_t l, uint8_t tc)
{
    if (f.rdma)
    {
        return f.topo->GetLink(l).txDev->GetTxBytes(tc);
    }
    return f.flow ? f.flow->GetLinkBytes(l, tc) : 0;
}

} // namespace

std::vector<JobRecord>
JobRecordsOf(const std::vector<Ptr<DltJobApplication>>& apps)
{
    std::vector<JobRecord> out;
    for (const auto& app : apps)
    {
        JobRecord rec;
        rec.starts = app->GetIterationStarts();
        rec.times = app->GetIterationTimes();
        rec.complete = app->IsComplete();
        rec.jct = rec.complete ? app->GetJct().GetSeconds() : -1.0;
        out.push_back(std::move(rec));
    }
    return out;
}

void
RunStatistics::ConnectFabric(const ScenarioFabric& f)
{
    // the data bytes per link and class are the devices' own counters, read after the run: no
    // trace sink on the per-frame path (the throughput sampler reads them during the run too)
    const uint32_t nLinks = f.topo->GetNLinks();
    m_linkTcBytes.assign(nLinks, {});
    m_linkPauseTx.assign(nLinks, {});
    m_maxQueueBytes.fill(0);
    m_switchDrops.clear();
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        const Ptr<QbbNetDevice>& dev = f.topo->GetLink(l).txDev;
        // PAUSE frames the link's sender put on the wire, per class (its PfcTx, as
        // GetPauseTxCount(tc) counts them)
        dev->TraceConnectWithoutContext(
            "PfcTx",
            crux::MakeFunctorCallback<void, Ptr<const QbbNetDevice>, uint8_t, uint16_t>(
                [this, l](Ptr<const QbbNetDevice>, uint8_t tc, uint16_t) {
                    ++m_linkPauseTx[l][tc];
                }));
        if (!f.rdma)
        {
            continue; // the flow fabric's devices carry no frame
        }
        dev->TraceConnectWithoutContext(
            "Drop",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t, const std::string&>(
                [this](Ptr<const Packet>, uint8_t, const std::string& reason) {
                    ++m_deviceDrops["device:" + reason];
                }));
        // the deepest egress queue per class over all links (GetPeakTcQueueBytes): a sink on the
        // per-frame path, a member function (no std::function in between)
        dev->TraceConnectWithoutContext("TcBytesInQueue",
                                        MakeCallback(&RunStatistics::TraceQueueBytes, this));
    }
    for (uint32_t sw = 0; sw < f.topo->GetNSwitches(); ++sw)
    {
        f.topo->GetSwitch(sw).sw->TraceConnectWithoutContext(
            "Drop",
            crux::
                MakeFunctorCallback<void, Ptr<const Packet>, uint32_t, uint8_t, const std::string&>(
                    [this](Ptr<const Packet>, uint32_t, uint8_t, const std::string& reason) {
                        ++m_switchDrops[reason];
                    }));
    }
    // sampled per-link throughput (attribute ns3::LinkThroughputSampler::Interval; off: no event)
    m_sampler = CreateObject<LinkThroughputSampler>();
    if (!m_sampler->IsEnabled())
    {
        return;
    }
    m_sampler->SetCounter(f.topo->GetNLinks(),
                          crux::NUM_TRAFFIC_CLASSES,
                          [f](uint32_t l, uint8_t tc) { return LinkTcBytes(f, l, tc); });
    m_sampler->TraceConnectWithoutContext(
        "Sample",
        crux::MakeFunctorCallback<void, Time, Time, uint32_t, uint8_t, uint64_t>(
            [this](Time end, Time length, uint32_t link, uint8_t tc, uint64_t bytes) {
                m_throughput.push_back({end.GetSeconds(), length.GetSeconds(), link, tc, bytes});
            }));
    m_sampler->Start();
}

void
RunStatistics::TraceQueueBytes(uint8_t cls, uint64_t /* oldBytes */, uint64_t newBytes)
{
    if (newBytes > m_maxQueueBytes[cls])
    {
        m_maxQueueBytes[cls] = newBytes;
    }
}

void
RunStatistics::ConnectJob(Ptr<DltJobApplication> app, bool measured, bool stopWhenDone)
{
    app->TraceConnectWithoutContext(
        "AllReduceComplete",
        crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint32_t, Time, Time>(
            [this](uint32_t jobId, uint32_t iter, uint32_t, Time start, Time end) {
                m_comm[{jobId, iter}] += (end - start).GetSeconds();
            }));
    if (!measured)
    {
        return;
    }
    ++m_measuredRemaining;
    app->TraceConnectWithoutContext(
        "JobComplete",
        crux::MakeFunctorCallback<void, uint32_t, Time>([this, stopWhenDone](uint32_t, Time) {
            if (--m_measuredRemaining == 0)
            {
                m_lastDone = Simulator::Now().GetTimeStep();
                if (stopWhenDone)
                {
                    Simulator::Stop();
                }
            }
        }));
}

void
RunStatistics::AddAllReduce(uint32_t jobId, uint32_t iteration, double seconds)
{
    m_comm[{jobId, iteration}] += seconds;
}

uint32_t
RunStatistics::GetMeasuredRemaining() const
{
    return m_measuredRemaining;
}

uint64_t
RunStatistics::GetDropsSoFar() const
{
    uint64_t n = 0;
    for (const auto* drops : {&m_deviceDrops, &m_switchDrops})
    {
        for (const auto& [reason, count] : *drops)
        {
            n += count;
        }
    }
    return n;
}

int64_t
RunStatistics::GetLastDone() const
{
    return m_lastDone;
}

void
RunStatistics::CollectFabricCounters(const ScenarioFabric& f, ExperimentRunResult& r)
{
    if (m_sampler && m_sampler->IsEnabled())
    {
        m_sampler->Finish(); // the partial interval up to the end: the samples sum to the totals
        r.linkThroughput = m_throughput;
        r.linkThroughputInterval = m_sampler->GetInterval().GetSeconds();
    }
    const Ptr<CruxTopology>& topo = f.topo;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        auto& c = m_linkTcBytes[l];
        for (uint8_t tc = 0; tc < crux::NUM_TRAFFIC_CLASSES; ++tc)
        {
            c[tc] = LinkTcBytes(f, l, tc);
        }
        if (std::any_of(c.begin(), c.end(), [](uint64_t b) { return b > 0; }))
        {
            r.linkTcBytes[l] = std::vector<uint64_t>(c.begin(), c.end());
        }
        const auto& perTc = m_linkPauseTx[l];
        const uint64_t pauses = std::accumulate(perTc.begin(), perTc.end(), uint64_t{0});
        if (pauses > 0)
        {
            r.linkPauseTx[l] = std::vector<uint64_t>(perTc.begin(), perTc.end());
        }
        r.pauseFrames += pauses;
    }
    if (f.rdma && topo->GetNLinks() > 0)
    {
        // the deepest queue per class over all links' senders, class 8 = the control class
        r.maxQueueBytes.resize(QbbNetDevice::N_CLASSES, 0);
        for (uint8_t k = 0; k < QbbNetDevice::N_CLASSES; ++k)
        {
            r.maxQueueBytes[k] = std::max(r.maxQueueBytes[k], m_maxQueueBytes[k]);
        }
    }
    r.drops = m_deviceDrops;
    for (const auto& [reason, n] : m_switchDrops)
    {
        r.drops["switch:" + reason] += n;
    }
    if (f.rdma)
    {
        const RdmaQpStats stats = f.rdma->GetStats();
        r.retransmittedPackets = stats.retransmittedPackets;
        r.timeouts = stats.timeouts;
        if (stats.pcieRxDrops > 0)
        {
            r.drops["nic:pcie-rx-buffer-full"] += stats.pcieRxDrops; // RdmaNic receive buffer
        }
    }
}

void
RunStatistics::MeasureWindow(const std::vector<DltJob>& jobs,
                             const std::vector<JobRecord>& records,
                             ExperimentRunResult& r)
{
    // The window: from the last start to the first end of a measured job.
    double windowStart = 0;
    double windowEnd = r.simulatedTime;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        windowStart = std::max(windowStart, jobs[i].startTime);
        if (jobs[i].iterations > 0 && records[i].complete)
        {
            const auto& st = records[i].starts;
            const auto& du = records[i].times;
            windowEnd = std::min(windowEnd, st.back() + du.back());
        }
    }
    r.windowStart = windowStart;
    r.windowEnd = windowEnd;
}

void
RunStatistics::ThrowIfNoWindow(const Scenario& s,
                               const std::vector<DltJob>& jobs,
                               const std::vector<JobRecord>& records,
                               const ExperimentRunResult& r)
{
    if (r.windowStart < r.windowEnd || jobs.empty())
    {
        return;
    }
    // the job that starts last, and what ended before it: a measured job or the run
    size_t last = 0;
    for (size_t i = 1; i < jobs.size(); ++i)
    {
        last = jobs[i].startTime > jobs[last].startTime ? i : last;
    }
    std::string before = "the run's end at " + FormatSignificant(r.simulatedTime, 4) +
                         " s (its stopTime, or the end of the measured jobs' alone runs for a "
                         "background job alone)";
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        if (jobs[i].iterations > 0 && records[i].complete)
        {
            const double end = records[i].starts.back() + records[i].times.back();
            if (end == r.windowEnd)
            {
                before = "job '" + s.jobs[jobs[i].id].name + "' ended its iterations at " +
                         FormatSignificant(end, 4) + " s";
                break;
            }
        }
    }
    throw CruxRunError("no measurement window: job '" + s.jobs[jobs[last].id].name +
                       "' starts at " + FormatSignificant(jobs[last].startTime, 4) + " s (jobs[" +
                       std::to_string(jobs[last].id) + "].start), when " + before +
                       "; the jobs of a run are measured while all of them run, so start each "
                       "before the others end");
}

ExperimentJobResult
RunStatistics::JobRow(const Scenario& s,
                      const DltJob& job,
                      const JobRecord& record,
                      const Decision& decision,
                      const DecisionInstall& install,
                      bool multi,
                      const ExperimentRunResult& r) const
{
    const JobDecision& jd = decision.jobs.at(job.id);
    ExperimentJobResult jr;
    jr.id = job.id;
    jr.name = s.jobs[job.id].name;
    jr.model = job.modelName;
    jr.gpus = job.NumGpus();
    jr.hosts = job.Hosts();
    jr.background = s.jobs[job.id].background;
    jr.flopsPerIteration = job.flopsPerIteration;
    jr.level = jd.level;
    jr.dscp = job.dscp;
    jr.schedulerCommTime = jd.commTime;
    jr.intensity = jd.intensity;
    jr.k = jd.k;
    auto rr = install.rerouted.find(job.id);
    jr.reroutedFlows = rr != install.rerouted.end() ? rr->second : 0;
    jr.timeShift = jd.timeShift;
    for (const auto& [key, path] : install.flowPaths)
    {
        if (key.first == job.id)
        {
            jr.flowPaths[key.second] = path;
        }
    }
    const auto& st = record.starts;
    const auto& du = record.times;
    double sumT = 0;
    double sumC = 0;
    for (size_t it = 0; it < st.size(); ++it)
    {
        const double start = st[it];
        const double end = st[it] + du[it];
        auto c = m_comm.find({job.id, static_cast<uint32_t>(it)});
        const double comm = c != m_comm.end() ? c->second : 0.0;
        jr.iterStart.push_back(start);
        jr.iterEnd.push_back(end);
        jr.iterComm.push_back(comm);
        const bool inWindow =
            !multi || (start >= r.windowStart - 1e-12 && end <= r.windowEnd + 1e-12);
        if (it >= s.warmupIterations && inWindow)
        {
            ++jr.measuredIterations;
            sumT += du[it];
            sumC += comm;
        }
    }
    if (jr.measuredIterations > 0)
    {
        jr.meanIterationTime = sumT / jr.measuredIterations;
        jr.meanCommTime = sumC / jr.measuredIterations;
        jr.throughput = 1.0 / jr.meanIterationTime;
    }
    jr.jct = record.jct;
    return jr;
}

void
RunStatistics::Measure(const Scenario& s,
                       const std::vector<DltJob>& jobs,
                       const std::vector<JobRecord>& records,
                       const Decision& decision,
                       const DecisionInstall& install,
                       Ptr<GpuIntensityTracker> tracker,
                       uint32_t totalGpus,
                       Time end,
                       ExperimentRunResult& r) const
{
    DoubleValue peakValue;
    tracker->GetAttribute("PeakFlops", peakValue);
    const double peakFlops = peakValue.Get();
    MeasureWindow(jobs, records, r);
    ThrowIfNoWindow(s, jobs, records, r);
    const bool multi = jobs.size() > 1;
    double flopRate = 0;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        ExperimentJobResult jr = JobRow(s, jobs[i], records[i], decision, install, multi, r);
        if (jr.measuredIterations > 0)
        {
            flopRate += jobs[i].flopsPerIteration * jr.throughput;
        }
        else
        {
            r.jobsOutsideWindow.push_back(jr.name);
        }
        r.jobs.push_back(std::move(jr));
    }
    r.utilization = flopRate / (static_cast<double>(totalGpus) * peakFlops);
    r.utilizationBin = std::max(0.01, std::ceil(r.simulatedTime / 200 * 100) / 100);
    if (r.simulatedTime > 0)
    {
        r.utilizationSeries =
            tracker->GetUtilizationSeries(Seconds(r.utilizationBin), Seconds(0), end);
    }
    if (!r.complete)
    {
        NS_LOG_WARN("run " << r.run << ": stopTime " << s.stopTime
                           << " s reached before every measured job finished");
    }
}

} // namespace ns3
