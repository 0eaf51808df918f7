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

#include "sched-job-builder.h"

#include "crux-helper.h"

#include "ns3/comm-dag.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/training-iteration.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ns3
{

namespace
{

/// One entry of a node's dependency summary: a phase and the longest compute path (Time steps)
/// from the phase's end to the node.
struct PhaseLag
{
    uint32_t phase; //!< provisional phase number
    int64_t lag;    //!< Time steps
};

/// Entries kept per node (the most binding ones: latest phase key + lag).
constexpr std::size_t MAX_PHASE_DEPS = 8;

/// Merge \p from (each lag + \p add) into \p into, keeping the largest lag per phase and at
/// most MAX_PHASE_DEPS entries (those with the largest key + lag).
void
MergeLags(std::vector<PhaseLag>& into,
          const std::vector<PhaseLag>& from,
          int64_t add,
          const std::vector<int64_t>& key)
{
    for (const PhaseLag& e : from)
    {
        bool found = false;
        for (PhaseLag& x : into)
        {
            if (x.phase == e.phase)
            {
                x.lag = std::max(x.lag, e.lag + add);
                found = true;
                break;
            }
        }
        if (!found)
        {
            into.push_back(PhaseLag{e.phase, e.lag + add});
        }
    }
    if (into.size() > MAX_PHASE_DEPS)
    {
        std::sort(into.begin(), into.end(), [&key](const PhaseLag& a, const PhaseLag& b) {
            const int64_t ka = key[a.phase] + a.lag;
            const int64_t kb = key[b.phase] + b.lag;
            return ka != kb ? ka > kb : a.phase < b.phase;
        });
        into.resize(MAX_PHASE_DEPS);
    }
}

/// The communication phases of one iteration before renumbering (AddCommTimeline step 1).
struct ProvisionalPhases
{
    std::vector<int64_t> key;                       //!< [phase] its ideal start, Time steps
    std::vector<std::map<uint32_t, double>> bytes;  //!< [phase] flow index -> bytes
    std::vector<std::map<uint32_t, int64_t>> deps;  //!< [phase] phase -> lag, Time steps
    std::map<uint32_t, int64_t> endDeps;            //!< phase -> lag before the iteration's end
    int64_t span{0};                                //!< ideal iteration span, Time steps
    std::vector<std::vector<uint32_t>> collectives; //!< [phase] operations of its messages
};

/**
 * AddCommTimeline step 1: walk the iteration DAG in node order (a topological order) with ideal
 * (uncontended) timing; inter-host messages that start at the same ideal time form one phase.
 * \param dag the finalized iteration DAG
 * \param flowIndex flow id -> index into the SchedJob's flows
 * \param intraHostRate NVLink rate, bit/s \param intraHostLatency NVLink latency, seconds
 * \return the phases, numbered in order of discovery
 */
ProvisionalPhases
WalkPhases(const CommDag& dag,
           const std::unordered_map<uint32_t, uint32_t>& flowIndex,
           double intraHostRate,
           double intraHostLatency)
{
    const int64_t latency = CommDag::SecondsToSteps(intraHostLatency);
    const double stepsPerBit = CommDag::SecondsToSteps(1.0) / intraHostRate;
    const uint32_t n = dag.NumNodes();
    const auto& succ = dag.Successors();
    const auto& conns = dag.Connections();

    std::vector<int64_t> start(n, 0);
    std::vector<std::vector<PhaseLag>> in(n);
    std::vector<int64_t> streamStart(dag.NumStreams(), 0);
    std::vector<std::vector<PhaseLag>> streamIn(dag.NumStreams());
    std::map<int64_t, uint32_t> phaseOfKey; // ideal start (steps) -> provisional phase
    ProvisionalPhases r;
    auto& key = r.key;
    auto& bytes = r.bytes;
    auto& deps = r.deps;
    auto& endDeps = r.endDeps;
    int64_t& span = r.span;
    std::vector<PhaseLag> out;
    for (uint32_t id = 0; id < n; ++id)
    {
        const CommDag::Node& node = dag.GetNode(id);
        int64_t t = start[id];
        int64_t duration = 0;
        bool phaseNode = false;
        if (node.kind == CommDag::Kind::DELAY)
        {
            duration = node.duration;
        }
        else if (node.kind == CommDag::Kind::MESSAGE)
        {
            if (node.stream != CommDag::NO_STREAM)
            {
                // handed over after the stream's previous message
                t = std::max(t, streamStart[node.stream]);
                streamStart[node.stream] = t;
                MergeLags(in[id], streamIn[node.stream], 0, key);
                streamIn[node.stream] = in[id];
            }
            if (conns[node.flow].interHost && node.bytes > 0)
            {
                phaseNode = true;
            }
            else if (!conns[node.flow].interHost)
            {
                duration =
                    static_cast<int64_t>(std::llround(node.bytes * 8.0 * stepsPerBit)) + latency;
            }
        }
        out.clear();
        if (phaseNode)
        {
            auto [it, fresh] = phaseOfKey.emplace(t, static_cast<uint32_t>(key.size()));
            if (fresh)
            {
                key.push_back(t);
                bytes.emplace_back();
                deps.emplace_back();
                r.collectives.emplace_back();
            }
            const uint32_t ph = it->second;
            {
                auto& cs = r.collectives[ph];
                const uint32_t c = dag.OperationOf(id);
                if (std::find(cs.begin(), cs.end(), c) == cs.end())
                {
                    cs.push_back(c);
                }
            }
            bytes[ph][flowIndex.at(node.flow)] += static_cast<double>(node.bytes);
            for (const PhaseLag& e : in[id])
            {
                if (e.phase != ph)
                {
                    auto [d, added] = deps[ph].emplace(e.phase, e.lag);
                    d->second = std::max(d->second, e.lag);
                }
            }
            out.push_back(PhaseLag{ph, 0});
        }
        else
        {
            MergeLags(out, in[id], duration, key);
        }
        const int64_t finish = t + duration;
        span = std::max(span, finish);
        if (node.succBegin == node.succEnd)
        {
            for (const PhaseLag& e : out)
            {
                auto [d, added] = endDeps.emplace(e.phase, e.lag);
                d->second = std::max(d->second, e.lag);
            }
        }
        for (uint32_t k = node.succBegin; k < node.succEnd; ++k)
        {
            const uint32_t s = succ[k];
            start[s] = std::max(start[s], finish);
            MergeLags(in[s], out, 0, key);
        }
        std::vector<PhaseLag>().swap(in[id]);
    }
    return r;
}

/**
 * AddCommTimeline step 1b (collective granularity): the phases of one operation (every step and
 * NCCL channel of one collective, CommDag::OperationOf()) become one phase released at the
 * first one's release, each flow's bytes summed, lags moved so that the ideal timing is kept
 * (AddCommTimeline()'s documentation). Operations that cannot be merged keep their phases.
 */
ProvisionalPhases
MergeCollectivePhases(const ProvisionalPhases& prov)
{
    const uint32_t np = static_cast<uint32_t>(prov.key.size());
    // a phase of one operation joins the operation's group; a phase of several operations (or
    // of an undescribed message) stays as it is, and so do the operations it holds
    std::map<uint32_t, std::vector<uint32_t>> members; // operation -> its phases (ascending)
    std::set<uint32_t> blocked;
    for (uint32_t p = 0; p < np; ++p)
    {
        const auto& ops = prov.collectives[p];
        if (ops.size() == 1 && ops.front() != CommDag::NO_COLLECTIVE)
        {
            members[ops.front()].push_back(p);
        }
        else
        {
            blocked.insert(ops.begin(), ops.end());
        }
    }
    std::vector<std::vector<uint32_t>> groups;
    std::vector<bool> enabled;
    for (auto& [op, ps] : members)
    {
        groups.push_back(ps);
        enabled.push_back(ps.size() > 1 && blocked.count(op) == 0);
    }
    while (true)
    {
        // target of every fine phase: its group's new phase, or itself
        std::vector<uint32_t> target(np);
        std::vector<int64_t> first(np);
        for (uint32_t p = 0; p < np; ++p)
        {
            target[p] = p;
            first[p] = prov.key[p];
        }
        for (std::size_t g = 0; g < groups.size(); ++g)
        {
            if (!enabled[g])
            {
                continue;
            }
            uint32_t lead = groups[g].front();
            int64_t k0 = prov.key[lead];
            for (uint32_t p : groups[g])
            {
                if (prov.key[p] < k0 || (prov.key[p] == k0 && p < lead))
                {
                    k0 = prov.key[p];
                    lead = p;
                }
            }
            for (uint32_t p : groups[g])
            {
                target[p] = lead;
                first[p] = k0;
            }
        }
        // an operation whose later phases wait for a phase outside it longer than its first
        // phase does (in the ideal timing: its input arrives while it runs) is not merged
        bool changed = false;
        for (std::size_t g = 0; g < groups.size(); ++g)
        {
            if (!enabled[g])
            {
                continue;
            }
            for (uint32_t p : groups[g])
            {
                if (target[p] == p)
                {
                    continue;
                }
                for (const auto& [q, lag] : prov.deps[p])
                {
                    if (target[q] != target[p] && prov.key[q] + lag > first[p])
                    {
                        enabled[g] = false;
                        changed = true;
                        break;
                    }
                }
                if (!enabled[g])
                {
                    break;
                }
            }
        }
        if (changed)
        {
            continue;
        }
        // check: every dependency's new phase starts before its dependant's new phase
        for (uint32_t p = 0; p < np && !changed; ++p)
        {
            for (const auto& [q, lag] : prov.deps[p])
            {
                if (target[q] == target[p])
                {
                    continue;
                }
                if (!(first[q] < first[p]))
                {
                    for (std::size_t g = 0; g < groups.size(); ++g)
                    {
                        if (enabled[g] &&
                            std::find(groups[g].begin(), groups[g].end(), p) != groups[g].end())
                        {
                            enabled[g] = false;
                            changed = true;
                        }
                    }
                    if (!changed)
                    {
                        for (std::size_t g = 0; g < groups.size(); ++g)
                        {
                            if (enabled[g] &&
                                std::find(groups[g].begin(), groups[g].end(), q) != groups[g].end())
                            {
                                enabled[g] = false;
                                changed = true;
                            }
                        }
                    }
                    break;
                }
            }
        }
        if (changed)
        {
            continue;
        }
        // build
        ProvisionalPhases r;
        r.span = prov.span;
        std::vector<uint32_t> newIndex(np, UINT32_MAX);
        for (uint32_t p = 0; p < np; ++p)
        {
            if (target[p] == p)
            {
                newIndex[p] = static_cast<uint32_t>(r.key.size());
                r.key.push_back(first[p]);
                r.bytes.emplace_back();
                r.deps.emplace_back();
                r.collectives.emplace_back();
            }
        }
        for (uint32_t p = 0; p < np; ++p)
        {
            const uint32_t n = newIndex[target[p]];
            for (const auto& [f, b] : prov.bytes[p])
            {
                r.bytes[n][f] += b;
            }
            const int64_t offP = prov.key[p] - first[p];
            if (offP > 0)
            {
                auto [d, added] = r.endDeps.emplace(n, offP);
                d->second = std::max(d->second, offP);
            }
            for (const auto& [q, lag] : prov.deps[p])
            {
                const uint32_t m = newIndex[target[q]];
                if (m == n)
                {
                    continue;
                }
                const int64_t l = std::max<int64_t>(0, lag + (prov.key[q] - first[q]) - offP);
                auto [d, added] = r.deps[n].emplace(m, l);
                d->second = std::max(d->second, l);
            }
        }
        for (const auto& [q, lag] : prov.endDeps)
        {
            const uint32_t m = newIndex[target[q]];
            const int64_t l = lag + (prov.key[q] - first[q]);
            auto [d, added] = r.endDeps.emplace(m, l);
            d->second = std::max(d->second, l);
        }
        return r;
    }
}

/**
 * AddCommTimeline step 2: renumber the phases in order of their ideal start and write them, the
 * end dependencies and the span into \p sj.
 * \param job the job (for error messages) \param prov the phases of WalkPhases \param sj output
 * \throws std::logic_error if a dependency does not start earlier than its phase
 */
void
EmitPhases(const DltJob& job, const ProvisionalPhases& prov, SchedJob& sj)
{
    const auto& key = prov.key;
    const auto& bytes = prov.bytes;
    const auto& deps = prov.deps;
    const auto& endDeps = prov.endDeps;
    const int64_t span = prov.span;
    // Phases in order of their ideal start (a dependency always starts earlier: same start =
    // same phase), renumbered.
    std::vector<uint32_t> order(key.size());
    for (uint32_t p = 0; p < order.size(); ++p)
    {
        order[p] = p;
    }
    std::sort(order.begin(), order.end(), [&key](uint32_t a, uint32_t b) {
        return key[a] < key[b];
    });
    std::vector<uint32_t> rank(key.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        rank[order[i]] = i;
    }
    auto seconds = [](int64_t steps) { return TimeStep(steps).GetSeconds(); };
    sj.phases.clear();
    for (uint32_t p : order)
    {
        SchedPhase ph;
        ph.release = seconds(key[p]);
        for (const auto& [q, lag] : deps[p])
        {
            if (rank[q] >= rank[p])
            {
                throw std::logic_error("AddCommTimeline: phase order (job " +
                                       std::to_string(job.id) + ")");
            }
            ph.deps.push_back(SchedPhaseDep{rank[q], seconds(lag)});
        }
        std::sort(ph.deps.begin(),
                  ph.deps.end(),
                  [](const SchedPhaseDep& a, const SchedPhaseDep& b) { return a.phase < b.phase; });
        for (const auto& [f, b] : bytes[p])
        {
            ph.flows.push_back(f);
            ph.bytes.push_back(b);
        }
        sj.phases.push_back(std::move(ph));
    }
    sj.endDeps.clear();
    for (const auto& [q, lag] : endDeps)
    {
        if (lag > 0)
        {
            sj.endDeps.push_back(SchedPhaseDep{rank[q], seconds(lag)});
        }
    }
    std::sort(sj.endDeps.begin(),
              sj.endDeps.end(),
              [](const SchedPhaseDep& a, const SchedPhaseDep& b) { return a.phase < b.phase; });
    sj.span = sj.phases.empty() ? 0.0 : seconds(span);
}

} // namespace

void
AddCommTimeline(const DltJob& job,
                SchedJob& sj,
                double intraHostRate,
                double intraHostLatency,
                TimelineGranularity granularity)
{
    if (!(intraHostRate > 0) || !(intraHostLatency >= 0))
    {
        throw std::invalid_argument("AddCommTimeline: the NVLink rate must be > 0 and the "
                                    "latency >= 0");
    }
    std::unordered_map<uint32_t, uint32_t> flowIndex;
    for (std::size_t f = 0; f < sj.flows.size(); ++f)
    {
        flowIndex[sj.flows[f].id] = static_cast<uint32_t>(f);
    }
    CommDag dag(TrainingIteration::RankGpus(job));
    TrainingIteration::Build(job, dag);
    dag.Finalize();
    ProvisionalPhases phases = WalkPhases(dag, flowIndex, intraHostRate, intraHostLatency);
    if (granularity == TimelineGranularity::COLLECTIVE)
    {
        phases = MergeCollectivePhases(phases);
    }
    EmitPhases(job, phases, sj);
}

namespace
{

/// Throws if \p fillPaths is null (MakeSchedJob's check). \param job the job (for the message)
/// \param fillPaths the filler
void
CheckFiller(const DltJob& job, const SchedFlowPathFiller& fillPaths)
{
    if (!fillPaths)
    {
        throw std::invalid_argument("MakeSchedJob: fillPaths is null (job " +
                                    std::to_string(job.id) + ")");
    }
}

/**
 * MakeSchedJob() with the job's inter-host flows already listed.
 * \param job the job \param pattern job.CommunicationPattern() \param fillPaths the filler
 * \param granularity the timeline (AddCommTimeline())
 * \return the scheduler job
 */
SchedJob
MakeSchedJobOfPattern(const DltJob& job,
                      const std::vector<DltCommFlow>& pattern,
                      const SchedFlowPathFiller& fillPaths,
                      TimelineGranularity granularity)
{
    SchedJob sj;
    sj.id = job.id;
    sj.flopsPerIteration = job.flopsPerIteration;
    sj.computeTime = job.ComputeSpan();
    // The scheduler's iteration model lets communication start after overlapStart × c. The
    // application releases the first gradient bucket at f + (c − f)/B (f = forward part):
    // that is when communication can really start (1 for a single bucket: no overlap).
    sj.overlapStart = job.overlapStart + (1.0 - job.overlapStart) / job.numBuckets;
    if (job.chakra)
    {
        // a Chakra job: FromChakra() set overlapStart to when its first communication can
        // start (compute along the trace's dependencies, free communication)
        sj.overlapStart = job.overlapStart;
    }
    sj.numGpus = job.NumGpus();
    for (const auto& f : pattern)
    {
        SchedFlow sf;
        sf.id = f.flowId;
        sf.bytesPerIteration = f.bytesPerIteration;
        fillPaths(f, sf);
        sj.flows.push_back(sf);
    }
    if (sj.flows.empty())
    {
        return sj;
    }
    // The communication timeline, from the iteration's CommDag with the transports' NVLink
    // model (the FlowTransport attribute defaults, as Config::SetDefault / the command line
    // set them).
    static const TypeId transport = TypeId::LookupByName("ns3::FlowTransport");
    TypeId::AttributeInformation info;
    transport.LookupAttributeByName("IntraHostRate", &info);
    const double rate = static_cast<double>(
        DynamicCast<const DataRateValue>(info.initialValue)->Get().GetBitRate());
    transport.LookupAttributeByName("IntraHostLatency", &info);
    const double latency = DynamicCast<const TimeValue>(info.initialValue)->Get().GetSeconds();
    AddCommTimeline(job, sj, rate, latency, granularity);
    const bool classic = sj.phases.size() == 1 && sj.endDeps.empty() &&
                         sj.span <= sj.computeTime + TimeStep(1).GetSeconds();
    if (job.plan)
    {
        sj.overlapStart =
            sj.computeTime > 0 ? std::min(1.0, sj.phases.front().release / sj.computeTime) : 0.0;
    }
    if (classic)
    {
        // one phase after the compute-driven release: the classic model (exact overlapStart)
        sj.phases.clear();
        sj.span = 0;
    }
    return sj;
}

} // namespace

SchedJob
MakeSchedJob(const DltJob& job,
             const SchedFlowPathFiller& fillPaths,
             TimelineGranularity granularity)
{
    CheckFiller(job, fillPaths);
    return MakeSchedJobOfPattern(job, job.CommunicationPattern(), fillPaths, granularity);
}

std::string
SchedJobTemplates::LayoutKey(const DltJob& job)
{
    const std::vector<uint32_t> hosts = job.Hosts();
    std::string key;
    for (const GpuId& g : TrainingIteration::RankGpus(job))
    {
        const auto pos = std::find(hosts.begin(), hosts.end(), g.host) - hosts.begin();
        key += std::to_string(pos) + ":" + std::to_string(g.localGpu) + ",";
    }
    return key;
}

SchedJob
SchedJobTemplates::Make(const DltJob& job, const SchedFlowPathFiller& fillPaths)
{
    CheckFiller(job, fillPaths);
    if (job.chakra)
    {
        // every Chakra job is named "chakra": its trace, not its name, defines it
        return MakeSchedJob(job, fillPaths, m_granularity);
    }
    const std::string key = job.modelName + "|" + LayoutKey(job);
    const std::vector<uint32_t> hosts = job.Hosts();
    auto it = m_templates.find(key);
    if (it == m_templates.end())
    {
        const std::vector<DltCommFlow> pattern = job.CommunicationPattern();
        SchedJob sj = MakeSchedJobOfPattern(job, pattern, fillPaths, m_granularity);
        Template t;
        t.job = sj;
        for (SchedFlow& f : t.job.flows)
        {
            f.candidatePaths.clear();
            f.defaultPath = 0;
        }
        // the endpoints' hosts as positions among the job's hosts (order of first appearance)
        auto position = [&hosts](uint32_t host) {
            return static_cast<uint32_t>(std::find(hosts.begin(), hosts.end(), host) -
                                         hosts.begin());
        };
        t.flows = pattern;
        for (DltCommFlow& f : t.flows)
        {
            f.src.host = position(f.src.host);
            f.dst.host = position(f.dst.host);
        }
        t.gradientBytes = job.gradientBytes;
        m_templates.emplace(key, std::move(t));
        ++m_misses;
        return sj;
    }
    job.Validate(); // what CommunicationPattern() checks for a key's first job
    const Template& t = it->second;
    if (job.NumGpus() != t.job.numGpus || job.ComputeSpan() != t.job.computeTime ||
        job.flopsPerIteration != t.job.flopsPerIteration || job.gradientBytes != t.gradientBytes)
    {
        throw std::logic_error("SchedJobTemplates: job " + std::to_string(job.id) + " (" +
                               job.modelName +
                               ") differs from the template of its model and layout in GPUs, "
                               "compute time, FLOPs or gradient bytes");
    }
    SchedJob sj = t.job;
    sj.id = job.id;
    for (std::size_t i = 0; i < t.flows.size(); ++i)
    {
        DltCommFlow f = t.flows[i];
        f.src.host = hosts.at(f.src.host);
        f.dst.host = hosts.at(f.dst.host);
        fillPaths(f, sj.flows[i]);
    }
    ++m_hits;
    return sj;
}

SchedJobTemplates::SchedJobTemplates(TimelineGranularity granularity)
    : m_granularity(granularity)
{
}

TimelineGranularity
SchedJobTemplates::GetGranularity() const
{
    return m_granularity;
}

uint64_t
SchedJobTemplates::GetHits() const
{
    return m_hits;
}

uint64_t
SchedJobTemplates::GetMisses() const
{
    return m_misses;
}

void
CheckJobOnClusterTopology(const DltJob& job, const ClusterTopology& topo)
{
    for (size_t i = 0; i < job.gpus.size(); ++i)
    {
        const GpuId& g = job.gpus[i];
        if (g.host >= topo.NumHosts())
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is on host " +
                std::to_string(g.host) + ", but topology '" + topo.name + "' has hosts 0.." +
                std::to_string(topo.NumHosts()) + " (exclusive)");
        }
        if (g.localGpu >= topo.gpusPerHost)
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is GPU " +
                std::to_string(g.localGpu) + " of host " + std::to_string(g.host) +
                ", but hosts of topology '" + topo.name + "' have " +
                std::to_string(topo.gpusPerHost) + " GPUs");
        }
    }
}

void
AddIntraHostFlows(const DltJob& job, const ClusterTopology& topo, SchedJob& sj)
{
    if (!topo.HasIntraHostLinks())
    {
        return; // intra-host traffic uses no modelled link
    }
    SchedPhase intra; // with a communication timeline: the intra-host connections' phase
    for (const DltCommFlow& f : job.IntraHostPattern())
    {
        SchedFlow sf;
        sf.id = f.flowId;
        sf.bytesPerIteration = f.bytesPerIteration;
        sf.candidatePaths = {
            topo.GpuPath(f.src.host, f.src.localGpu, f.dst.host, f.dst.localGpu, {})};
        sf.defaultPath = 0;
        intra.flows.push_back(static_cast<uint32_t>(sj.flows.size()));
        intra.bytes.push_back(f.bytesPerIteration);
        sj.flows.push_back(std::move(sf));
    }
    if (!sj.phases.empty() && !intra.flows.empty())
    {
        // A job with a timeline (a plan's TP over NVLink): its timeline already holds the time
        // of these transfers (AddCommTimeline's NVLink model), so their bytes go into one phase
        // released at the iteration start without dependencies. It makes them count in t_j and
        // occupy the job's own NVLink links (no other job's GPU uses them) and ends the
        // iteration only if those links are slower than the timeline's NVLink model.
        sj.phases.push_back(std::move(intra));
    }
}

namespace
{

/**
 * MakeClusterSchedJob's path filler: equal-cost GPU paths (at most \p maxPaths) and the ECMP
 * default path of each flow.
 * \param job the job (checked on \p topo) \param topo the topology \param ecmpSeed ECMP seed
 * \param maxPaths cap (>= 1)
 * \return the filler
 */
SchedFlowPathFiller
ClusterPathFiller(const DltJob& job,
                  const ClusterTopology& topo,
                  uint64_t ecmpSeed,
                  uint32_t maxPaths)
{
    if (maxPaths == 0)
    {
        throw std::invalid_argument("MakeClusterSchedJob: maxPaths must be >= 1");
    }
    CheckJobOnClusterTopology(job, topo);
    return [&job, &topo, ecmpSeed, maxPaths](const DltCommFlow& f, SchedFlow& sf) {
        sf.candidatePaths = topo.EqualCostGpuPaths(f.src.host,
                                                   f.src.localGpu,
                                                   f.dst.host,
                                                   f.dst.localGpu,
                                                   maxPaths);
        if (sf.candidatePaths.empty())
        {
            throw std::invalid_argument("job " + std::to_string(job.id) + " flow " +
                                        std::to_string(f.flowId) + ": topology '" + topo.name +
                                        "' has no path from host " + std::to_string(f.src.host) +
                                        " to host " + std::to_string(f.dst.host));
        }
        sf.defaultPath = EcmpPathIndex(ecmpSeed,
                                       job.id,
                                       f.flowId,
                                       static_cast<uint32_t>(sf.candidatePaths.size()));
    };
}

} // namespace

SchedJob
MakeClusterSchedJob(const DltJob& job,
                    const ClusterTopology& topo,
                    uint64_t ecmpSeed,
                    uint32_t maxPaths)
{
    SchedJob sj = MakeSchedJob(job, ClusterPathFiller(job, topo, ecmpSeed, maxPaths));
    AddIntraHostFlows(job, topo, sj);
    return sj;
}

SchedJob
MakeClusterSchedJob(const DltJob& job,
                    const ClusterTopology& topo,
                    uint64_t ecmpSeed,
                    uint32_t maxPaths,
                    SchedJobTemplates& templates)
{
    SchedJob sj = templates.Make(job, ClusterPathFiller(job, topo, ecmpSeed, maxPaths));
    AddIntraHostFlows(job, topo, sj);
    return sj;
}

ClusterModel
MakeClusterModel(Ptr<CruxTopology> topo, const std::vector<DltJob>& jobs)
{
    if (!topo)
    {
        throw std::invalid_argument("MakeClusterModel: topology is null");
    }
    ClusterModel cm;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        SchedLink sl;
        sl.bandwidth = static_cast<double>(topo->GetLink(l).rate.GetBitRate());
        sl.name = "l" + std::to_string(l);
        cm.links.push_back(sl);
    }
    // intra-host links of the description (ids after the network links)
    const ClusterTopology& desc = topo->GetDescription();
    for (std::size_t l = cm.links.size(); l < desc.links.size(); ++l)
    {
        cm.links.push_back({desc.links[l].bandwidth, desc.links[l].name});
    }
    const CruxTopologySteering steering(topo);
    for (const DltJob& job : jobs)
    {
        cm.jobs.push_back(MakeSchedJob(job, [&](const DltCommFlow& f, SchedFlow& sf) {
            const RdmaQpKey key{job.id, f.flowId, f.src, f.dst};
            const uint32_t sn = topo->GpuToNic(f.src.host, f.src.localGpu);
            const uint32_t dn = topo->GpuToNic(f.dst.host, f.dst.localGpu);
            sf.candidatePaths = topo->GetEqualCostPaths(f.src.host, sn, f.dst.host, dn);
            if (sf.candidatePaths.empty())
            {
                throw std::invalid_argument("topology: no path from host " +
                                            std::to_string(f.src.host) + " to host " +
                                            std::to_string(f.dst.host));
            }
            const CruxPath ecmp = steering.PathOf(key, 0);
            auto it = std::find(sf.candidatePaths.begin(), sf.candidatePaths.end(), ecmp);
            if (it == sf.candidatePaths.end())
            {
                throw std::logic_error("internal: ECMP path " + CruxTopology::PathToString(ecmp) +
                                       " of job " + std::to_string(job.id) + " flow " +
                                       std::to_string(f.flowId) + " is not a shortest path");
            }
            sf.defaultPath = static_cast<uint32_t>(it - sf.candidatePaths.begin());
            for (auto& p : sf.candidatePaths)
            {
                p = desc.GpuPath(f.src.host, f.src.localGpu, f.dst.host, f.dst.localGpu, p);
            }
        }));
        AddIntraHostFlows(job, desc, cm.jobs.back());
    }
    return cm;
}

} // namespace ns3
