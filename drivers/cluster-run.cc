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

#include "ns3/comm-scheduler.h"
#include "ns3/flow-evaluator.h"
#include "ns3/gpu-placement.h"
#include "ns3/lingjun-trace-generator.h"
#include "ns3/live-cluster-fabric.h"
#include "ns3/log.h"
#include "ns3/model-mapping.h"
#include "ns3/model-zoo.h"
#include "ns3/nstime.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterRun");

namespace
{

/// \return "ClusterRunConfig.<field>: <what>" as std::invalid_argument
std::invalid_argument
ConfigError(const std::string& field, const std::string& what)
{
    return std::invalid_argument("ClusterRunConfig." + field + ": " + what);
}

/// "; N rows skipped, e.g. <first three as file:line: reason>" (empty if none): the reasons
/// behind an input that ends up empty, for its error message.
std::string
SkippedRowsDigest(const std::vector<TraceWarning>& w)
{
    if (w.empty())
    {
        return "";
    }
    std::string out = "; " + std::to_string(w.size()) + " rows skipped, e.g. ";
    for (size_t k = 0; k < w.size() && k < 3; ++k)
    {
        out += (k > 0 ? " | " : "") + ToString(w[k]);
    }
    return out;
}

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

/// A Lingjun-like host list over a ScaleTopology (for the trace generator).
LingjunTopology
LingjunViewOf(const ScaleTopology& topo)
{
    LingjunTopology lt;
    uint32_t groups = 0;
    for (uint32_t g : topo.torGroup)
    {
        groups = std::max(groups, g + 1);
    }
    for (uint32_t g = 0; g < groups; ++g)
    {
        lt.psws.push_back("psw" + std::to_string(g));
    }
    lt.dsws.push_back("dsw0");
    for (uint32_t t = 0; t < topo.NumTors(); ++t)
    {
        lt.tors.emplace_back(lt.psws.at(topo.torGroup.at(t)), "asw" + std::to_string(t));
        lt.torPsw.push_back(topo.torGroup.at(t));
        lt.torDsw.push_back(0);
    }
    for (uint32_t h = 0; h < topo.NumHosts(); ++h)
    {
        lt.hosts.push_back("host" + std::to_string(h));
        lt.hostTor.push_back(topo.hostTor.at(h));
        lt.hostIndex[lt.hosts.back()] = h;
    }
    return lt;
}

/// Union-find over job positions.
struct UnionFind
{
    std::vector<uint32_t> parent; //!< parent per element

    explicit UnionFind(uint32_t n)
        : parent(n)
    {
        std::iota(parent.begin(), parent.end(), 0U);
    }

    uint32_t Find(uint32_t x)
    {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    void Join(uint32_t a, uint32_t b)
    {
        a = Find(a);
        b = Find(b);
        if (a != b)
        {
            parent[std::max(a, b)] = std::min(a, b);
        }
    }
};

/// State of one job during a run.
struct RunJob
{
    const TraceJob* trace{nullptr};  //!< its trace record
    ClusterJobResult res;            //!< output row
    JobShape shape;                  //!< requested shape
    bool running{false};             //!< placed and not finished
    bool finished{false};            //!< completed its work
    double rate{0};                  //!< iterations per second in the current epoch
    double lastUpdate{0};            //!< sim seconds of the last progress update
    EventId completion;              //!< pending completion event
    std::vector<uint32_t> installed; //!< installed path index per flow (empty: none yet)
    PathChoice defaults;             //!< ECMP default choice
    LinkLoad load;                   //!< bytes per iteration per link on the installed paths
    double intensity{0};             //!< I_j of the installed decision, FLOPs/s
    uint64_t flowDone{0};            //!< engine "flow": iterations counted at the last Advance
    double aloneDefaultRate{0};      //!< iterations/s alone on the ECMP default paths
    double aloneInstalledRate{0};    //!< iterations/s alone on the installed paths
};

/**
 * The run of one scheduler (see ClusterRun). Sim time 0 = window start. Engine "epoch": job
 * progress from the FlowEvaluator's steady rates per epoch. Engine "flow": the same arrivals,
 * placement, queue and decisions, but the jobs run as DltJobApplications on a
 * LiveClusterFabric and every decision is installed on it; progress is read back from the
 * fabric (CompletedIterations) at every event.
 */
class EpochEngine
{
  public:
    EpochEngine(const ClusterRunConfig& config,
                const ScaleTopology& topo,
                const std::vector<TraceJob>& window,
                double origin,
                double windowStart,
                double windowEnd,
                const std::string& scheduler)
        : m_config(config),
          m_topo(topo),
          m_window(window),
          m_origin(origin),
          m_ws(windowStart),
          m_we(windowEnd),
          m_scheduler(CreateCommScheduler(scheduler)),
          m_mapper(config.seed)
    {
        m_result.scheduler = scheduler;
        m_model.links = topo.links;
        m_sc.numLevels = config.numLevels;
        m_sc.seed = config.seed;
        m_evalOpt.horizonIterations = config.horizonIterations;
        m_evalOpt.warmupFraction = config.warmupFraction;
        if (config.placement != "trace")
        {
            m_placer = std::make_unique<GpuPlacer>(GpuPlacer::HostsOf(topo),
                                                   ParsePlacementPolicy(config.placement),
                                                   config.placementSeed);
        }
        m_hostFree.assign(topo.NumHosts(), std::vector<bool>(topo.gpusPerHost, true));
        m_total = topo.NumGpus();
        m_fixedDuration = config.workModel == "duration";
        if (config.engine == "flow")
        {
            m_fabric = CreateObject<LiveClusterFabric>();
            m_fabric->SetAttribute("EcmpSeed", UintegerValue(config.seed));
            m_fabric->SetAttribute("MaxPaths", UintegerValue(config.maxPaths));
            m_fabric->Setup(topo);
        }
    }

    ClusterRunResult Run()
    {
        const double wall0 = WallNow();
        m_wall0 = wall0;
        m_nextProgress = wall0 + m_config.progressSeconds;
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
        const double stop = (m_we - m_ws) + m_config.drainSeconds;
        Simulator::Stop(Seconds(stop));
        Sample(0.0);
        Simulator::Run();
        // Close the books at the last event, or at the stop time if jobs are still running.
        double end = m_lastEvent;
        if (m_running.size() + m_queue.size() > 0)
        {
            end = std::max(end, stop);
        }
        Advance(end);
        if (m_fabric)
        {
            m_fabric->Dispose();
            m_fabric = nullptr;
        }
        Simulator::Destroy();
        m_result.simEnd = m_ws + end;
        Finish();
        m_result.wallSeconds = WallNow() - wall0;
        return std::move(m_result);
    }

  private:
    /// Sim seconds now.
    static double Now()
    {
        return Simulator::Now().GetSeconds();
    }

    /// Print a progress line on stderr if progressSeconds of wall time passed since the last
    /// one (wall-clock check only: no simulator event, so results never depend on it).
    void MaybeProgress()
    {
        if (m_config.progressSeconds <= 0)
        {
            return;
        }
        const double now = WallNow();
        if (now < m_nextProgress)
        {
            return;
        }
        m_nextProgress = now + m_config.progressSeconds;
        std::ostringstream os;
        os << std::fixed << std::setprecision(2) << "crux-trace-run: " << m_result.scheduler
           << ": sim " << (m_ws + Now()) / 86400.0 << " d of " << m_we / 86400.0 << " d, "
           << m_result.events << " events, " << m_running.size() << " running, " << m_queue.size()
           << " queued, wall " << std::setprecision(0) << now - m_wall0 << " s\n";
        std::cerr << os.str() << std::flush;
    }

    void Arrive(uint32_t i)
    {
        ++m_result.events;
        MaybeProgress();
        Advance(Now());
        m_queue.push_back(i);
        PlaceQueued();
        Reschedule();
    }

    void Complete(uint32_t i)
    {
        ++m_result.events;
        MaybeProgress();
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
        if (m_placer)
        {
            m_placer->Release(i);
        }
        for (const GpuId& g : m_dlt.at(i).gpus)
        {
            m_hostFree[g.host][g.localGpu] = true;
        }
        m_busy -= j.res.gpus;
        m_running.erase(std::find(m_running.begin(), m_running.end(), i));
        auto it = std::find_if(m_model.jobs.begin(), m_model.jobs.end(), [i](const SchedJob& s) {
            return s.id == i;
        });
        m_model.jobs.erase(it);
        m_dlt.erase(i);
        PlaceQueued();
        Reschedule();
    }

    /// Allocation with the trace's recorded hosts; nullopt if busy now; throws
    /// std::invalid_argument if it can never fit.
    std::optional<std::vector<HostShare>> AllocateTrace(const TraceJob& tj)
    {
        if (tj.hosts.empty())
        {
            throw std::invalid_argument("no recorded hosts");
        }
        std::vector<HostShare> shares;
        for (size_t k = 0; k < tj.hosts.size(); ++k)
        {
            const uint32_t h = tj.hosts[k];
            const uint32_t need = tj.gpusPerHost.at(k);
            if (h >= m_topo.NumHosts() || need > m_topo.gpusPerHost ||
                need != tj.gpusPerHost.front())
            {
                throw std::invalid_argument("recorded hosts do not fit the topology");
            }
            HostShare s;
            s.host = h;
            for (uint32_t g = 0; g < m_topo.gpusPerHost && s.localGpus.size() < need; ++g)
            {
                if (m_hostFree[h][g])
                {
                    s.localGpus.push_back(g);
                }
            }
            if (s.localGpus.size() < need)
            {
                return std::nullopt;
            }
            shares.push_back(s);
        }
        return shares;
    }

    /// Place queued jobs in FIFO order while the head fits (strict FIFO: the head blocks).
    void PlaceQueued()
    {
        while (!m_queue.empty())
        {
            const uint32_t i = m_queue.front();
            RunJob& j = m_jobs[i];
            std::optional<std::vector<HostShare>> alloc;
            try
            {
                alloc = m_placer ? m_placer->Allocate(i, j.shape) : AllocateTrace(*j.trace);
            }
            catch (const std::invalid_argument& e)
            {
                NS_LOG_INFO("job " << j.res.name << " can never be placed: " << e.what());
                j.res.unplaceable = true;
                m_queue.pop_front();
                continue;
            }
            if (!alloc)
            {
                return;
            }
            m_queue.pop_front();
            Start(i, *alloc);
        }
    }

    void Start(uint32_t i, const std::vector<HostShare>& alloc)
    {
        RunJob& j = m_jobs[i];
        std::vector<GpuId> gpus;
        for (const HostShare& s : alloc)
        {
            for (uint32_t g : s.localGpus)
            {
                gpus.push_back(GpuId{s.host, g});
                m_hostFree[s.host][g] = false;
            }
        }
        DltJob dlt = DltJob::FromModel(i, j.res.model, gpus);
        if (ModelMapper::IsLlm(j.res.model))
        {
            dlt.ApplyPlan(ModelMapper::TracePlanRequest()); // trace LLMs: real size, default plan
        }
        // The shared conversion (ring flows, equal-cost paths, ECMP default, overlapStart =
        // f + (1 - f) / numBuckets), identical to what LiveClusterFabric routes by.
        SchedJob sj = MakeScaleSchedJob(dlt, m_topo, m_config.seed, m_config.maxPaths);
        j.defaults = DefaultPathChoice(sj);
        j.res.hosts = static_cast<uint32_t>(alloc.size());
        j.res.start = m_ws + Now();
        j.res.flopsPerIter = sj.flopsPerIteration;
        const double tAlone = JobCommTime(m_model, sj, j.defaults);
        j.res.intensity = GpuIntensity(sj.flopsPerIteration, tAlone);
        // Stand-alone rate: the job alone with its ECMP default paths, same evaluator.
        const double aloneRate = AloneRate(sj, j.defaults);
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
        j.running = true;
        j.rate = 0;
        j.lastUpdate = Now();
        m_busy += j.res.gpus;
        m_running.push_back(i);
        m_model.jobs.push_back(std::move(sj));
        m_dlt.emplace(i, std::move(dlt));
    }

    /// Add a job's link traffic at its current rate to m_linkRate.
    void AddLinkRates(const RunJob& j)
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

    /// Advance every running job's progress, the link bins and the utilization integral to
    /// sim time t (the rates of the current epoch held since m_lastEvent).
    void Advance(double t)
    {
        const double t0 = m_lastEvent;
        if (t > t0 && m_fabric)
        {
            // Engine "flow": the epoch's effective rates from the fabric's iteration counts;
            // the utilization row of the epoch is filled in now (it was provisional).
            m_linkRate.clear();
            double u = 0;
            for (uint32_t i : m_running)
            {
                RunJob& j = m_jobs[i];
                const uint64_t n = m_fabric->CompletedIterations(i);
                j.rate = (n - j.flowDone) / (t - t0);
                j.flowDone = n;
                j.res.done = static_cast<double>(n);
                const SchedJob& sj = *std::find_if(m_model.jobs.begin(),
                                                   m_model.jobs.end(),
                                                   [i](const SchedJob& x) { return x.id == i; });
                u += sj.numGpus * sj.computeTime * j.rate;
                AddLinkRates(j);
            }
            if (!m_result.util.empty() && m_result.util.back().time >= m_ws + t0 - 1e-9)
            {
                m_result.util.back().utilization = m_total > 0 ? u / m_total : 0.0;
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
                const uint64_t k = static_cast<uint64_t>(std::floor(a / bin));
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

    /// Steady iteration rates (iterations/s) of a set of jobs that share links, under the
    /// given paths, classes (larger = higher) and time shifts: the fluid FlowEvaluator on a
    /// sub-model with only the links the chosen paths use.
    std::vector<double> EvaluateComponent(const std::vector<const SchedJob*>& jobs,
                                          const std::vector<PathChoice>& choice,
                                          const std::vector<int64_t>& prio,
                                          const std::vector<double>& shift)
    {
        ClusterModel sub;
        std::unordered_map<uint32_t, uint32_t> remap;
        for (size_t k = 0; k < jobs.size(); ++k)
        {
            const SchedJob& src = *jobs[k];
            SchedJob sj;
            sj.id = src.id;
            sj.flopsPerIteration = src.flopsPerIteration;
            sj.computeTime = src.computeTime;
            sj.overlapStart = src.overlapStart;
            sj.numGpus = src.numGpus;
            for (size_t f = 0; f < src.flows.size(); ++f)
            {
                const SchedFlow& fl = src.flows[f];
                const auto& path = fl.candidatePaths.at(choice[k].at(f));
                if (path.empty() || fl.bytesPerIteration <= 0)
                {
                    continue;
                }
                SchedFlow nf;
                nf.id = fl.id;
                nf.bytesPerIteration = fl.bytesPerIteration;
                std::vector<uint32_t> p;
                for (uint32_t l : path)
                {
                    auto [it, fresh] = remap.emplace(l, static_cast<uint32_t>(sub.links.size()));
                    if (fresh)
                    {
                        SchedLink sl;
                        sl.bandwidth = m_topo.links[l].bandwidth;
                        sub.links.push_back(sl);
                    }
                    p.push_back(it->second);
                }
                nf.candidatePaths.push_back(std::move(p));
                sj.flows.push_back(std::move(nf));
            }
            sub.jobs.push_back(std::move(sj));
        }
        std::vector<double> rates(jobs.size(), 0.0);
        // Jobs without modelled traffic run at their computation rate.
        bool anyTraffic = false;
        for (size_t k = 0; k < sub.jobs.size(); ++k)
        {
            if (sub.jobs[k].flows.empty())
            {
                rates[k] = sub.jobs[k].computeTime > 0 ? 1.0 / sub.jobs[k].computeTime : 0.0;
            }
            else
            {
                anyTraffic = true;
            }
        }
        if (!anyTraffic)
        {
            return rates;
        }
        const double w0 = WallNow();
        FlowEvaluator ev(sub, m_evalOpt);
        EvaluationInput in;
        for (const auto& sj : sub.jobs)
        {
            in.paths.emplace_back(sj.flows.size(), 0U);
        }
        in.priority = prio;
        in.timeShift = shift;
        const FlowEvaluation r = ev.Evaluate(in);
        for (size_t k = 0; k < r.jobs.size(); ++k)
        {
            rates[k] = r.jobs[k].iterationRate;
        }
        ++m_result.evaluations;
        m_result.evaluatorSeconds += WallNow() - w0;
        return rates;
    }

    /**
     * Rate of a job alone in the cluster on the given paths (iterations/s): EvaluateComponent
     * of the job by itself (class 0, no time shift), served from and stored in the component
     * cache under the key a one-job component with these paths, class 0 and shift 0 has.
     */
    double AloneRate(const SchedJob& sj, const PathChoice& choice)
    {
        std::string key = std::to_string(sj.id) + ":0:";
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%a:", 0.0);
        key += buf;
        for (uint32_t c : choice)
        {
            key += std::to_string(c) + ",";
        }
        key += ";";
        auto it = m_cache.find(key);
        if (it != m_cache.end())
        {
            return it->second.at(0);
        }
        std::vector<double> r = EvaluateComponent({&sj}, {choice}, {0}, {0.0});
        if (m_cache.size() > 200000)
        {
            m_cache.clear();
        }
        m_cache.emplace(key, r);
        return r.at(0);
    }

    /// Scheduler decision over all running jobs, per-component rates, completion events.
    void Reschedule()
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
        std::vector<LinkLoad> load(n);
        UnionFind uf(n);
        std::unordered_map<uint32_t, uint32_t> linkOwner;
        for (uint32_t k = 0; k < n; ++k)
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
                    choice[k] == j.defaults ? j.aloneDefaultRate : AloneRate(sj, choice[k]);
            }
            j.installed = choice[k];
            m_result.decisions.push_back({m_ws + Now(), sj.id, jd.level, jd.rank, changed});
            load[k] = JobLinkBytes(sj, choice[k]);
            j.load = load[k];
            j.intensity = jd.intensity;
            for (const auto& [link, bytes] : load[k])
            {
                if (bytes <= 0)
                {
                    continue;
                }
                auto [it, fresh] = linkOwner.emplace(link, k);
                if (!fresh)
                {
                    uf.Join(k, it->second);
                }
            }
        }
        if (m_fabric)
        {
            // Engine "flow": install on the running fabric; progress is read back later.
            m_fabric->ApplyDecision(m_model, d);
            Sample(Now());
            return;
        }
        std::map<uint32_t, std::vector<uint32_t>> comps;
        for (uint32_t k = 0; k < n; ++k)
        {
            comps[uf.Find(k)].push_back(k);
        }
        std::vector<double> rate(n, 0.0);
        for (const auto& [root, members] : comps)
        {
            // Priority class of a job, larger = higher: its level, or, for a scheduler that
            // meant unique priorities (Crux-PA, Crux-PS-PA: Decision::uniquePriorities) and
            // unless the config asks for hardware levels, its rank (one class per job, as the
            // paper evaluates them). Only the order matters: normalise to dense ranks so that
            // a component keeps its cache entry when the scheduler shifts all its classes.
            const bool byRank = d.uniquePriorities && m_config.uniquePriorities;
            m_result.rankClasses = m_result.rankClasses || byRank;
            auto classOf = [byRank](const JobDecision& jd) {
                return byRank ? std::numeric_limits<uint32_t>::max() - jd.rank : jd.level;
            };
            std::set<uint32_t> levels;
            for (uint32_t k : members)
            {
                levels.insert(classOf(d.jobs.at(m_model.jobs[k].id)));
            }
            std::vector<const SchedJob*> js;
            std::vector<PathChoice> ch;
            std::vector<int64_t> prio;
            std::vector<double> shift;
            std::string key;
            for (uint32_t k : members)
            {
                const SchedJob& sj = m_model.jobs[k];
                const JobDecision& jd = d.jobs.at(sj.id);
                js.push_back(&sj);
                ch.push_back(choice[k]);
                prio.push_back(std::distance(levels.begin(), levels.find(classOf(jd))));
                shift.push_back(jd.timeShift);
                key += std::to_string(sj.id) + ":" + std::to_string(prio.back()) + ":";
                char buf[32];
                std::snprintf(buf, sizeof(buf), "%a:", jd.timeShift);
                key += buf;
                for (uint32_t c : choice[k])
                {
                    key += std::to_string(c) + ",";
                }
                key += ";";
            }
            auto it = m_cache.find(key);
            std::vector<double> r;
            if (it != m_cache.end())
            {
                r = it->second;
                ++m_result.cacheHits;
            }
            else
            {
                r = EvaluateComponent(js, ch, prio, shift);
                if (m_cache.size() > 200000)
                {
                    m_cache.clear();
                }
                m_cache.emplace(key, r);
            }
            for (size_t q = 0; q < members.size(); ++q)
            {
                rate[members[q]] = r[q];
            }
        }
        // New rates, completion events, link traffic of the epoch.
        for (uint32_t k = 0; k < n; ++k)
        {
            const SchedJob& sj = m_model.jobs[k];
            RunJob& j = m_jobs[sj.id];
            j.rate = rate[k];
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

    /// Append a utilization row for the state from sim time t on.
    void Sample(double t)
    {
        ClusterUtilSample s;
        s.time = m_ws + t;
        s.running = static_cast<uint32_t>(m_running.size());
        s.queued = static_cast<uint32_t>(m_queue.size());
        s.busyGpus = m_busy;
        double u = 0;
        double uDefault = 0;
        double uInstalled = 0;
        for (const SchedJob& sj : m_model.jobs)
        {
            const RunJob& j = m_jobs[sj.id];
            const double w = sj.numGpus * sj.computeTime;
            u += w * j.rate;
            uDefault += w * j.aloneDefaultRate;
            uInstalled += w * j.aloneInstalledRate;
        }
        s.utilization = m_total > 0 ? u / m_total : 0.0;
        s.aloneDefault = m_total > 0 ? uDefault / m_total : 0.0;
        s.aloneInstalled = m_total > 0 ? uInstalled / m_total : 0.0;
        if (!m_result.util.empty() && m_result.util.back().time == s.time)
        {
            m_result.util.back() = s;
        }
        else
        {
            m_result.util.push_back(s);
        }
    }

    /// Fill the summary fields.
    void Finish()
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
        // Time-weighted utilization over [ws, we] (a row holds until the next one); the same
        // weights for the stand-alone series of the contention decomposition.
        double area = 0;
        double areaDefault = 0;
        double areaInstalled = 0;
        double areaBusy = 0;
        const double lo = m_ws;
        const double hi = m_we;
        for (size_t k = 0; k < r.util.size(); ++k)
        {
            const double a = std::max(lo, r.util[k].time);
            const double b =
                std::min(hi, k + 1 < r.util.size() ? r.util[k + 1].time : std::max(hi, r.simEnd));
            if (b > a)
            {
                area += r.util[k].utilization * (b - a);
                areaDefault += r.util[k].aloneDefault * (b - a);
                areaInstalled += r.util[k].aloneInstalled * (b - a);
                areaBusy +=
                    m_total > 0 ? static_cast<double>(r.util[k].busyGpus) / m_total * (b - a) : 0.0;
            }
        }
        r.meanUtilization = hi > lo ? area / (hi - lo) : 0.0;
        r.meanUtilAloneDefault = hi > lo ? areaDefault / (hi - lo) : 0.0;
        r.meanUtilAloneInstalled = hi > lo ? areaInstalled / (hi - lo) : 0.0;
        r.meanBusyFraction = hi > lo ? areaBusy / (hi - lo) : 0.0;
    }

    const ClusterRunConfig& m_config;                         //!< config
    const ScaleTopology& m_topo;                              //!< topology
    const std::vector<TraceJob>& m_window;                    //!< window jobs
    double m_origin;                                          //!< trace origin
    double m_ws;                                              //!< window start (trace clock)
    double m_we;                                              //!< window end (trace clock)
    std::unique_ptr<CommScheduler> m_scheduler;               //!< scheduler
    ModelMapper m_mapper;                                     //!< label -> zoo model
    SchedulerConfig m_sc;                                     //!< scheduler config
    FlowEvaluatorOptions m_evalOpt;                           //!< evaluator options
    std::unique_ptr<GpuPlacer> m_placer;                      //!< placer (null for "trace")
    Ptr<LiveClusterFabric> m_fabric;                          //!< engine "flow" only
    bool m_fixedDuration{false};                              //!< work model "duration"
    std::vector<std::vector<bool>> m_hostFree;                //!< host -> GPU -> free
    uint32_t m_total{0};                                      //!< GPUs
    uint32_t m_busy{0};                                       //!< allocated GPUs
    std::vector<RunJob> m_jobs;                               //!< per window job
    std::deque<uint32_t> m_queue;                             //!< FIFO of waiting jobs
    std::vector<uint32_t> m_running;                          //!< running jobs, start order
    std::map<uint32_t, DltJob> m_dlt;                         //!< running jobs' DltJobs
    ClusterModel m_model;                                     //!< running jobs (scheduler input)
    double m_lastEvent{0};                                    //!< sim seconds of the last Advance
    std::map<uint32_t, std::pair<double, double>> m_linkRate; //!< link -> (B/s, B/s × I)
    std::unordered_map<std::string, std::vector<double>> m_cache; //!< component rates
    ClusterRunResult m_result;                                    //!< output
    double m_wall0{0};                                            //!< wall clock at Run()
    double m_nextProgress{0}; //!< wall clock of the next progress line
};

} // namespace

// ------------------------------------------------------------------------------- config

void
ClusterRunConfig::Validate() const
{
    if (topology != "clos" && topology != "double-sided" && topology != "lingjun")
    {
        throw ConfigError("topology", "'" + topology + "' is not clos, double-sided or lingjun");
    }
    if (topology == "lingjun" && topoCsv.empty())
    {
        throw ConfigError("topoCsv", "topology lingjun needs the topo.csv path");
    }
    if (maxPaths == 0)
    {
        throw ConfigError("maxPaths", "must be >= 1");
    }
    if (placement != "trace")
    {
        try
        {
            ParsePlacementPolicy(placement);
        }
        catch (const std::exception& e)
        {
            throw ConfigError("placement",
                              "'" + placement + "' is not locality, random, buddy or trace");
        }
    }
    if (schedulers.empty())
    {
        throw ConfigError("schedulers", "empty");
    }
    const auto known = KnownCommSchedulers();
    for (const auto& s : schedulers)
    {
        if (std::find(known.begin(), known.end(), s) == known.end())
        {
            std::string list;
            for (const auto& k : known)
            {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw ConfigError("schedulers", "unknown scheduler '" + s + "' (known: " + list + ")");
        }
        if (std::count(schedulers.begin(), schedulers.end(), s) > 1)
        {
            throw ConfigError("schedulers", "'" + s + "' is listed twice");
        }
        if (s == "optimal")
        {
            // The exhaustive search refuses models beyond 1e6 candidates (optimal-scheduler.h):
            // at trace scale it would fail at the first busy event, so refuse it up front.
            throw ConfigError("schedulers",
                              "'optimal' is for small cases only (exhaustive search, "
                              "crux-microbenchmark), not for trace-scale runs");
        }
    }
    if (numLevels == 0 || numLevels > 8)
    {
        throw ConfigError("numLevels", "must be 1..8 (traffic classes)");
    }
    if (jobCsv.empty() != workerCsv.empty())
    {
        throw ConfigError(jobCsv.empty() ? "jobCsv" : "workerCsv",
                          "job.csv and worker.csv must be given together");
    }
    if (jobs.empty() && !jobCsv.empty() && topoCsv.empty())
    {
        throw ConfigError("topoCsv", "reading job.csv/worker.csv needs the topo.csv path");
    }
    if (!(traceDays > 0) || !std::isfinite(traceDays) || traceDays > 366)
    {
        throw ConfigError("traceDays", "must be a positive number of days, at most 366");
    }
    if (!(jobsPerDay > 0) || !std::isfinite(jobsPerDay) || jobsPerDay > 1e5)
    {
        throw ConfigError("jobsPerDay", "must be a positive number of jobs per day, at most 1e5");
    }
    if (!(windowStart >= 0) || !std::isfinite(windowStart))
    {
        throw ConfigError("windowStart", "must be >= 0 seconds");
    }
    if (windowEnd < 0 && windowEnd != -1.0)
    {
        throw ConfigError("windowEnd", "must be >= 0, or exactly -1 for the whole trace");
    }
    if (windowEnd >= 0 && !(windowEnd > windowStart))
    {
        throw ConfigError("windowEnd", "must be > windowStart (or -1 for the whole trace)");
    }
    if (!(drainSeconds >= 0) || !std::isfinite(drainSeconds))
    {
        throw ConfigError("drainSeconds", "must be >= 0");
    }
    if (!(binSeconds > 0) || !std::isfinite(binSeconds))
    {
        throw ConfigError("binSeconds", "must be > 0 seconds");
    }
    if (engine != "epoch" && engine != "flow")
    {
        throw ConfigError("engine", "'" + engine + "' is not epoch or flow");
    }
    if (workModel != "iterations" && workModel != "duration")
    {
        throw ConfigError("workModel", "'" + workModel + "' is not iterations or duration");
    }
    if (!(horizonIterations > 0))
    {
        throw ConfigError("horizonIterations", "must be > 0");
    }
    if (!(warmupFraction >= 0 && warmupFraction < 1))
    {
        throw ConfigError("warmupFraction", "must be in [0, 1)");
    }
    if (!(progressSeconds >= 0) || !std::isfinite(progressSeconds))
    {
        throw ConfigError("progressSeconds", "must be >= 0 wall seconds (0 = no progress lines)");
    }
    for (size_t k = 0; k < jobs.size(); ++k)
    {
        const TraceJob& j = jobs[k];
        const std::string f = "jobs[" + std::to_string(k) + "]";
        if (j.gpus == 0)
        {
            throw ConfigError(f + ".gpus", "must be >= 1");
        }
        if (!(j.end >= j.start) || !(j.start >= j.submit))
        {
            throw ConfigError(f, "needs submit <= start <= end");
        }
    }
}

// ------------------------------------------------------------------------------- ClusterRun

ClusterRun::ClusterRun(const ClusterRunConfig& config)
    : m_config(config)
{
    m_config.Validate();
    CheckOutputDir();
    BuildTopology();
    LoadTrace();
}

void
ClusterRun::CheckOutputDir() const
{
    namespace fs = std::filesystem;
    if (m_config.outputDir.empty())
    {
        return;
    }
    std::error_code ec;
    const fs::path out(m_config.outputDir);
    if (fs::exists(out, ec))
    {
        if (!fs::is_directory(out, ec))
        {
            throw ConfigError("outputDir", "'" + out.string() + "' exists and is not a directory");
        }
        if (::access(out.c_str(), W_OK | X_OK) != 0)
        {
            throw ConfigError("outputDir", "'" + out.string() + "' is not writable");
        }
        for (const std::string& s : m_config.schedulers)
        {
            const fs::path dir = out / s;
            if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
            {
                throw ConfigError("outputDir",
                                  "'" + dir.string() + "' (the directory of scheduler " + s +
                                      ") exists and is not a directory");
            }
        }
        return;
    }
    // Not there yet: the nearest existing ancestor must be a writable directory.
    fs::path p = out.has_parent_path() ? out.parent_path() : fs::path(".");
    while (!p.empty() && !fs::exists(p, ec))
    {
        p = p.has_parent_path() && p.parent_path() != p ? p.parent_path() : fs::path();
    }
    if (p.empty())
    {
        p = ".";
    }
    if (!fs::is_directory(p, ec) || ::access(p.c_str(), W_OK | X_OK) != 0)
    {
        throw ConfigError("outputDir",
                          "cannot create '" + out.string() + "': '" + p.string() +
                              "' is not a writable directory");
    }
}

const ClusterRunConfig&
ClusterRun::GetConfig() const
{
    return m_config;
}

const ScaleTopology&
ClusterRun::GetTopology() const
{
    return m_topo;
}

const std::vector<TraceJob>&
ClusterRun::GetWindowJobs() const
{
    return m_window;
}

double
ClusterRun::GetTraceOrigin() const
{
    return m_origin;
}

const std::vector<TraceWarning>&
ClusterRun::GetTraceWarnings() const
{
    return m_traceWarnings;
}

uint32_t
ClusterRun::GetZeroDurationJobs() const
{
    return m_zeroDuration;
}

void
ClusterRun::BuildTopology()
{
    std::vector<TraceWarning> warnings;
    if (!m_config.topoCsv.empty())
    {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(m_config.topoCsv, ec))
        {
            throw ConfigError("topoCsv", "'" + m_config.topoCsv + "' is not a readable file");
        }
        m_lingjun = ReadLingjunTopology(m_config.topoCsv, warnings);
        m_traceWarnings.insert(m_traceWarnings.end(), warnings.begin(), warnings.end());
    }
    if (m_config.topology == "lingjun" && m_lingjun.hostTor.empty())
    {
        throw ConfigError("topoCsv",
                          "'" + m_config.topoCsv + "' has no usable host row" +
                              SkippedRowsDigest(m_traceWarnings));
    }
    try
    {
        if (m_config.topology == "clos")
        {
            m_topo = BuildTwoLayerClos(m_config.clos);
        }
        else if (m_config.topology == "double-sided")
        {
            m_topo = BuildDoubleSided(m_config.doubleSided);
        }
        else
        {
            m_topo = BuildThreeTier(m_lingjun.hostTor, m_lingjun.torPsw, m_config.threeTier);
        }
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(m_config.topology == "clos"           ? "clos"
                          : m_config.topology == "double-sided" ? "doubleSided"
                                                                : "threeTier",
                          e.what());
    }
}

void
ClusterRun::LoadTrace()
{
    std::vector<TraceJob> all;
    double origin = std::numeric_limits<double>::infinity();
    if (!m_config.jobs.empty())
    {
        all = m_config.jobs;
        for (const auto& j : all)
        {
            origin = std::min(origin, j.submit);
        }
    }
    else
    {
        std::vector<TraceWarning> warnings;
        LingjunJobTable jt;
        LingjunWorkerTable wt;
        // The real trace names topo.csv hosts; a generated one is made on a host list of the
        // run's own topology (its recorded hosts are then host indices of that topology).
        const LingjunTopology view = m_config.jobCsv.empty() && m_config.topology != "lingjun"
                                         ? LingjunViewOf(m_topo)
                                         : m_lingjun;
        if (!m_config.jobCsv.empty())
        {
            for (const auto& [path, field] :
                 {std::pair{m_config.jobCsv, "jobCsv"}, std::pair{m_config.workerCsv, "workerCsv"}})
            {
                std::error_code ec;
                if (!std::filesystem::is_regular_file(path, ec))
                {
                    throw ConfigError(field, "'" + path + "' is not a readable file");
                }
            }
            jt = ReadLingjunJobs(m_config.jobCsv, warnings);
            wt = ReadLingjunWorkers(m_config.workerCsv, warnings);
        }
        else
        {
            LingjunGeneratorConfig gc;
            gc.seed = m_config.seed;
            gc.span = m_config.traceDays * 86400.0;
            gc.jobsPerDay = m_config.jobsPerDay;
            gc.gpusPerHost = m_topo.gpusPerHost;
            const GeneratedLingjunTrace g = GenerateLingjunTrace(gc, view);
            std::istringstream js(g.jobCsv);
            std::istringstream ws(g.workerCsv);
            jt = ParseLingjunJobs(js, "generated job.csv", warnings);
            wt = ParseLingjunWorkers(ws, "generated worker.csv", warnings);
        }
        for (const auto& r : jt.rows)
        {
            origin = std::min(origin, r.submit);
        }
        LingjunTrace assembled = AssembleLingjunTrace(jt, wt, view);
        all = std::move(assembled.jobs);
        m_traceWarnings.insert(m_traceWarnings.end(), warnings.begin(), warnings.end());
        m_traceWarnings.insert(m_traceWarnings.end(),
                               assembled.warnings.begin(),
                               assembled.warnings.end());
    }
    if (all.empty())
    {
        throw ConfigError("jobs",
                          "the trace has no usable job" + SkippedRowsDigest(m_traceWarnings));
    }
    m_origin = origin;
    std::stable_sort(all.begin(), all.end(), [](const TraceJob& a, const TraceJob& b) {
        return a.start < b.start;
    });
    const double ws = m_config.windowStart;
    double lastArrival = 0;
    for (const auto& j : all)
    {
        const double a = j.start - origin;
        if (a >= ws && (m_config.windowEnd < 0 || a < m_config.windowEnd))
        {
            if (!(j.Duration() > 0))
            {
                // Zero run time (start == end at the trace's minute resolution): no measurable
                // work; it would count as finished with JCT 0. Left out, counted.
                ++m_zeroDuration;
                continue;
            }
            m_window.push_back(j);
            lastArrival = std::max(lastArrival, a);
        }
    }
    m_windowEnd = m_config.windowEnd >= 0 ? m_config.windowEnd : std::max(lastArrival, ws + 1.0);
    if (m_window.empty())
    {
        throw ConfigError("windowStart",
                          m_zeroDuration > 0
                              ? "no job with a non-zero run time arrives in the window (" +
                                    std::to_string(m_zeroDuration) + " zero-duration jobs)"
                              : std::string("no job arrives in the window"));
    }
}

ClusterRunResult
ClusterRun::Run(const std::string& scheduler)
{
    EpochEngine
        engine(m_config, m_topo, m_window, m_origin, m_config.windowStart, m_windowEnd, scheduler);
    ClusterRunResult r = engine.Run();
    r.jobsZeroDuration = m_zeroDuration;
    return r;
}

std::vector<ClusterRunResult>
ClusterRun::RunAll()
{
    std::vector<ClusterRunResult> out;
    for (const auto& s : m_config.schedulers)
    {
        out.push_back(Run(s));
    }
    return out;
}

void
ClusterRun::WriteResults(const std::vector<ClusterRunResult>& runs) const
{
    namespace fs = std::filesystem;
    if (m_config.outputDir.empty())
    {
        return;
    }
    // Create (or check) every scheduler's directory before writing any result, so a bad
    // output location fails before earlier results are replaced.
    for (const auto& r : runs)
    {
        const fs::path dir = fs::path(m_config.outputDir) / r.scheduler;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir, ec))
        {
            throw std::runtime_error(
                dir.string() + ": cannot create output directory" +
                (ec ? ": " + ec.message() : std::string(" (not a directory)")));
        }
    }
    for (const auto& r : runs)
    {
        const fs::path dir = fs::path(m_config.outputDir) / r.scheduler;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
        {
            throw std::runtime_error(dir.string() +
                                     ": cannot create output directory: " + ec.message());
        }
        const fs::path tmp = dir / (".partial-" + std::to_string(::getpid()));
        fs::remove_all(tmp, ec);
        fs::create_directories(tmp, ec);
        if (ec)
        {
            throw std::runtime_error(tmp.string() + ": cannot create: " + ec.message());
        }
        std::vector<std::string> names;
        auto open = [&](const std::string& name) {
            names.push_back(name);
            auto f = std::make_unique<std::ofstream>(tmp / name);
            if (!*f)
            {
                fs::remove_all(tmp, ec);
                throw std::runtime_error((tmp / name).string() + ": cannot write");
            }
            *f << std::setprecision(9);
            return f;
        };
        {
            auto f = open("jobs.csv");
            *f << "job,name,model,gpus,hosts,submit_s,start_s,end_s,jct_s,iterations,"
                  "alone_iter_s,mean_iter_s,slowdown,flops_per_iter,intensity,arrival_s,"
                  "work_iterations,finished\n";
            for (const auto& j : r.jobs)
            {
                const bool fin = j.end >= 0;
                const double until = fin ? j.end : r.simEnd;
                const double meanIter =
                    j.start >= 0 && j.done > 0 ? (until - j.start) / j.done : 0.0;
                *f << j.id << "," << j.name << "," << j.model << "," << j.gpus << "," << j.hosts
                   << "," << j.submit << ",";
                if (j.start >= 0)
                {
                    *f << j.start;
                }
                *f << ",";
                if (fin)
                {
                    *f << j.end;
                }
                *f << ",";
                if (fin)
                {
                    *f << j.end - j.arrival;
                }
                *f << "," << j.done << "," << j.aloneIter << "," << meanIter << ","
                   << (j.aloneIter > 0 && meanIter > 0 ? meanIter / j.aloneIter : 0.0) << ","
                   << j.flopsPerIter << "," << (std::isfinite(j.intensity) ? j.intensity : 0.0)
                   << "," << j.arrival << "," << j.work << ","
                   << (fin ? 1 : (j.unplaceable ? -1 : 0)) << "\n";
            }
        }
        {
            auto f = open("utilization.csv");
            *f << "time_s,running_jobs,queued_jobs,busy_gpus,gpu_utilization,"
                  "utilization_alone_default,utilization_alone_installed\n";
            for (const auto& u : r.util)
            {
                *f << u.time << "," << u.running << "," << u.queued << "," << u.busyGpus << ","
                   << u.utilization << "," << u.aloneDefault << "," << u.aloneInstalled << "\n";
            }
        }
        {
            auto f = open("link-intensity.csv");
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
            auto f = open("decisions.csv");
            *f << "time_s,job,level,rank,paths_changed\n";
            for (const auto& d : r.decisions)
            {
                *f << d.time << "," << d.job << "," << d.level << "," << d.rank << ","
                   << d.pathsChanged << "\n";
            }
        }
        {
            nlohmann::ordered_json j;
            j["scheduler"] = r.scheduler;
            j["topology"] = m_config.topology;
            j["total_gpus"] = m_topo.NumGpus();
            j["placement"] = m_config.placement;
            j["seed"] = m_config.seed;
            j["num_levels"] = m_config.numLevels;
            // "rank": one class per job (unique priorities, epoch engine), "level": K levels
            j["priority_classes"] = r.rankClasses ? "rank" : "level";
            j["engine"] = m_config.engine;
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
            // Wall-clock times: the only non-deterministic fields.
            j["timing"] = {{"wall_seconds", r.wallSeconds},
                           {"scheduler_seconds", r.schedulerSeconds},
                           {"evaluator_seconds", r.evaluatorSeconds}};
            auto f = open("summary.json");
            *f << j.dump(2) << "\n";
        }
        for (const auto& name : names)
        {
            fs::rename(tmp / name, dir / name, ec);
            if (ec)
            {
                throw std::runtime_error((dir / name).string() + ": cannot write: " + ec.message());
            }
        }
        fs::remove_all(tmp, ec);
    }
}

std::string
ClusterRun::FormatTable(const std::vector<ClusterRunResult>& runs)
{
    std::ostringstream os;
    const std::string vs = "util vs " + (runs.empty() ? std::string("-") : runs[0].scheduler);
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
            os << r.meanUtilization / base;
        }
        else
        {
            os << "n/a"; // the baseline did no work in the window: no ratio
        }
        os << std::setprecision(4) << std::setw(8) << r.meanBusyFraction << std::setw(12)
           << r.meanUtilAloneDefault << std::setw(13) << r.meanUtilAloneInstalled << std::setw(16)
           << r.meanUtilAloneInstalled - r.meanUtilization << std::setprecision(1) << std::setw(10)
           << r.wallSeconds << "\n";
    }
    return os.str();
}

} // namespace ns3
