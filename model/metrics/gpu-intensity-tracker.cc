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

#include "gpu-intensity-tracker.h"

#include "ns3/double.h"
#include "ns3/gpu-intensity.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxGpuIntensityTracker");

NS_OBJECT_ENSURE_REGISTERED(GpuIntensityTracker);

namespace
{

/// Length of [a, b] ∩ [t0, t1], seconds (0 if disjoint).
double
Overlap(double a, double b, double t0, double t1)
{
    return std::max(0.0, std::min(b, t1) - std::max(a, t0));
}

/// \return the end of fluid segment k of rates (the next one's start, or +infinity)
template <class Segments>
double
SegmentEnd(const Segments& rates, size_t k)
{
    return k + 1 < rates.size() ? rates[k + 1].start : std::numeric_limits<double>::infinity();
}

} // namespace

TypeId
GpuIntensityTracker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuIntensityTracker")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<GpuIntensityTracker>()
            .AddAttribute("PeakFlops",
                          "Peak FLOP/s of one GPU (default: A100 dense fp16/bf16, 312e12); at "
                          "least 1 (utilization divides by it).",
                          DoubleValue(312e12),
                          MakeDoubleAccessor(&GpuIntensityTracker::m_peakFlops),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("TotalGpus",
                          "GPUs of the cluster (utilization denominator); 0 = the sum of the "
                          "registered jobs' GPUs.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuIntensityTracker::m_totalGpus),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BinWidth",
                          "Bin width of the per-(job, link) byte time series.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&GpuIntensityTracker::m_binWidth),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("Utilization",
                            "An iteration was reported (NotifyIterationComplete): (its end t, "
                            "cluster FLOP utilization GetUtilization(0, t) over the iterations "
                            "reported so far, dimensionless 0..1).",
                            MakeTraceSourceAccessor(&GpuIntensityTracker::m_utilizationTrace),
                            "ns3::GpuIntensityTracker::UtilizationTracedCallback");
    return tid;
}

GpuIntensityTracker::GpuIntensityTracker()
    : m_peakFlops(312e12),
      m_totalGpus(0),
      m_binWidth(MilliSeconds(10))
{
    NS_LOG_FUNCTION(this);
}

GpuIntensityTracker::~GpuIntensityTracker() = default;

const GpuIntensityTracker::JobState&
GpuIntensityTracker::Job(uint32_t jobId) const
{
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end())
    {
        throw std::invalid_argument("GpuIntensityTracker: job " + std::to_string(jobId) +
                                    " is not registered");
    }
    return it->second;
}

GpuIntensityTracker::JobState&
GpuIntensityTracker::Job(uint32_t jobId)
{
    return const_cast<JobState&>(static_cast<const GpuIntensityTracker*>(this)->Job(jobId));
}

void
GpuIntensityTracker::RegisterJob(uint32_t jobId,
                                 double flopsPerIteration,
                                 uint32_t numGpus,
                                 double computeTime)
{
    NS_LOG_FUNCTION(this << jobId << flopsPerIteration << numGpus << computeTime);
    const std::string who = "GpuIntensityTracker::RegisterJob: job " + std::to_string(jobId);
    if (m_jobs.count(jobId))
    {
        throw std::invalid_argument(who + " is already registered");
    }
    if (!(flopsPerIteration >= 0))
    {
        throw std::invalid_argument(who + ": flopsPerIteration must be >= 0");
    }
    if (numGpus == 0)
    {
        throw std::invalid_argument(who + ": numGpus must be >= 1");
    }
    if (!(computeTime >= 0))
    {
        throw std::invalid_argument(who + ": computeTime must be >= 0 s");
    }
    JobState s;
    s.flops = flopsPerIteration;
    s.gpus = numGpus;
    s.computeTime = computeTime;
    m_jobs[jobId] = s;
}

bool
GpuIntensityTracker::HasJob(uint32_t jobId) const
{
    return m_jobs.count(jobId) != 0;
}

void
GpuIntensityTracker::SetLinkBandwidth(uint32_t linkId, double bitPerSecond)
{
    if (!(bitPerSecond > 0))
    {
        throw std::invalid_argument("GpuIntensityTracker::SetLinkBandwidth: link " +
                                    std::to_string(linkId) + ": bandwidth must be > 0 bit/s");
    }
    m_bandwidth[linkId] = bitPerSecond;
}

double
GpuIntensityTracker::GetLinkBandwidth(uint32_t linkId) const
{
    auto it = m_bandwidth.find(linkId);
    if (it == m_bandwidth.end())
    {
        throw std::out_of_range("GpuIntensityTracker: link " + std::to_string(linkId) +
                                " has no bandwidth");
    }
    return it->second;
}

double
GpuIntensityTracker::CommTime(const std::map<uint32_t, double>& bytesPerIteration,
                              const std::map<uint32_t, double>& bandwidth)
{
    try
    {
        return BusiestLinkTime(bytesPerIteration, [&bandwidth](uint32_t link) {
            auto it = bandwidth.find(link);
            return it == bandwidth.end() ? 0.0 : it->second;
        });
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("GpuIntensityTracker: ") + e.what());
    }
}

void
GpuIntensityTracker::SetAnalyticLinkLoad(uint32_t jobId,
                                         const std::map<uint32_t, double>& bytesPerIteration)
{
    JobState& s = Job(jobId);
    s.analyticT = CommTime(bytesPerIteration, m_bandwidth);
    NS_LOG_INFO("job " << jobId << " analytic t_j = " << s.analyticT << " s");
}

void
GpuIntensityTracker::RecordLinkBytes(uint32_t jobId, uint32_t linkId, uint64_t bytes, Time time)
{
    const uint64_t key = (static_cast<uint64_t>(jobId) << 32) | linkId;
    auto it = m_links.find(key);
    if (it == m_links.end())
    {
        if (!m_jobs.count(jobId))
        {
            NS_FATAL_ERROR("GpuIntensityTracker::RecordLinkBytes: job " << jobId
                                                                        << " is not registered");
        }
        LinkCounter c;
        c.jobId = jobId;
        c.linkId = linkId;
        it = m_links.emplace(key, c).first;
    }
    LinkCounter& c = it->second;
    c.total += bytes;
    const int64_t t = std::max<int64_t>(0, time.GetTimeStep());
    const size_t bin = static_cast<size_t>(t / m_binWidth.GetTimeStep());
    if (bin >= c.bins.size())
    {
        c.bins.resize(bin + 1, 0.0);
    }
    c.bins[bin] += static_cast<double>(bytes);
}

void
GpuIntensityTracker::MarkProfileStart(uint32_t jobId)
{
    JobState& s = Job(jobId);
    s.profileStart.clear();
    for (const auto& kv : m_links)
    {
        if (kv.second.jobId == jobId)
        {
            s.profileStart[kv.second.linkId] = kv.second.total;
        }
    }
}

double
GpuIntensityTracker::FinalizeProfile(uint32_t jobId, uint32_t iterations)
{
    JobState& s = Job(jobId);
    if (iterations == 0)
    {
        throw std::invalid_argument("GpuIntensityTracker::FinalizeProfile: job " +
                                    std::to_string(jobId) + ": iterations must be >= 1");
    }
    std::map<uint32_t, double> perIteration;
    for (const auto& kv : m_links)
    {
        if (kv.second.jobId != jobId)
        {
            continue;
        }
        uint64_t base = 0;
        auto b = s.profileStart.find(kv.second.linkId);
        if (b != s.profileStart.end())
        {
            base = b->second;
        }
        perIteration[kv.second.linkId] =
            static_cast<double>(kv.second.total - base) / static_cast<double>(iterations);
    }
    s.measuredT = CommTime(perIteration, m_bandwidth);
    NS_LOG_INFO("job " << jobId << " measured t_j = " << s.measuredT << " s over " << iterations
                       << " iterations");
    return s.measuredT;
}

double
GpuIntensityTracker::GetAnalyticCommTime(uint32_t jobId) const
{
    return Job(jobId).analyticT;
}

double
GpuIntensityTracker::GetMeasuredCommTime(uint32_t jobId) const
{
    return Job(jobId).measuredT;
}

double
GpuIntensityTracker::GetCommTime(uint32_t jobId) const
{
    const JobState& s = Job(jobId);
    if (s.measuredT >= 0)
    {
        return s.measuredT;
    }
    if (s.analyticT >= 0)
    {
        return s.analyticT;
    }
    throw std::invalid_argument("GpuIntensityTracker: job " + std::to_string(jobId) +
                                " has neither a measured nor an analytic t_j");
}

double
GpuIntensityTracker::GetIntensity(uint32_t jobId) const
{
    return GpuIntensity(Job(jobId).flops, GetCommTime(jobId));
}

double
GpuIntensityTracker::GetFlopsPerIteration(uint32_t jobId) const
{
    return Job(jobId).flops;
}

void
GpuIntensityTracker::NotifyIterationComplete(uint32_t jobId,
                                             uint32_t iteration,
                                             Time start,
                                             Time end,
                                             double flops)
{
    NS_LOG_FUNCTION(this << jobId << iteration << start << end << flops);
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end())
    {
        NS_FATAL_ERROR("GpuIntensityTracker: iteration of unregistered job " << jobId);
    }
    JobState& s = it->second;
    IterationRecord r;
    r.start = start.GetSeconds();
    r.end = end.GetSeconds();
    r.computeEnd = s.computeTime > 0 ? std::min(r.end, r.start + s.computeTime) : r.end;
    r.flops = flops;
    s.iterations.push_back(r);
    if (!m_utilizationTrace.IsEmpty())
    {
        const double u = GetUtilization(Time(0), end);
        NS_LOG_DEBUG("utilization over [0, " << end.GetSeconds() << " s]: " << u);
        m_utilizationTrace(end, u);
    }
}

uint32_t
GpuIntensityTracker::GetIterationCount(uint32_t jobId) const
{
    return Job(jobId).iterations.size();
}

void
GpuIntensityTracker::NotifyIterationRate(uint32_t jobId, Time t, double iterationsPerSecond)
{
    NS_LOG_FUNCTION(this << jobId << t << iterationsPerSecond);
    JobState& s = Job(jobId);
    if (!(iterationsPerSecond >= 0) || !std::isfinite(iterationsPerSecond))
    {
        throw std::invalid_argument("GpuIntensityTracker::NotifyIterationRate: job " +
                                    std::to_string(jobId) + " has a negative or non-finite rate");
    }
    const double start = t.GetSeconds();
    if (start < s.lastRateCall)
    {
        throw std::invalid_argument("GpuIntensityTracker::NotifyIterationRate: job " +
                                    std::to_string(jobId) + ": time before its last call");
    }
    s.lastRateCall = start;
    if (!s.rates.empty() && start == s.rates.back().start)
    {
        s.rates.back().rate = iterationsPerSecond; // a provisional rate filled in
        if (s.rates.size() > 1 && s.rates[s.rates.size() - 2].rate == iterationsPerSecond)
        {
            s.rates.pop_back(); // the same rate as before: one segment
        }
    }
    else if (s.rates.empty() ? iterationsPerSecond > 0 : s.rates.back().rate != iterationsPerSecond)
    {
        s.rates.push_back({start, iterationsPerSecond});
    }
    if (!s.rates.empty() && s.rates.back().rate > 0)
    {
        m_ratedJobs.insert(jobId);
    }
    else
    {
        m_ratedJobs.erase(jobId);
    }
}

double
GpuIntensityTracker::GetCurrentBusyUtilization() const
{
    const uint32_t gpus = GetTotalGpus();
    if (gpus == 0)
    {
        return 0;
    }
    double busy = 0;
    for (uint32_t id : m_ratedJobs)
    {
        const JobState& s = m_jobs.at(id);
        busy += s.gpus * s.computeTime * s.rates.back().rate;
    }
    return busy / gpus;
}

double
GpuIntensityTracker::GetJobFlopsInWindow(uint32_t jobId, Time t0, Time t1) const
{
    const JobState& s = Job(jobId);
    const double a = t0.GetSeconds();
    const double b = t1.GetSeconds();
    double flops = 0;
    for (const auto& r : s.iterations)
    {
        const double span = r.computeEnd - r.start;
        if (span > 0)
        {
            flops += r.flops * Overlap(r.start, r.computeEnd, a, b) / span;
        }
        else if (r.start >= a && r.start < b)
        {
            flops += r.flops;
        }
    }
    for (size_t k = 0; k < s.rates.size(); ++k)
    {
        flops +=
            s.flops * s.rates[k].rate * Overlap(s.rates[k].start, SegmentEnd(s.rates, k), a, b);
    }
    return flops;
}

double
GpuIntensityTracker::GetFlopsInWindow(Time t0, Time t1) const
{
    double flops = 0;
    for (const auto& kv : m_jobs)
    {
        flops += GetJobFlopsInWindow(kv.first, t0, t1);
    }
    return flops;
}

double
GpuIntensityTracker::GetBusyGpuSeconds(Time t0, Time t1) const
{
    const double a = t0.GetSeconds();
    const double b = t1.GetSeconds();
    double busy = 0;
    for (const auto& kv : m_jobs)
    {
        const JobState& s = kv.second;
        for (const auto& r : s.iterations)
        {
            busy += s.gpus * Overlap(r.start, r.computeEnd, a, b);
        }
        for (size_t k = 0; k < s.rates.size(); ++k)
        {
            busy += s.gpus * s.computeTime * s.rates[k].rate *
                    Overlap(s.rates[k].start, SegmentEnd(s.rates, k), a, b);
        }
    }
    return busy;
}

uint32_t
GpuIntensityTracker::GetTotalGpus() const
{
    if (m_totalGpus > 0)
    {
        return m_totalGpus;
    }
    uint32_t sum = 0;
    for (const auto& kv : m_jobs)
    {
        sum += kv.second.gpus;
    }
    return sum;
}

double
GpuIntensityTracker::GetUtilization(Time t0, Time t1) const
{
    const double window = (t1 - t0).GetSeconds();
    const uint32_t gpus = GetTotalGpus();
    if (window <= 0 || gpus == 0 || m_peakFlops <= 0)
    {
        return 0;
    }
    return GetFlopsInWindow(t0, t1) / (gpus * m_peakFlops * window);
}

double
GpuIntensityTracker::GetBusyUtilization(Time t0, Time t1) const
{
    const double window = (t1 - t0).GetSeconds();
    const uint32_t gpus = GetTotalGpus();
    if (window <= 0 || gpus == 0)
    {
        return 0;
    }
    return GetBusyGpuSeconds(t0, t1) / (gpus * window);
}

std::vector<double>
GpuIntensityTracker::GetUtilizationSeries(Time binWidth, Time t0, Time t1) const
{
    std::vector<double> series;
    if (!binWidth.IsStrictlyPositive())
    {
        throw std::invalid_argument("GpuIntensityTracker::GetUtilizationSeries: binWidth <= 0");
    }
    for (Time a = t0; a < t1; a += binWidth)
    {
        series.push_back(GetUtilization(a, std::min(a + binWidth, t1)));
    }
    return series;
}

std::vector<double>
GpuIntensityTracker::GetBusyUtilizationSeries(Time binWidth, Time t0, Time t1) const
{
    std::vector<double> series;
    if (!binWidth.IsStrictlyPositive())
    {
        throw std::invalid_argument("GpuIntensityTracker::GetBusyUtilizationSeries: binWidth <= 0");
    }
    for (Time a = t0; a < t1; a += binWidth)
    {
        series.push_back(GetBusyUtilization(a, std::min(a + binWidth, t1)));
    }
    return series;
}

uint64_t
GpuIntensityTracker::GetLinkBytes(uint32_t jobId, uint32_t linkId) const
{
    auto it = m_links.find((static_cast<uint64_t>(jobId) << 32) | linkId);
    return it == m_links.end() ? 0 : it->second.total;
}

std::map<uint32_t, std::map<uint32_t, uint64_t>>
GpuIntensityTracker::GetLinkBytesByJob() const
{
    std::map<uint32_t, std::map<uint32_t, uint64_t>> out;
    for (const auto& kv : m_links)
    {
        out[kv.second.linkId][kv.second.jobId] = kv.second.total;
    }
    return out;
}

double
GpuIntensityTracker::GetLinkBytesInWindow(uint32_t jobId, uint32_t linkId, Time t0, Time t1) const
{
    auto it = m_links.find((static_cast<uint64_t>(jobId) << 32) | linkId);
    if (it == m_links.end())
    {
        return 0;
    }
    const double w = m_binWidth.GetSeconds();
    const double a = t0.GetSeconds();
    const double b = t1.GetSeconds();
    double bytes = 0;
    const auto& bins = it->second.bins;
    for (size_t i = 0; i < bins.size(); ++i)
    {
        if (bins[i] == 0)
        {
            continue;
        }
        const double lo = i * w;
        const double frac = Overlap(lo, lo + w, a, b) / w;
        bytes += bins[i] * frac;
    }
    return bytes;
}

double
GpuIntensityTracker::GetLinkIntensityIntegral(uint32_t linkId, Time t0, Time t1) const
{
    const double bw = GetLinkBandwidth(linkId);
    double f = 0;
    for (const auto& kv : m_links)
    {
        if (kv.second.linkId != linkId)
        {
            continue;
        }
        const double bytes = GetLinkBytesInWindow(kv.second.jobId, linkId, t0, t1);
        if (bytes <= 0)
        {
            continue;
        }
        const double intensity = GetIntensity(kv.second.jobId);
        if (std::isinf(intensity))
        {
            continue;
        }
        f += intensity * bytes * 8.0 / bw;
    }
    return f;
}

} // namespace ns3
