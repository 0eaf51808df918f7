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

// The event engine of the trace-driven cluster runs: one scheduler over a trace window. See
// epoch-engine.h and doc/crux.rst "Trace-driven cluster runs".

#include "epoch-engine.h"

#include "ns3/log.h"
#include "ns3/model-zoo.h"
#include "ns3/nstime.h"
#include "ns3/roce-constants.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterRunEngine");

namespace
{

/// Wall-clock seconds since an arbitrary origin (not deterministic; timing fields only).
double
WallNow()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// \return the model zoo key for a trace label: the label itself if it is a zoo key, else the
/// mapper's assignment
std::string
ZooModelFor(const ModelMapper& mapper, const TraceJob& tj)
{
    if (ModelZoo::Has(tj.modelLabel))
    {
        return tj.modelLabel;
    }
    return mapper.Map(tj.modelLabel, tj.name).zooModel;
}

} // namespace

// ------------------------------------------------------------------------------- config

void
EpochEngineConfig::Validate(const std::string& owner) const
{
    auto error = [&owner](const std::string& field, const std::string& what) {
        return std::invalid_argument(owner + "." + field + ": " + what);
    };
    if (placement != "trace")
    {
        try
        {
            ParsePlacementPolicy(placement);
        }
        catch (const std::exception& e)
        {
            throw error("placement", "'" + placement + "' is not locality, random, buddy or trace");
        }
    }
    if (numLevels == 0 || numLevels > crux::NUM_TRAFFIC_CLASSES)
    {
        throw error("numLevels",
                    "must be 1.." + std::to_string(crux::NUM_TRAFFIC_CLASSES) +
                        " (traffic classes)");
    }
    if (!(drainSeconds >= 0) || !std::isfinite(drainSeconds))
    {
        throw error("drainSeconds", "must be >= 0");
    }
    if (!(binSeconds > 0) || !std::isfinite(binSeconds))
    {
        throw error("binSeconds", "must be > 0 seconds");
    }
    if (workModel != "iterations" && workModel != "duration")
    {
        throw error("workModel", "'" + workModel + "' is not iterations or duration");
    }
}

EpochEngineFabric::~EpochEngineFabric() = default;

// ------------------------------------------------------------------------------- EpochEngine

EpochEngine::EpochEngine(const EpochEngineConfig& config,
                         const ClusterTopology& topo,
                         const std::vector<TraceJob>& window,
                         double origin,
                         double windowStart,
                         double windowEnd,
                         const std::string& scheduler,
                         JobBuilder builder,
                         std::unique_ptr<EpochRateModel> rates,
                         std::unique_ptr<EpochEngineFabric> fabric)
    : m_config(config),
      m_topo(topo),
      m_window(window),
      m_origin(origin),
      m_ws(windowStart),
      m_we(windowEnd),
      m_scheduler(CreateCommScheduler(scheduler)),
      m_builder(std::move(builder)),
      m_rates(std::move(rates)),
      m_fabric(std::move(fabric)),
      m_mapper(config.seed)
{
    config.Validate();
    if (!m_builder || !m_rates)
    {
        throw std::invalid_argument("EpochEngine: the job builder and the rate model are needed");
    }
    m_result.scheduler = scheduler;
    m_model.links = topo.links;
    m_sc.numLevels = config.numLevels;
    m_sc.seed = config.seed;
    // "trace" placement puts each job on its recorded hosts (GpuPlacer::AllocateOn); the
    // policy is then unused.
    m_tracePlacement = config.placement == "trace";
    m_placer = std::make_unique<GpuPlacer>(
        GpuPlacer::HostsOf(topo),
        m_tracePlacement ? PlacementPolicy::LOCALITY_FIRST : ParsePlacementPolicy(config.placement),
        config.placementSeed);
    m_total = topo.NumGpus();
    m_fixedDuration = config.workModel == "duration";
    for (Ptr<GpuIntensityTracker>* account : {&m_util, &m_utilAloneDefault, &m_utilAloneInstalled})
    {
        *account = CreateObject<GpuIntensityTracker>();
        (*account)->SetAttribute("TotalGpus", UintegerValue(m_total));
    }
}

EpochEngine::~EpochEngine() = default;

void
EpochEngine::SetProgressHook(ProgressHook hook)
{
    m_progress = std::move(hook);
}

void
EpochEngine::Start()
{
    if (m_started)
    {
        throw std::logic_error("EpochEngine::Start: called twice");
    }
    m_started = true;
    m_wall0 = WallNow();
    m_jobs.resize(m_window.size());
    for (uint32_t i = 0; i < m_window.size(); ++i)
    {
        RunJob& j = m_jobs[i];
        const TraceJob& tj = m_window[i];
        j.trace = &tj;
        j.res.id = i;
        j.res.name = tj.name;
        j.res.model = ZooModelFor(m_mapper, tj);
        j.res.gpus = tj.gpus;
        j.res.submit = tj.submit - m_origin;
        j.res.arrival = tj.start - m_origin;
        j.shape = ShapeFor(tj.gpus, m_topo.gpusPerHost);
        const double at = std::max(0.0, j.res.arrival - m_ws);
        Simulator::Schedule(Seconds(at), &EpochEngine::Arrive, this, i);
    }
    m_stop = (m_we - m_ws) + m_config.drainSeconds;
    Simulator::Stop(Seconds(m_stop));
    Sample(0.0);
}

ClusterRunResult
EpochEngine::Finish()
{
    if (!m_started || m_finished)
    {
        throw std::logic_error("EpochEngine::Finish: needs one Start() and Simulator::Run()");
    }
    m_finished = true;
    if (m_reschedulePending)
    {
        // an event at the stop time: its decision, as if the stop had come after it
        DeferredReschedule();
    }
    // Close the books at the last event, or at the stop time if jobs are still running.
    double end = m_lastEvent;
    if (m_running.size() + m_queue.size() > 0)
    {
        end = std::max(end, m_stop);
    }
    Advance(end);
    m_fabric.reset();
    m_result.simEnd = m_ws + end;
    Summarize();
    m_result.evaluations = m_rates->GetEvaluations();
    m_result.cacheHits = m_rates->GetCacheHits();
    m_result.fluidEvents = m_rates->GetFluidEvents();
    m_result.evaluatorSeconds = m_rates->GetEvaluatorSeconds();
    m_result.wallSeconds = WallNow() - m_wall0;
    return std::move(m_result);
}

double
EpochEngine::Now()
{
    return Simulator::Now().GetSeconds();
}

void
EpochEngine::Progress()
{
    if (!m_progress)
    {
        return;
    }
    EpochProgress p;
    p.scheduler = m_result.scheduler;
    p.time = m_ws + Now();
    p.windowEnd = m_we;
    // every job arrives once and, unless it was found unplaceable, completes once: the share
    // of those events, so the drain after the window end counts too (the share of the window's
    // time reached 1 at its start)
    const double all =
        2.0 * static_cast<double>(m_jobs.size()) - static_cast<double>(m_unplaceable);
    p.done = all > 0 ? std::min(1.0, static_cast<double>(m_result.events) / all) : 0;
    p.events = m_result.events;
    p.running = static_cast<uint32_t>(m_running.size());
    p.queued = static_cast<uint32_t>(m_queue.size());
    m_progress(p);
}

void
EpochEngine::Arrive(uint32_t i)
{
    ++m_result.events;
    Progress();
    Advance(Now());
    m_queue.push_back(i);
    PlaceQueued();
    RequestReschedule();
}

void
EpochEngine::Complete(uint32_t i)
{
    ++m_result.events;
    Progress();
    Advance(Now());
    RunJob& j = m_jobs[i];
    if (m_fixedDuration)
    {
        if (m_fabric)
        {
            m_fabric->StopJob(i);
        }
    }
    else
    {
        j.res.done = j.res.work;
    }
    j.res.end = m_ws + Now();
    j.running = false;
    j.finished = true;
    j.rate = 0;
    for (const auto& account : {m_util, m_utilAloneDefault, m_utilAloneInstalled})
    {
        account->NotifyIterationRate(i, Seconds(j.res.end), 0.0);
    }
    m_placer->Release(i);
    m_busy -= j.res.gpus;
    m_running.erase(std::find(m_running.begin(), m_running.end(), i));
    auto it = std::find_if(m_model.jobs.begin(), m_model.jobs.end(), [i](const SchedJob& s) {
        return s.id == i;
    });
    m_model.jobs.erase(it);
    NS_LOG_LOGIC("job " << j.res.name << " completed at " << j.res.end << " s");
    PlaceQueued();
    RequestReschedule();
}

void
EpochEngine::RequestReschedule()
{
    if (!m_reschedulePending)
    {
        m_reschedulePending = true;
        Simulator::ScheduleNow(&EpochEngine::DeferredReschedule, this);
    }
}

void
EpochEngine::DeferredReschedule()
{
    m_reschedulePending = false;
    Reschedule();
}

std::optional<std::vector<HostShare>>
EpochEngine::AllocateTrace(uint32_t i, const TraceJob& tj)
{
    // a pod without GPUs (e.g. a job's master pod) holds no GPU of its host
    std::vector<uint32_t> hosts;
    std::vector<uint32_t> gpus;
    for (size_t k = 0; k < tj.hosts.size() && k < tj.gpusPerHost.size(); ++k)
    {
        if (tj.gpusPerHost[k] > 0)
        {
            hosts.push_back(tj.hosts[k]);
            gpus.push_back(tj.gpusPerHost[k]);
        }
    }
    if (hosts.empty())
    {
        throw std::invalid_argument("no recorded host with GPUs");
    }
    for (uint32_t need : gpus)
    {
        if (need != gpus.front())
        {
            // the job model runs the same number of GPUs on each of its hosts (its rails and
            // tensor-parallel groups, DltJob::TensorParallel)
            std::string list;
            for (size_t k = 0; k < gpus.size() && k < 8; ++k)
            {
                list += (k > 0 ? ", " : "") + std::to_string(gpus[k]);
            }
            throw std::invalid_argument("its recorded GPUs per host are unequal (" + list +
                                        (gpus.size() > 8 ? ", ..." : "") +
                                        "); the job model needs the same number on each host");
        }
    }
    return m_placer->AllocateOn(i, hosts, gpus.front());
}

void
EpochEngine::PlaceQueued()
{
    // locality / random / buddy: strict FIFO, the head of the queue blocks the others. A
    // recorded placement (trace) is no decision: each job starts as soon as its own recorded
    // GPUs are free (held longer by a job that ran slower than recorded), whatever waits before
    // it.
    auto it = m_queue.begin();
    while (it != m_queue.end())
    {
        const uint32_t i = *it;
        RunJob& j = m_jobs[i];
        std::optional<std::vector<HostShare>> alloc;
        try
        {
            alloc = m_tracePlacement ? AllocateTrace(i, *j.trace) : m_placer->Allocate(i, j.shape);
        }
        catch (const std::invalid_argument& e)
        {
            NS_LOG_INFO("job " << j.res.name << " can never be placed: " << e.what());
            j.res.unplaceable = true;
            j.res.unplaceableReason = e.what();
            ++m_unplaceable;
            it = m_queue.erase(it);
            continue;
        }
        if (!alloc)
        {
            if (!m_tracePlacement)
            {
                return;
            }
            ++it;
            continue;
        }
        it = m_queue.erase(it);
        StartJob(i, *alloc);
    }
}

void
EpochEngine::StartJob(uint32_t i, const std::vector<HostShare>& alloc)
{
    RunJob& j = m_jobs[i];
    std::vector<GpuId> gpus;
    for (const HostShare& s : alloc)
    {
        for (uint32_t g : s.localGpus)
        {
            gpus.push_back(GpuId{s.host, g});
        }
    }
    EpochPlacedJob placed = m_builder(i, j.res.model, gpus);
    SchedJob& sj = placed.sched;
    if (sj.id != i)
    {
        throw std::logic_error("EpochEngine: the job builder gave job " + std::to_string(i) +
                               " the id " + std::to_string(sj.id));
    }
    j.defaults = DefaultPathChoice(sj);
    j.res.hosts = static_cast<uint32_t>(alloc.size());
    j.res.start = m_ws + Now();
    j.res.flopsPerIter = sj.flopsPerIteration;
    const double tAlone = JobCommTime(m_model, sj, j.defaults);
    j.res.intensity = GpuIntensity(sj.flopsPerIteration, tAlone);
    // Stand-alone rate: the job alone with its ECMP default paths, same evaluation.
    const double aloneRate = m_rates->AloneRate(sj, j.defaults);
    j.aloneDefaultRate = aloneRate;
    j.aloneInstalledRate = aloneRate; // nothing installed yet: the defaults
    j.res.aloneIter = aloneRate > 0 ? 1.0 / aloneRate : 0.0;
    j.res.work = std::max(0.0, j.trace->Duration()) * aloneRate;
    j.res.done = 0;
    j.flowDone = 0;
    if (m_fixedDuration)
    {
        // Work model "duration": the job ends after its trace duration, whatever it did.
        j.completion = Simulator::Schedule(Seconds(std::max(0.0, j.trace->Duration())),
                                           &EpochEngine::Complete,
                                           this,
                                           i);
    }
    if (m_fabric)
    {
        // Whole iterations on the flow fabric (at least one); "duration": until stopped.
        DltJob& dlt = placed.dlt;
        dlt.iterations =
            m_fixedDuration ? 0U : static_cast<uint32_t>(std::max(1.0, std::round(j.res.work)));
        if (!m_fixedDuration)
        {
            j.res.work = dlt.iterations;
        }
        dlt.startTime = Now();
        m_fabric->StartJob(dlt,
                           m_fixedDuration ? Callback<void, uint32_t>()
                                           : MakeCallback(&EpochEngine::Complete, this));
    }
    NS_LOG_LOGIC("job " << j.res.name << " (" << j.res.model << ", " << j.res.gpus
                        << " GPUs) started at " << j.res.start << " s, alone " << j.res.aloneIter
                        << " s per iteration");
    j.running = true;
    j.rate = 0;
    j.lastUpdate = Now();
    m_busy += j.res.gpus;
    m_running.push_back(i);
    for (const auto& account : {m_util, m_utilAloneDefault, m_utilAloneInstalled})
    {
        account->RegisterJob(i, sj.flopsPerIteration, sj.numGpus, sj.computeTime);
    }
    m_model.jobs.push_back(std::move(sj));
}

void
EpochEngine::AddLinkRates(const RunJob& j)
{
    for (const auto& [link, bytes] : j.load)
    {
        if (bytes <= 0)
        {
            continue;
        }
        auto& v = m_linkRate[link];
        v.first += bytes * j.rate;
        v.second += bytes * j.rate * (std::isfinite(j.intensity) ? j.intensity : 0.0);
    }
}

void
EpochEngine::Advance(double t)
{
    const double t0 = m_lastEvent;
    if (t > t0 && m_fabric)
    {
        // Engine "flow": the epoch's effective rates from the fabric's iteration counts;
        // the utilization row of the epoch is filled in now (it was provisional).
        m_linkRate.clear();
        for (uint32_t i : m_running)
        {
            RunJob& j = m_jobs[i];
            const uint64_t n = m_fabric->CompletedIterations(i);
            j.rate = (n - j.flowDone) / (t - t0);
            j.flowDone = n;
            j.res.done = static_cast<double>(n);
            m_util->NotifyIterationRate(i, Seconds(m_ws + t0), j.rate);
            AddLinkRates(j);
        }
        if (!m_result.util.empty() && m_result.util.back().time >= m_ws + t0 - 1e-9)
        {
            m_result.util.back().utilization = m_util->GetCurrentBusyUtilization();
        }
    }
    if (t > t0)
    {
        for (uint32_t i : m_running)
        {
            RunJob& j = m_jobs[i];
            if (!m_fabric)
            {
                j.res.done += j.rate * (t - j.lastUpdate);
                if (!m_fixedDuration)
                {
                    j.res.done = std::min(j.res.work, j.res.done);
                }
            }
            j.lastUpdate = t;
        }
        // Link traffic of [t0, t) into bins of the trace clock.
        const double bin = m_config.binSeconds;
        double a = m_ws + t0;
        const double b = m_ws + t;
        while (a < b)
        {
            uint64_t k = static_cast<uint64_t>(std::floor(a / bin));
            while ((k + 1) * bin <= a)
            {
                ++k; // a / bin rounded down below a bin's end (13 x 10.1 / 10.1 < 13)
            }
            const double e = std::min(b, (k + 1) * bin);
            const double dt = e - a;
            if (dt > 0)
            {
                for (const auto& [link, v] : m_linkRate)
                {
                    auto& cell = m_result.linkBins[{k, link}];
                    cell.first += v.first * dt;
                    cell.second += v.second * dt;
                }
            }
            a = e;
        }
    }
    for (uint32_t i : m_running)
    {
        m_jobs[i].lastUpdate = t;
    }
    m_lastEvent = std::max(m_lastEvent, t);
}

void
EpochEngine::Reschedule()
{
    m_linkRate.clear();
    if (m_model.jobs.empty())
    {
        Sample(Now());
        return;
    }
    const double w0 = WallNow();
    const Decision d = m_scheduler->Schedule(m_model, m_sc);
    m_result.schedulerSeconds += WallNow() - w0;
    ++m_result.decisionsMade;

    const uint32_t n = static_cast<uint32_t>(m_model.jobs.size());
    std::vector<PathChoice> choice(n);
    InstallDecision(d, choice);
    if (m_fabric)
    {
        // Engine "flow": install on the running fabric; progress is read back later.
        m_fabric->ApplyDecision(m_model, d);
        Sample(Now());
        return;
    }
    // Priority class of a job, larger = higher: its level, or, for a scheduler that meant
    // unique priorities (Crux-PA, Crux-PS-PA: Decision::uniquePriorities) and unless the config
    // asks for hardware levels, its rank (one class per job, as the paper evaluates them).
    const bool byRank = d.uniquePriorities && m_config.uniquePriorities;
    m_result.rankClasses = m_result.rankClasses || byRank;
    EpochRateInput in;
    in.model = &m_model;
    in.choice = choice;
    in.time = m_ws + Now();
    for (uint32_t k = 0; k < n; ++k)
    {
        const SchedJob& sj = m_model.jobs[k];
        const JobDecision& jd = d.jobs.at(sj.id);
        in.load.push_back(&m_jobs[sj.id].load);
        in.priorityClass.push_back(byRank ? std::numeric_limits<uint32_t>::max() - jd.rank
                                          : jd.level);
        in.timeShift.push_back(jd.timeShift);
    }
    const std::vector<double> rate = m_rates->Rates(in);
    // New rates, completion events, link traffic of the epoch.
    for (uint32_t k = 0; k < n; ++k)
    {
        const SchedJob& sj = m_model.jobs[k];
        RunJob& j = m_jobs[sj.id];
        j.rate = rate.at(k);
        AddLinkRates(j);
        if (m_fixedDuration)
        {
            continue; // the completion is fixed at start + trace duration
        }
        Simulator::Cancel(j.completion);
        const double remaining = j.res.work - j.res.done;
        if (remaining <= 0)
        {
            j.completion = Simulator::ScheduleNow(&EpochEngine::Complete, this, sj.id);
        }
        else if (j.rate > 0)
        {
            j.completion = Simulator::Schedule(Seconds(remaining / j.rate),
                                               &EpochEngine::Complete,
                                               this,
                                               sj.id);
        }
    }
    Sample(Now());
}

void
EpochEngine::InstallDecision(const Decision& d, std::vector<PathChoice>& choice)
{
    for (uint32_t k = 0; k < m_model.jobs.size(); ++k)
    {
        const SchedJob& sj = m_model.jobs[k];
        const JobDecision& jd = d.jobs.at(sj.id);
        choice[k] = ChoiceOf(sj, jd);
        RunJob& j = m_jobs[sj.id];
        const PathChoice& before = j.installed.empty() ? j.defaults : j.installed;
        uint32_t changed = 0;
        for (size_t f = 0; f < choice[k].size(); ++f)
        {
            changed += choice[k][f] != before[f] ? 1 : 0;
        }
        if (changed > 0)
        {
            // New paths: the job's stand-alone rate on them (cached per job and choice).
            j.aloneInstalledRate =
                choice[k] == j.defaults ? j.aloneDefaultRate : m_rates->AloneRate(sj, choice[k]);
        }
        if (changed > 0 || j.installed.empty())
        {
            j.load = JobLinkBytes(sj, choice[k]); // a function of the job and its paths only
        }
        j.installed = choice[k];
        m_result.decisions.push_back({m_ws + Now(), sj.id, jd.level, jd.rank, changed});
        j.intensity = jd.intensity;
    }
}

void
EpochEngine::RecordRates(double t)
{
    const Time at = Seconds(m_ws + t);
    for (const SchedJob& sj : m_model.jobs)
    {
        const RunJob& j = m_jobs[sj.id];
        m_util->NotifyIterationRate(sj.id, at, j.rate);
        m_utilAloneDefault->NotifyIterationRate(sj.id, at, j.aloneDefaultRate);
        m_utilAloneInstalled->NotifyIterationRate(sj.id, at, j.aloneInstalledRate);
    }
}

void
EpochEngine::Sample(double t)
{
    ClusterUtilSample s;
    s.time = m_ws + t;
    s.running = static_cast<uint32_t>(m_running.size());
    s.queued = static_cast<uint32_t>(m_queue.size());
    s.busyGpus = m_busy;
    RecordRates(t);
    s.utilization = m_util->GetCurrentBusyUtilization();
    s.aloneDefault = m_utilAloneDefault->GetCurrentBusyUtilization();
    s.aloneInstalled = m_utilAloneInstalled->GetCurrentBusyUtilization();
    if (!m_result.util.empty() && m_result.util.back().time == s.time)
    {
        m_result.util.back() = s;
    }
    else
    {
        m_result.util.push_back(s);
    }
}

void
EpochEngine::Summarize()
{
    ClusterRunResult& r = m_result;
    r.windowStart = m_ws;
    r.windowEnd = m_we;
    double jct = 0;
    for (RunJob& j : m_jobs)
    {
        if (j.res.unplaceable)
        {
            ++r.jobsUnplaceable;
        }
        else if (j.finished)
        {
            ++r.jobsFinished;
            jct += j.res.end - j.res.arrival;
        }
        else
        {
            ++r.jobsUnfinished;
        }
        r.jobs.push_back(j.res);
    }
    r.meanJct = r.jobsFinished > 0 ? jct / r.jobsFinished : 0.0;
    // Utilization over [ws, we] from the accounts (busy GPU-seconds of the rates in force);
    // the allocated fraction time-weighted over the rows (a row holds until the next one).
    const Time lo = Seconds(m_ws);
    const Time hi = Seconds(m_we);
    r.meanUtilization = m_util->GetBusyUtilization(lo, hi);
    r.meanUtilAloneDefault = m_utilAloneDefault->GetBusyUtilization(lo, hi);
    r.meanUtilAloneInstalled = m_utilAloneInstalled->GetBusyUtilization(lo, hi);
    double areaBusy = 0;
    for (size_t k = 0; k < r.util.size(); ++k)
    {
        const double a = std::max(m_ws, r.util[k].time);
        const double b =
            std::min(m_we, k + 1 < r.util.size() ? r.util[k + 1].time : std::max(m_we, r.simEnd));
        if (b > a)
        {
            areaBusy +=
                m_total > 0 ? static_cast<double>(r.util[k].busyGpus) / m_total * (b - a) : 0.0;
        }
    }
    r.meanBusyFraction = m_we > m_ws ? areaBusy / (m_we - m_ws) : 0.0;
}

} // namespace ns3
