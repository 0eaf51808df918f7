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

#include "epoch-rate-model.h"

#include "ns3/log.h"
#include "ns3/parallel-tasks.h"
#include "ns3/union-find.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EpochRateModel");

namespace
{

/// Wall-clock seconds since an arbitrary origin (not deterministic; timing fields only).
double
WallNow()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// The component cache is emptied before an insertion when it holds more entries than this (a
/// bound on its memory; the evaluations are deterministic, so only their count can change).
constexpr std::size_t CACHE_MAX_ENTRIES = 200000;

/// Share of a link's capacity left to the slow part of a split component on a link its fast
/// part fills (ExactEpochRateModel::EvaluateSubModel; an assumption, see there).
constexpr double RESIDUAL_FLOOR = 1e-6;

/// How far a slow part's reduced capacities may stretch its horizon and the coarsening's longest
/// iteration beyond their values on the nominal capacities (ExactEpochRateModel::
/// EvaluateSubModel): an assumption bounding the cost, not a measured constant.
constexpr double HORIZON_STRETCH_CAP = 2.0;

/**
 * One part of a split sub-model: the chosen jobs with their inputs, on all of its links.
 * \param sub the sub-model \param in its input \param members positions of the part's jobs
 * \return the part's sub-model and input, jobs in the order of \p members
 */
std::pair<ClusterModel, EvaluationInput>
PartOf(const ClusterModel& sub, const EvaluationInput& in, const std::vector<uint32_t>& members)
{
    ClusterModel part;
    EvaluationInput partIn;
    part.links = sub.links;
    for (uint32_t k : members)
    {
        part.jobs.push_back(sub.jobs[k]);
        partIn.paths.push_back(in.paths[k]);
        partIn.priority.push_back(in.priority[k]);
        partIn.timeShift.push_back(in.timeShift[k]);
    }
    return {std::move(part), std::move(partIn)};
}

/// \param k CoarseEpochRateModel's timescaleRatio \return k \throws std::invalid_argument
/// unless k is finite and >= 2
double
RequireCoarseRatio(double k)
{
    if (!(std::isfinite(k) && k >= 2))
    {
        throw std::invalid_argument("CoarseEpochRateModel: timescaleRatio must be a finite "
                                    "number >= 2 (got " +
                                    std::to_string(k) + ")");
    }
    return k;
}

} // namespace

EpochRateModel::~EpochRateModel() = default;

ExactEpochRateModel::ExactEpochRateModel(std::vector<SchedLink> links,
                                         const FlowEvaluatorOptions& options)
    : ExactEpochRateModel(std::move(links), options, 0.0)
{
}

ExactEpochRateModel::ExactEpochRateModel(std::vector<SchedLink> links,
                                         const FlowEvaluatorOptions& options,
                                         double timescaleRatio)
    : m_links(std::move(links)),
      m_options(options),
      m_timescaleRatio(timescaleRatio)
{
    if (!(std::isfinite(timescaleRatio) && (timescaleRatio == 0 || timescaleRatio >= 2)))
    {
        throw std::invalid_argument("timescaleRatio must be 0 (exact) or a finite number >= 2 "
                                    "(got " +
                                    std::to_string(timescaleRatio) + ")");
    }
}

CoarseEpochRateModel::CoarseEpochRateModel(std::vector<SchedLink> links,
                                           const FlowEvaluatorOptions& options,
                                           double timescaleRatio)
    : ExactEpochRateModel(std::move(links), options, RequireCoarseRatio(timescaleRatio))
{
}

uint64_t
ExactEpochRateModel::GetFluidEvents() const
{
    return m_fluidEvents;
}

uint64_t
ExactEpochRateModel::GetEvaluations() const
{
    return m_evaluations;
}

uint64_t
ExactEpochRateModel::GetCacheHits() const
{
    return m_cacheHits;
}

double
ExactEpochRateModel::GetEvaluatorSeconds() const
{
    return m_evaluatorSeconds;
}

void
ExactEpochRateModel::SetThreads(uint32_t threads)
{
    if (threads == 0)
    {
        throw std::invalid_argument("ExactEpochRateModel::SetThreads: threads must be >= 1");
    }
    m_threads = threads;
}

void
ExactEpochRateModel::SetWeakLinkBound(double bound)
{
    if (!(bound >= 0 && bound < 1))
    {
        throw std::invalid_argument("ExactEpochRateModel::SetWeakLinkBound: the bound must be in "
                                    "[0, 1)");
    }
    SetCutOption(m_weakLinkBound, bound);
}

void
ExactEpochRateModel::SetWeakLinkRule(WeakLinkRule rule)
{
    SetCutOption(m_weakLinkRule, rule);
}

void
ExactEpochRateModel::SetWeakLinkClasses(bool on)
{
    SetCutOption(m_weakLinkClasses, on);
}

std::vector<double>
ExactEpochRateModel::EvaluateComponent(const std::vector<const SchedJob*>& jobs,
                                       const std::vector<PathChoice>& choice,
                                       const std::vector<int64_t>& prio,
                                       const std::vector<double>& shift)
{
    EvalCounts counts;
    std::vector<double> rates = EvaluateCounted(jobs, choice, prio, shift, counts);
    m_evaluations += counts.evaluations;
    m_fluidEvents += counts.fluidEvents;
    m_evaluatorSeconds += counts.seconds;
    return rates;
}

ClusterModel
ExactEpochRateModel::BuildSubModel(const std::vector<const SchedJob*>& jobs,
                                   const std::vector<PathChoice>& choice) const
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
        sj.span = src.span;
        sj.endDeps = src.endDeps;
        std::vector<int64_t> kept(src.flows.size(), -1); // flow index in sj
        for (size_t f = 0; f < src.flows.size(); ++f)
        {
            const SchedFlow& fl = src.flows[f];
            const auto& path = fl.candidatePaths.at(choice[k].at(f));
            if (path.empty() || fl.bytesPerIteration <= 0)
            {
                continue;
            }
            kept[f] = static_cast<int64_t>(sj.flows.size());
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
                    sl.bandwidth = m_links.at(l).bandwidth;
                    sub.links.push_back(sl);
                }
                p.push_back(it->second);
            }
            nf.candidatePaths.push_back(std::move(p));
            sj.flows.push_back(std::move(nf));
        }
        // the communication timeline on the kept flows (dropped ones carry no link bytes)
        for (const SchedPhase& ph : src.phases)
        {
            SchedPhase np = ph;
            np.flows.clear();
            np.bytes.clear();
            for (size_t i = 0; i < ph.flows.size(); ++i)
            {
                if (kept[ph.flows[i]] >= 0)
                {
                    np.flows.push_back(static_cast<uint32_t>(kept[ph.flows[i]]));
                    np.bytes.push_back(ph.bytes[i]);
                }
            }
            sj.phases.push_back(std::move(np));
        }
        sub.jobs.push_back(std::move(sj));
    }
    return sub;
}

std::vector<double>
ExactEpochRateModel::EvaluateCounted(const std::vector<const SchedJob*>& jobs,
                                     const std::vector<PathChoice>& choice,
                                     const std::vector<int64_t>& prio,
                                     const std::vector<double>& shift,
                                     EvalCounts& counts,
                                     const Kept* kept) const
{
    if (choice.size() != jobs.size() || prio.size() != jobs.size() || shift.size() != jobs.size())
    {
        throw std::invalid_argument("ExactEpochRateModel::EvaluateComponent: one path choice, "
                                    "class and time shift per job needed");
    }
    ClusterModel sub = BuildSubModel(jobs, choice);
    std::vector<double> rates(jobs.size(), 0.0);
    // Jobs without modelled traffic run at their computation rate.
    bool anyTraffic = false;
    for (size_t k = 0; k < sub.jobs.size(); ++k)
    {
        if (sub.jobs[k].flows.empty())
        {
            const double iteration = StandaloneIterationTime(sub.jobs[k], 0.0);
            rates[k] = iteration > 0 ? 1.0 / iteration : 0.0;
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
    EvaluationInput in;
    for (const auto& sj : sub.jobs)
    {
        in.paths.emplace_back(sj.flows.size(), 0U);
    }
    in.priority = prio;
    in.timeShift = shift;
    rates = EvaluateSubModel(sub, in, sub.links, counts, kept);
    counts.seconds += WallNow() - w0;
    NS_LOG_LOGIC("evaluated a component of " << jobs.size() << " jobs on " << sub.links.size()
                                             << " links");
    return rates;
}

std::vector<double>
ExactEpochRateModel::EvaluateSubModel(ClusterModel& sub,
                                      EvaluationInput& in,
                                      const std::vector<SchedLink>& nominal,
                                      EvalCounts& counts,
                                      const Kept* kept) const
{
    // Every job's stand-alone iteration on the sub-model's capacities: the time scales of the
    // split, the coarsening's dilation and the horizon cap below.
    std::vector<double> alone(sub.jobs.size(), 0.0);
    for (size_t k = 0; k < sub.jobs.size(); ++k)
    {
        alone[k] = StandaloneIterationTime(sub.jobs[k], JobCommTime(sub, sub.jobs[k], in.paths[k]));
    }
    std::vector<uint32_t> fast;
    std::vector<uint32_t> slow;
    if (!kept && SplitByTimescale(sub, in, alone, fast, slow))
    {
        // The fast part first, alone: no slow job shares a link with it at its class or above,
        // so under strict priority the slow jobs never take capacity from it.
        auto [fastSub, fastIn] = PartOf(sub, in, fast);
        const std::vector<double> fastRate =
            EvaluateSubModel(fastSub, fastIn, nominal, counts, nullptr);
        // The slow part on what the fast part leaves: each link's capacity less the fast jobs'
        // mean load on it (their bytes per iteration × 8 × iterations per second).
        auto [slowSub, slowIn] = PartOf(sub, in, slow);
        // From sub's jobs: the fast part's evaluation may have dilated fastSub's copies (bytes
        // per iteration m times larger) while fastRate is the undilated job's rate.
        std::vector<uint32_t> onPath;
        for (size_t q = 0; q < fast.size(); ++q)
        {
            for (const SchedFlow& f : sub.jobs[fast[q]].flows)
            {
                onPath = f.candidatePaths.at(0);
                std::sort(onPath.begin(), onPath.end());
                onPath.erase(std::unique(onPath.begin(), onPath.end()), onPath.end());
                for (uint32_t l : onPath) // a link listed twice carries the flow once
                {
                    slowSub.links[l].bandwidth -= f.bytesPerIteration * 8 * fastRate[q];
                }
            }
        }
        for (size_t l = 0; l < slowSub.links.size(); ++l)
        {
            // Assumption: a link the fast part fills leaves the slow jobs a trickle
            // (RESIDUAL_FLOOR of its capacity) rather than none, which the fluid model cannot
            // run; their transfers there then take ~1e6 times their stand-alone time.
            slowSub.links[l].bandwidth =
                std::max(slowSub.links[l].bandwidth, RESIDUAL_FLOOR * sub.links[l].bandwidth);
        }
        const std::vector<double> slowRate =
            EvaluateSubModel(slowSub, slowIn, nominal, counts, nullptr);
        std::vector<double> rates(sub.jobs.size(), 0.0);
        for (size_t q = 0; q < fast.size(); ++q)
        {
            rates[fast[q]] = fastRate[q];
        }
        for (size_t q = 0; q < slow.size(); ++q)
        {
            rates[slow[q]] = slowRate[q];
        }
        return rates;
    }
    // A slow part runs on reduced capacities: its stand-alone iterations, and with them the
    // automatic horizon and the coarsening's longest iteration, grow as the fast part's load
    // nears a link's capacity (by up to 1 / RESIDUAL_FLOOR). Both are capped at
    // HORIZON_STRETCH_CAP times what they are on the nominal capacities, so that such a part
    // costs at most about that many times its evaluation there; a job slower than that
    // completes no iteration in the horizon and gets rate 0, as a starved job in the exact run.
    FlowEvaluatorOptions options = m_options;
    double longestCap = 0; // 0 = no cap
    if (options.horizon == 0 && &sub.links != &nominal && sub.links.size() == nominal.size())
    {
        ClusterModel onNominal;
        onNominal.links = nominal;
        const double reduced = *std::max_element(alone.begin(), alone.end());
        double full = 0;
        for (size_t k = 0; k < sub.jobs.size(); ++k)
        {
            const SchedJob& sj = sub.jobs[k];
            full = std::max(full,
                            StandaloneIterationTime(sj, JobCommTime(onNominal, sj, in.paths[k])));
        }
        if (reduced > HORIZON_STRETCH_CAP * full && full > 0)
        {
            longestCap = HORIZON_STRETCH_CAP * full;
            options.horizon = options.horizonIterations * longestCap;
        }
    }
    if (kept)
    {
        options.horizon = kept->horizon;
    }
    const std::vector<double> dilation = kept ? kept->factors : Coarsen(sub, in, alone, longestCap);
    Dilate(sub, in, dilation);
    FlowEvaluator ev(sub, options);
    const FlowEvaluation r = ev.Evaluate(in);
    std::vector<double> rates(sub.jobs.size(), 0.0);
    for (size_t k = 0; k < r.jobs.size(); ++k)
    {
        rates[k] = r.jobs[k].iterationRate * dilation[k];
    }
    ++counts.evaluations;
    counts.fluidEvents += r.events;
    return rates;
}

double
ExactEpochRateModel::AloneRate(const SchedJob& job, const PathChoice& choice)
{
    std::string key;
    AppendCacheKey(key, job.id, 0, 0.0, choice);
    return CachedEvaluate(key, {&job}, {choice}, {0}, {0.0}, false).at(0);
}

void
ExactEpochRateModel::AppendCacheKey(std::string& key,
                                    uint32_t id,
                                    int64_t prio,
                                    double shift,
                                    const PathChoice& choice)
{
    key += std::to_string(id) + ":" + std::to_string(prio) + ":";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%a:", shift);
    key += buf;
    for (uint32_t c : choice)
    {
        key += std::to_string(c) + ",";
    }
    key += ";";
}

std::vector<double>
ExactEpochRateModel::CachedEvaluate(const std::string& key,
                                    const std::vector<const SchedJob*>& js,
                                    const std::vector<PathChoice>& ch,
                                    const std::vector<int64_t>& prio,
                                    const std::vector<double>& shift,
                                    bool countHit)
{
    auto it = m_cache.find(key);
    if (it != m_cache.end())
    {
        if (countHit)
        {
            ++m_cacheHits;
        }
        return it->second;
    }
    std::vector<double> r = EvaluateComponent(js, ch, prio, shift);
    if (m_cache.size() > CACHE_MAX_ENTRIES)
    {
        m_cache.clear();
    }
    m_cache.emplace(key, r);
    return r;
}

const ExactEpochRateModel::CutPlan&
ExactEpochRateModel::PlanCut(const std::string& key,
                             const std::vector<const SchedJob*>& js,
                             const std::vector<PathChoice>& ch,
                             const std::vector<int64_t>& prio)
{
    auto it = m_cuts.find(key);
    if (it != m_cuts.end())
    {
        return it->second;
    }
    if (m_cuts.size() > CACHE_MAX_ENTRIES)
    {
        m_cuts.clear();
    }
    const ClusterModel sub = BuildSubModel(js, ch);
    std::vector<double> alone(sub.jobs.size(), 0.0);
    EvaluationInput ein;
    for (size_t k = 0; k < sub.jobs.size(); ++k)
    {
        ein.paths.emplace_back(sub.jobs[k].flows.size(), 0U);
        alone[k] =
            StandaloneIterationTime(sub.jobs[k], JobCommTime(sub, sub.jobs[k], ein.paths[k]));
    }
    ein.priority = prio;
    CutPlan plan;
    plan.whole.factors = Coarsen(sub, ein, alone, 0);
    // the horizon FlowEvaluator gives the whole component (dilated jobs stay below the longest)
    plan.whole.horizon = m_options.horizon > 0 ? m_options.horizon
                                               : m_options.horizonIterations *
                                                     *std::max_element(alone.begin(), alone.end());
    plan.pieces = WeakCut(sub, alone, prio, m_weakLinkBound, m_weakLinkRule);
    return m_cuts.emplace(key, std::move(plan)).first->second;
}

std::vector<double>
ExactEpochRateModel::Rates(const EpochRateInput& in)
{
    if (!in.model)
    {
        throw std::invalid_argument("ExactEpochRateModel::Rates: no model");
    }
    const uint32_t n = static_cast<uint32_t>(in.model->jobs.size());
    if (in.choice.size() != n || in.load.size() != n || in.priorityClass.size() != n ||
        in.timeShift.size() != n)
    {
        throw std::invalid_argument("ExactEpochRateModel::Rates: one choice, load, class and "
                                    "time shift per job needed");
    }
    // Components: jobs joined when they share a link with traffic.
    UnionFind uf(n);
    std::unordered_map<uint32_t, uint32_t> linkOwner;
    for (uint32_t k = 0; k < n; ++k)
    {
        for (const auto& [link, bytes] : *in.load[k])
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
    std::map<uint32_t, std::vector<uint32_t>> comps;
    for (uint32_t k = 0; k < n; ++k)
    {
        comps[uf.Find(k)].push_back(k);
    }
    std::vector<double> rate(n, 0.0);

    // The components that miss the cache, in component order: evaluated after the loop (on
    // m_threads threads), entered into the cache in that order. The lookups see the cache as
    // one thread evaluating and inserting each miss in turn would: once that thread would have
    // emptied the full cache, every later component misses (its key cannot be one inserted in
    // this call, whose components are disjoint).
    struct Miss
    {
        std::string key;                 //!< cache key
        std::vector<const SchedJob*> js; //!< jobs
        std::vector<PathChoice> ch;      //!< path choices
        std::vector<int64_t> prio;       //!< dense classes
        std::vector<double> shift;       //!< time shifts
        std::vector<uint32_t> jobs;      //!< positions in in.model->jobs
        /// what it keeps of the whole component: a piece of a cut component, or one the cut
        /// leaves whole (none: Coarsen() and the automatic horizon)
        std::optional<Kept> kept;
        std::vector<double> rates; //!< the evaluation's result
        EvalCounts counts;         //!< its work
    };

    std::vector<Miss> misses;
    std::size_t cacheSize = m_cache.size(); // as the one-thread order would have it
    bool emptied = false;
    // Serve a unit (a component or a piece of one) from the cache, or queue it as a miss.
    auto lookUp = [&](Miss&& m) {
        auto it = emptied ? m_cache.end() : m_cache.find(m.key);
        if (it != m_cache.end())
        {
            ++m_cacheHits;
            for (size_t q = 0; q < m.jobs.size(); ++q)
            {
                rate[m.jobs[q]] = it->second[q];
            }
            return;
        }
        if (cacheSize > CACHE_MAX_ENTRIES)
        {
            emptied = true;
            cacheSize = 0;
        }
        ++cacheSize;
        misses.push_back(std::move(m));
    };
    // One unit (a component, or a piece of one that the cut across classes leaves: then
    // cutClasses is false) served from the cache or queued.
    auto handle = [&](const std::vector<uint32_t>& members, bool cutClasses, auto& self) -> void {
        // Only the order of the classes matters: normalise to dense ranks so that a component
        // keeps its cache entry when the scheduler shifts all its classes.
        std::set<uint32_t> levels;
        for (uint32_t k : members)
        {
            levels.insert(in.priorityClass[k]);
        }
        Miss m;
        m.jobs = members;
        for (uint32_t k : members)
        {
            const SchedJob& sj = in.model->jobs[k];
            m.js.push_back(&sj);
            m.ch.push_back(in.choice[k]);
            m.prio.push_back(std::distance(levels.begin(), levels.find(in.priorityClass[k])));
            m.shift.push_back(in.timeShift[k]);
            AppendCacheKey(m.key, sj.id, m.prio.back(), in.timeShift[k], in.choice[k]);
        }
        if (m_weakLinkBound > 0 && m_timescaleRatio > 0 && levels.size() == 1 &&
            members.size() > 2 && (emptied || m_cache.find(m.key) == m_cache.end()))
        {
            const CutPlan& plan = PlanCut(m.key, m.js, m.ch, m.prio);
            if (plan.pieces.size() > 1)
            {
                for (const auto& piece : plan.pieces)
                {
                    Miss p;
                    p.kept.emplace();
                    p.kept->horizon = plan.whole.horizon;
                    char buf[32];
                    std::snprintf(buf, sizeof(buf), "w%a;", plan.whole.horizon);
                    p.key = buf;
                    for (uint32_t q : piece)
                    {
                        p.js.push_back(m.js[q]);
                        p.ch.push_back(m.ch[q]);
                        p.prio.push_back(m.prio[q]);
                        p.shift.push_back(m.shift[q]);
                        p.jobs.push_back(m.jobs[q]);
                        p.kept->factors.push_back(plan.whole.factors[q]);
                        AppendCacheKey(p.key, m.js[q]->id, m.prio[q], m.shift[q], m.ch[q]);
                        std::snprintf(buf, sizeof(buf), "%a;", plan.whole.factors[q]);
                        p.key += buf;
                    }
                    lookUp(std::move(p));
                }
                return;
            }
            // Left whole: its evaluation takes the plan's factors and horizon, which are the
            // ones Coarsen() and the automatic horizon would give it (the same jobs, one class,
            // full capacities), instead of computing them again; its cache key is unchanged.
            m.kept = plan.whole;
        }
        else if (cutClasses && m_weakLinkClasses && m_weakLinkBound > 0 && m_timescaleRatio > 0 &&
                 levels.size() > 1 && (emptied || m_cache.find(m.key) == m_cache.end()))
        {
            // Across classes: each piece is evaluated as a component of its own (its own
            // classes, horizon, split and coarsening), not cut across classes again.
            // a copy: a piece's own one-class cut below can empty m_cuts (CACHE_MAX_ENTRIES)
            const std::vector<std::vector<uint32_t>> pieces =
                PlanCut(m.key, m.js, m.ch, m.prio).pieces;
            if (pieces.size() > 1)
            {
                std::vector<uint32_t> part;
                for (const auto& piece : pieces)
                {
                    part.clear();
                    for (uint32_t q : piece)
                    {
                        part.push_back(m.jobs[q]);
                    }
                    self(part, false, self);
                }
                return;
            }
        }
        lookUp(std::move(m));
    };
    for (const auto& [root, members] : comps)
    {
        handle(members, true, handle);
    }
    const double w0 = WallNow();
    const std::vector<std::exception_ptr> error =
        RunParallelTasks(misses.size(), m_threads, [this, &misses](std::size_t i) {
            Miss& m = misses[i];
            m.rates =
                EvaluateCounted(m.js, m.ch, m.prio, m.shift, m.counts, m.kept ? &*m.kept : nullptr);
        });
    if (!misses.empty())
    {
        m_evaluatorSeconds += WallNow() - w0;
    }
    for (std::size_t i = 0; i < misses.size(); ++i)
    {
        Miss& m = misses[i];
        if (error[i])
        {
            std::rethrow_exception(error[i]); // the first one thread would have thrown
        }
        m_evaluations += m.counts.evaluations;
        m_fluidEvents += m.counts.fluidEvents;
        if (m_cache.size() > CACHE_MAX_ENTRIES)
        {
            m_cache.clear();
        }
        for (size_t q = 0; q < m.jobs.size(); ++q)
        {
            rate[m.jobs[q]] = m.rates[q];
        }
        m_cache.emplace(std::move(m.key), std::move(m.rates));
    }
    return rate;
}

} // namespace ns3
