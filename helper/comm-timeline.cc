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

#include "comm-timeline.h"

#include "ns3/comm-dag.h"
#include "ns3/nstime.h"
#include "ns3/training-iteration.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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
/// most MAX_PHASE_DEPS entries (those with the largest key + lag, ties to the lower phase). Both
/// lists hold each phase once, ascending by phase (the result too): one merge pass instead of a
/// search per entry. The kept set does not depend on the order of the entries, and neither
/// does any use of a list (dependency maps, maxima), so the phases found are those of a search.
/// Every list holds at most MAX_PHASE_DEPS entries, so the merge fits 2 MAX_PHASE_DEPS.
void
MergeLags(std::vector<PhaseLag>& into,
          const std::vector<PhaseLag>& from,
          int64_t add,
          const std::vector<int64_t>& key)
{
    if (from.empty())
    {
        return;
    }
    if (into.empty())
    {
        into.reserve(MAX_PHASE_DEPS);
        for (const PhaseLag& e : from)
        {
            into.push_back(PhaseLag{e.phase, e.lag + add});
        }
        return; // from holds at most MAX_PHASE_DEPS entries
    }
    std::array<PhaseLag, 2 * MAX_PHASE_DEPS> merged;
    std::size_t n = 0;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < into.size() || j < from.size())
    {
        if (j == from.size() || (i < into.size() && into[i].phase < from[j].phase))
        {
            merged[n++] = into[i++];
        }
        else if (i == into.size() || from[j].phase < into[i].phase)
        {
            merged[n++] = PhaseLag{from[j].phase, from[j].lag + add};
            ++j;
        }
        else
        {
            merged[n++] = PhaseLag{into[i].phase, std::max(into[i].lag, from[j].lag + add)};
            ++i;
            ++j;
        }
    }
    if (n > MAX_PHASE_DEPS)
    {
        // Drop the n - MAX_PHASE_DEPS least binding entries, one at a time: the smallest
        // key + lag, of equals the higher phase (the later one: merged is ascending by phase).
        std::array<int64_t, 2 * MAX_PHASE_DEPS> binding;
        std::array<bool, 2 * MAX_PHASE_DEPS> dropped{};
        for (std::size_t k = 0; k < n; ++k)
        {
            binding[k] = key[merged[k].phase] + merged[k].lag;
        }
        for (std::size_t d = MAX_PHASE_DEPS; d < n; ++d)
        {
            std::size_t worst = n;
            for (std::size_t k = 0; k < n; ++k)
            {
                if (!dropped[k] && (worst == n || binding[k] <= binding[worst]))
                {
                    worst = k;
                }
            }
            dropped[worst] = true;
        }
        std::size_t kept = 0;
        for (std::size_t k = 0; k < n; ++k)
        {
            if (!dropped[k])
            {
                merged[kept++] = merged[k];
            }
        }
        n = kept;
    }
    into.assign(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(n));
}

/// The communication phases of one iteration before renumbering (AddCommTimeline step 1).
struct ProvisionalPhases
{
    std::vector<int64_t> key;                      //!< [phase] its ideal start, Time steps
    std::vector<std::map<uint32_t, double>> bytes; //!< [phase] flow index -> bytes
    std::vector<std::map<uint32_t, int64_t>> deps; //!< [phase] phase -> lag, Time steps
    std::map<uint32_t, int64_t> endDeps;           //!< phase -> lag before the iteration's end
    int64_t span{0};                               //!< ideal iteration span, Time steps
    std::vector<std::vector<uint32_t>> operations; //!< [phase] operations of its messages
    /// operation -> the ideal start of its first message (inter- or intra-host), Time steps
    std::map<uint32_t, int64_t> launch;
};

/**
 * AddCommTimeline step 1: walk the iteration DAG in node order (a topological order) with ideal
 * (uncontended) timing; inter-host messages that start at the same ideal time form one phase.
 * \param dag the finalized iteration DAG
 * \param flowIndex flow id -> index into the SchedJob's flows
 * \param intraHostRate NVLink rate, bit/s \param intraHostLatency NVLink latency, seconds
 * \param byOperation one phase per instant and operation (CommDag::OperationOf()) instead of
 *        one per instant
 * \return the phases, numbered in order of discovery
 */
ProvisionalPhases
WalkPhases(const CommDag& dag,
           const std::unordered_map<uint32_t, uint32_t>& flowIndex,
           double intraHostRate,
           double intraHostLatency,
           bool byOperation)
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
    // (ideal start in steps, operation or 0) -> provisional phase
    std::map<std::pair<int64_t, uint32_t>, uint32_t> phaseOfKey;
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
            if (const uint32_t op = dag.OperationOf(id); op != CommDag::NO_COLLECTIVE)
            {
                auto [l, added] = r.launch.emplace(op, t);
                l->second = std::min(l->second, t);
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
            const uint32_t op = byOperation ? dag.OperationOf(id) : 0;
            auto [it, fresh] =
                phaseOfKey.emplace(std::make_pair(t, op), static_cast<uint32_t>(key.size()));
            if (fresh)
            {
                key.push_back(t);
                bytes.emplace_back();
                deps.emplace_back();
                r.operations.emplace_back();
            }
            const uint32_t ph = it->second;
            {
                auto& cs = r.operations[ph];
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
 * AddCommTimeline step 1a (collective granularity, after WalkPhases by operation): phases of
 * the same instant linked by a dependency (an operation whose first message follows another's
 * without NVLink time in between) become one, so that every dependency is released strictly
 * before its dependant (EmitPhases()). Bytes are summed, lags kept (the merged phases share
 * their instant).
 */
ProvisionalPhases
MergeSameInstant(ProvisionalPhases prov)
{
    const uint32_t np = static_cast<uint32_t>(prov.key.size());
    std::vector<uint32_t> parent(np);
    for (uint32_t p = 0; p < np; ++p)
    {
        parent[p] = p;
    }
    auto root = [&parent](uint32_t p) {
        while (parent[p] != p)
        {
            parent[p] = parent[parent[p]];
            p = parent[p];
        }
        return p;
    };
    bool any = false;
    for (uint32_t p = 0; p < np; ++p)
    {
        for (const auto& [q, lag] : prov.deps[p])
        {
            if (prov.key[q] == prov.key[p])
            {
                const uint32_t a = root(p);
                const uint32_t b = root(q);
                parent[std::max(a, b)] = std::min(a, b);
                any = true;
            }
        }
    }
    if (!any)
    {
        return prov;
    }
    ProvisionalPhases r;
    r.span = prov.span;
    r.launch = prov.launch;
    std::vector<uint32_t> newIndex(np, UINT32_MAX);
    for (uint32_t p = 0; p < np; ++p)
    {
        if (root(p) == p)
        {
            newIndex[p] = static_cast<uint32_t>(r.key.size());
            r.key.push_back(prov.key[p]);
            r.bytes.emplace_back();
            r.deps.emplace_back();
            r.operations.emplace_back();
        }
    }
    for (uint32_t p = 0; p < np; ++p)
    {
        const uint32_t n = newIndex[root(p)];
        for (const auto& [f, b] : prov.bytes[p])
        {
            r.bytes[n][f] += b;
        }
        for (const auto& [q, lag] : prov.deps[p])
        {
            const uint32_t m = newIndex[root(q)];
            if (m != n)
            {
                auto [d, added] = r.deps[n].emplace(m, lag);
                d->second = std::max(d->second, lag);
            }
        }
        for (uint32_t op : prov.operations[p])
        {
            auto& ops = r.operations[n];
            if (std::find(ops.begin(), ops.end(), op) == ops.end())
            {
                ops.push_back(op);
            }
        }
    }
    for (const auto& [q, lag] : prov.endDeps)
    {
        auto [d, added] = r.endDeps.emplace(newIndex[root(q)], lag);
        d->second = std::max(d->second, lag);
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
    // operations that hold messages of one phase are merged together (the data-parallel rings
    // of the tensor-parallel ranks start at the same instants): union-find over operations
    std::map<uint32_t, uint32_t> parent; // operation -> parent operation
    auto root = [&parent](uint32_t op) {
        uint32_t r = op;
        while (parent.at(r) != r)
        {
            r = parent.at(r);
        }
        while (parent.at(op) != r) // path compression
        {
            const uint32_t up = parent.at(op);
            parent[op] = r;
            op = up;
        }
        return r;
    };
    std::set<uint32_t> blocked; // operations that share a phase with an undescribed message
    for (uint32_t p = 0; p < np; ++p)
    {
        const auto& ops = prov.operations[p];
        const bool undescribed =
            std::find(ops.begin(), ops.end(), CommDag::NO_COLLECTIVE) != ops.end();
        for (uint32_t op : ops)
        {
            parent.emplace(op, op);
            if (undescribed)
            {
                blocked.insert(op);
            }
        }
        for (std::size_t i = 1; i < ops.size(); ++i)
        {
            const uint32_t a = root(ops[0]);
            const uint32_t b = root(ops[i]);
            parent[std::max(a, b)] = std::min(a, b);
        }
    }
    std::set<uint32_t> blockedGroups;
    for (uint32_t op : blocked)
    {
        blockedGroups.insert(root(op));
    }
    std::map<uint32_t, std::vector<uint32_t>> groupOps; // group (root op) -> its operations
    for (const auto& [op, up] : parent)
    {
        groupOps[root(op)].push_back(op);
    }
    std::map<uint32_t, std::vector<uint32_t>> members; // group (root op) -> phases, ascending
    for (uint32_t p = 0; p < np; ++p)
    {
        const auto& ops = prov.operations[p];
        if (!ops.empty())
        {
            members[root(ops.front())].push_back(p);
        }
    }
    // target of every phase (the group's first phase, or itself) and the target's release
    std::vector<uint32_t> target(np);
    std::vector<int64_t> first(np);
    for (uint32_t p = 0; p < np; ++p)
    {
        target[p] = p;
        first[p] = prov.key[p];
    }
    for (const auto& [group, ps] : members)
    {
        if (ps.size() < 2 || blockedGroups.count(group) != 0)
        {
            continue;
        }
        // keys are distinct (one provisional phase per ideal start), so the lead is unique
        uint32_t lead = ps.front();
        for (uint32_t p : ps)
        {
            lead = prov.key[p] < prov.key[lead] ? p : lead;
        }
        const int64_t k0 = prov.key[lead];
        // a group with an operation launched after the group's first phase (its input arrives
        // while the group runs; NVLink hops of a ring that has started do not count) is not
        // merged, nor one that waits for a phase released at or after its first phase (the
        // merged phase's dependencies must be released before it, as EmitPhases() needs). A
        // member's outside dependency q with lag L keeps key q + L <= its own release in the
        // ideal timing, so the merged phase's ideal release stays k0 (AddCommTimeline()).
        bool ok = true;
        for (uint32_t op : groupOps[group])
        {
            ok = ok && prov.launch.at(op) <= k0;
        }
        for (uint32_t p : ps)
        {
            for (const auto& [q, lag] : prov.deps[p])
            {
                const bool inside = std::binary_search(ps.begin(), ps.end(), q);
                ok = ok && (inside || prov.key[q] < k0);
            }
        }
        if (!ok)
        {
            continue;
        }
        for (uint32_t p : ps)
        {
            target[p] = lead;
            first[p] = k0;
        }
    }
    // the phases of one-phase operations that start at the same instant (the pipeline sends of
    // the replicas of a micro-batch, one operation each) stay one phase, as in the step
    // timeline (they have no dependency between them: MergeSameInstant())
    std::map<int64_t, uint32_t> singleAt; // instant -> its first one-phase operation's phase
    for (const auto& [group, ps] : members)
    {
        if (ps.size() == 1 && blockedGroups.count(group) == 0)
        {
            const uint32_t p = ps.front();
            auto [it, fresh] = singleAt.emplace(prov.key[p], p);
            target[p] = it->second;
        }
    }
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
            r.operations.emplace_back();
        }
    }
    // a phase released d after its merged phase's release; lags move by these offsets
    auto offset = [&prov, &first](uint32_t p) { return prov.key[p] - first[p]; };
    auto keepMax = [](std::map<uint32_t, int64_t>& into, uint32_t phase, int64_t lag) {
        auto [d, added] = into.emplace(phase, lag);
        d->second = std::max(d->second, lag);
    };

    // A member q released d_q after its merged phase m's release stands for the transfers of
    // m (done at m's end) and the NVLink hops of the operation's ring before q (done d_q after
    // m's start, overlapping m's transfers). A dependant waiting L after q then waits L after
    // m's end and d_q + L after m's start; the latter is written as waits on m's dependencies
    // (m starts no earlier than each of them + its lag), expanded below in order of release.
    struct StartWait
    {
        uint32_t waiter; //!< new phase, or END for the iteration's end
        uint32_t m;      //!< merged phase whose start is waited for
        int64_t extra;   //!< time after m's start, Time steps
    };

    constexpr uint32_t END = UINT32_MAX;
    std::vector<StartWait> startWaits;
    for (uint32_t p = 0; p < np; ++p)
    {
        const uint32_t n = newIndex[target[p]];
        for (const auto& [f, b] : prov.bytes[p])
        {
            r.bytes[n][f] += b;
        }
        if (offset(p) > 0)
        {
            startWaits.push_back(StartWait{END, n, offset(p)}); // the member's hops before it
        }
        for (const auto& [q, lag] : prov.deps[p])
        {
            const uint32_t m = newIndex[target[q]];
            if (m != n)
            {
                keepMax(r.deps[n], m, std::max<int64_t>(0, lag - offset(p)));
                if (offset(q) > 0)
                {
                    startWaits.push_back(StartWait{n, m, lag + offset(q) - offset(p)});
                }
            }
        }
    }
    for (const auto& [q, lag] : prov.endDeps)
    {
        const uint32_t m = newIndex[target[q]];
        keepMax(r.endDeps, m, lag);
        if (offset(q) > 0)
        {
            startWaits.push_back(StartWait{END, m, lag + offset(q)});
        }
    }
    // expand in order of the waiters' release (a phase's dependencies are released before it,
    // so they are complete when it is expanded); the iteration's end last
    std::stable_sort(startWaits.begin(),
                     startWaits.end(),
                     [&r, END](const StartWait& a, const StartWait& b) {
                         const int64_t ka = a.waiter == END ? INT64_MAX : r.key[a.waiter];
                         const int64_t kb = b.waiter == END ? INT64_MAX : r.key[b.waiter];
                         return ka < kb;
                     });
    for (const StartWait& w : startWaits)
    {
        auto& into = w.waiter == END ? r.endDeps : r.deps[w.waiter];
        for (const auto& [dep, lag] : std::map<uint32_t, int64_t>(r.deps[w.m]))
        {
            keepMax(into, dep, std::max<int64_t>(0, lag + w.extra));
        }
    }
    return r;
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
    // Phases in order of their ideal start, then of discovery (a dependency always starts
    // earlier: phases of one instant linked by a dependency are one phase), renumbered.
    std::vector<uint32_t> order(key.size());
    for (uint32_t p = 0; p < order.size(); ++p)
    {
        order[p] = p;
    }
    std::sort(order.begin(), order.end(), [&key](uint32_t a, uint32_t b) {
        return key[a] != key[b] ? key[a] < key[b] : a < b;
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
    const bool collective = granularity == TimelineGranularity::COLLECTIVE;
    ProvisionalPhases phases =
        WalkPhases(dag, flowIndex, intraHostRate, intraHostLatency, collective);
    if (collective)
    {
        phases = MergeCollectivePhases(MergeSameInstant(std::move(phases)));
    }
    EmitPhases(job, phases, sj);
}

} // namespace ns3
