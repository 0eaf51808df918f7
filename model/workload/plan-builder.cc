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

/*
 * PlanBuilder, the schedule of a planned iteration: Megatron-LM's 1F1B op order (interleaved
 * with virtual stages), the passes and blocks of each stage with their TP and EP collectives,
 * the pipeline messages between stages, and Build(). The data-parallel part is
 * plan-builder-gradients.cc.
 */

#include "plan-builder.h"

#include "collectives.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

using NodeList = PlanBuilder::NodeList; //!< nodes, e.g. one per replica

/// Each replica's compute node as a one-element list.
std::vector<NodeList>
ToLists(const NodeList& v)
{
    std::vector<NodeList> out(v.size());
    for (size_t d = 0; d < v.size(); ++d)
    {
        out[d] = {v[d]};
    }
    return out;
}

} // namespace

NodeList
PlanBuilder::Compute(const std::vector<NodeList>& deps, double seconds, bool track)
{
    const uint32_t dp = m_plan.dp;
    const int64_t duration = CommDag::SecondsToSteps(seconds);
    NodeList out(dp, NONE);
    if (!track)
    {
        for (uint32_t d = 0; d < dp; ++d)
        {
            out[d] = m_dag.AddDelaySteps(duration, deps[d]);
        }
        return out;
    }
    // Last backward pass: split the piece at the bucket boundaries (b+1)/B of the pass's
    // compute, b < B−1 (the last bucket is released after the pass's last compute, Pass()).
    // With virtual stages the pass releases its chunk's buckets [first, end) alike.
    const uint32_t first = m_trackFirst;
    const uint32_t buckets = m_trackEnd - first;
    auto& release = m_release[m_trackStage];
    const int64_t end = m_trackDone + duration;
    int64_t at = m_trackDone;
    std::vector<NodeList> cur = deps;
    bool emitted = false;
    while (m_nextBucket + 1 < m_trackEnd)
    {
        const int64_t boundary = m_trackTotal * (m_nextBucket - first + 1) / buckets;
        if (boundary > end)
        {
            break;
        }
        if (boundary > at || !emitted)
        {
            for (uint32_t d = 0; d < dp; ++d)
            {
                out[d] = m_dag.AddDelaySteps(std::max<int64_t>(boundary - at, 0), cur[d]);
                cur[d] = {out[d]};
            }
            at = std::max(at, boundary);
            emitted = true;
        }
        for (uint32_t d = 0; d < dp; ++d)
        {
            release[d][m_nextBucket] = out[d];
        }
        ++m_nextBucket;
    }
    if (!emitted || end > at)
    {
        for (uint32_t d = 0; d < dp; ++d)
        {
            out[d] = m_dag.AddDelaySteps(end - at, cur[d]);
        }
    }
    m_trackDone = end;
    m_lastCompute = out;
    return out;
}

std::vector<NodeList>
PlanBuilder::TpCollective(uint32_t s, const std::vector<NodeList>& ready, uint64_t bytes, int kind)
{
    const uint32_t dp = m_plan.dp;
    const uint32_t tp = m_plan.tp;
    std::vector<NodeList> out(dp);
    for (uint32_t d = 0; d < dp; ++d)
    {
        if (tp == 1)
        {
            out[d] = ready[d];
            continue;
        }
        std::vector<uint32_t> members;
        for (uint32_t t = 0; t < tp; ++t)
        {
            members.push_back(Rank(t, d, s));
        }
        const NodeId r = ready[d].size() == 1 ? ready[d][0] : m_dag.AddBarrier(ready[d]);
        m_dag.SetContext("TP", m_passText);
        CollectiveNodes c;
        if (kind == 0)
        {
            c = Collectives::AllReduce(m_dag, members, bytes, m_plan.allReduce, {r});
        }
        else if (kind == 1)
        {
            c = Collectives::AllGather(m_dag, members, bytes, m_plan.allReduce, {r});
        }
        else
        {
            c = Collectives::ReduceScatter(m_dag, members, bytes, m_plan.allReduce, {r});
        }
        out[d] = c.rankDone;
    }
    return out;
}

std::vector<NodeList>
PlanBuilder::ExpertAllToAll(uint32_t s, const std::vector<NodeList>& ready, uint64_t bytes)
{
    const uint32_t dp = m_plan.dp;
    const uint32_t tp = m_plan.tp;
    const uint32_t ep = m_plan.ep;
    std::vector<NodeList> out(dp, NodeList(tp, NONE));
    for (uint32_t g = 0; g < dp / ep; ++g)
    {
        for (uint32_t t = 0; t < tp; ++t)
        {
            std::vector<uint32_t> members;
            NodeList r;
            for (uint32_t q = 0; q < ep; ++q)
            {
                const uint32_t d = g * ep + q;
                members.push_back(Rank(t, d, s));
                // member (t, d): its TP rank's part is done (or the whole replica's compute)
                r.push_back(ready[d].size() == tp  ? ready[d][t]
                            : ready[d].size() == 1 ? ready[d][0]
                                                   : m_dag.AddBarrier(ready[d]));
            }
            m_dag.SetContext("EP", m_passText);
            const auto c = Collectives::AllToAll(m_dag, members, bytes, r);
            for (uint32_t q = 0; q < ep; ++q)
            {
                out[g * ep + q][t] = c.rankDone[q];
            }
        }
    }
    return out;
}

std::vector<NodeList>
PlanBuilder::Pass(uint32_t s, const Op& op, const std::vector<NodeList>& start)
{
    const uint32_t tp = m_plan.tp;
    const uint32_t m = m_plan.microBatches;
    const double pp = m_plan.pp;
    const double layers = m_transformer ? m_model.layers : 1;
    // layers of this pass: the stage's, or one chunk's with virtual stages (an even split)
    const uint32_t ls = m_stageLayers[s] / m_plan.virtualStages;
    const double share = ls * pp / layers / m; // of the per-GPU iteration compute
    double passTime =
        m_job.computeTime * share * (op.forward ? m_job.overlapStart : 1 - m_job.overlapStart);
    // full recomputation: the backward pass starts each block with its forward again
    double recomputeTime = 0;
    if (!op.forward && m_fullRecompute)
    {
        recomputeTime = m_job.computeTime * share * m_job.step->recomputeShare;
        passTime = std::max(0.0, passTime - recomputeTime);
    }
    const bool track = !op.forward && op.micro + 1 == m && m_plan.dp > 1;
    const bool gather = op.forward && op.micro == 0 && m_distOpt && m_plan.dp > 1;
    m_passText = StageText(s);
    m_passText += (m_passText.empty() ? "" : ", ") +
                  std::string(op.forward ? "forward" : "backward") + " micro-batch " +
                  std::to_string(op.micro);
    if (m_plan.virtualStages > 1)
    {
        m_passText += ", chunk " + std::to_string(op.chunk);
    }
    if (track)
    {
        if (m_release[s].empty())
        {
            m_release[s].assign(m_plan.dp, std::vector<NodeId>(m_job.numBuckets, NONE));
        }
        m_trackStage = s;
        ChunkBuckets(op.chunk, m_trackFirst, m_trackEnd);
        m_trackTotal = CommDag::SecondsToSteps(passTime);
        m_trackDone = 0;
        m_nextBucket = m_trackFirst;
    }
    if (gather)
    {
        m_nextGather = 0;
        m_gatherDone.clear();
        // interleaved: the next chunk's all-gathers start with this chunk's first forward
        // (chunks 0 and 1 at the iteration's start, Build())
        if (m_plan.virtualStages > 1 && op.chunk + 1 >= 2 && op.chunk + 1 < m_plan.virtualStages)
        {
            NodeList at(m_plan.dp);
            for (uint32_t d = 0; d < m_plan.dp; ++d)
            {
                at[d] = start[d].size() == 1 ? start[d][0] : m_dag.AddBarrier(start[d]);
            }
            DispatchChunkGather(s, op.chunk + 1, at);
        }
    }
    std::vector<NodeList> cur = start;
    if (!m_transformer)
    {
        if (gather)
        {
            cur = WaitParams(s, op.chunk, 1, 1, cur);
        }
        const NodeList c = Compute(cur, passTime, track);
        for (uint32_t d = 0; d < m_plan.dp; ++d)
        {
            cur[d] = {c[d]};
        }
        ReleaseRest(track);
        return cur;
    }
    const uint32_t k = m_plan.layersPerBlock;
    // ceil(ls / k) without ls + k - 1, which wraps for k near 2^32 (any k >= ls is one block)
    const uint32_t blocks = ls / k + (ls % k != 0 ? 1 : 0);
    const uint64_t tokensPerRank = static_cast<uint64_t>(std::llround(
        m_tokensPerMicro / tp * m_model.topK * m_model.hidden * m_model.bytesPerActivation));
    for (uint32_t i = 0; i < blocks; ++i)
    {
        const uint32_t block = op.forward ? i : blocks - 1 - i;
        const uint32_t bl = std::min(k, ls - block * k); // layers in this block
        const double t = passTime * bl / ls;
        const uint64_t act = m_actBytes * bl;
        const uint64_t a2a = tokensPerRank * bl;
        if (op.forward)
        {
            if (gather)
            {
                cur = WaitParams(s, op.chunk, block * k + bl, ls, cur);
            }
            cur = ForwardBlock(s, cur, t, act, a2a, track);
        }
        else
        {
            if (recomputeTime > 0)
            {
                cur = ForwardBlock(s, cur, recomputeTime * bl / ls, act, a2a, false);
            }
            cur = BackwardBlock(s, cur, t, act, a2a, track);
        }
    }
    ReleaseRest(track);
    return cur;
}

std::vector<NodeList>
PlanBuilder::ForwardBlock(uint32_t s,
                          std::vector<NodeList> cur,
                          double t,
                          uint64_t act,
                          uint64_t a2a,
                          bool track)
{
    const double a = m_model.attentionFraction;
    const bool moe = m_model.IsMoe() && m_plan.ep > 1;
    const bool sp = m_plan.sequenceParallel;
    // [AG] attention [RS|AR] [dispatch] MLP/experts [combine] [AG..RS|AR]
    if (sp)
    {
        cur = TpCollective(s, cur, act, 1);
    }
    cur = ToLists(Compute(cur, t * a, track));
    cur = TpCollective(s, cur, act, sp ? 2 : 0);
    if (moe)
    {
        cur = ExpertAllToAll(s, cur, a2a);
    }
    if (sp && !moe)
    {
        cur = TpCollective(s, cur, act, 1);
    }
    cur = ToLists(Compute(cur, t * (1 - a), track));
    if (moe)
    {
        cur = ExpertAllToAll(s, cur, a2a);
    }
    return TpCollective(s, cur, act, sp ? 2 : 0);
}

std::vector<NodeList>
PlanBuilder::BackwardBlock(uint32_t s,
                           std::vector<NodeList> cur,
                           double t,
                           uint64_t act,
                           uint64_t a2a,
                           bool track)
{
    const double a = m_model.attentionFraction;
    const bool moe = m_model.IsMoe() && m_plan.ep > 1;
    const bool sp = m_plan.sequenceParallel;
    // backward in reverse: MLP/experts, then attention; AG <-> RS swap
    if (sp)
    {
        cur = TpCollective(s, cur, act, 1);
    }
    if (moe)
    {
        cur = ExpertAllToAll(s, cur, a2a);
    }
    cur = ToLists(Compute(cur, t * (1 - a), track));
    if (moe)
    {
        cur = ExpertAllToAll(s, cur, a2a);
    }
    cur = TpCollective(s, cur, act, sp ? 2 : 0);
    if (sp)
    {
        cur = TpCollective(s, cur, act, 1);
    }
    cur = ToLists(Compute(cur, t * a, track));
    return TpCollective(s, cur, act, sp ? 2 : 0);
}

std::vector<std::vector<PlanBuilder::Op>>
PlanBuilder::OneFOneB() const
{
    const uint32_t pp = m_plan.pp;
    const uint32_t m = m_plan.microBatches;
    const uint32_t v = m_plan.virtualStages;
    std::vector<std::vector<Op>> ops(pp);
    if (v <= 1)
    {
        for (uint32_t s = 0; s < pp; ++s)
        {
            const uint32_t warm = std::min(pp - s - 1, m);
            for (uint32_t i = 0; i < warm; ++i)
            {
                ops[s].push_back({true, i});
            }
            for (uint32_t i = 0; i + warm < m; ++i)
            {
                ops[s].push_back({true, warm + i});
                ops[s].push_back({false, i});
            }
            for (uint32_t i = m - warm; i < m; ++i)
            {
                ops[s].push_back({false, i});
            }
        }
        return ops;
    }
    // Megatron's interleaved schedule (megatron/core/pipeline_parallel/schedules.py): the
    // micro-batches in groups of pp, each group running chunk 0, 1, ..., v−1 in turn (the
    // forward order; the backward runs the chunks the other way round); stage s warms up with
    // 2(pp − s − 1) + (v − 1) pp forwards, then one forward / one backward, then the rest.
    std::vector<std::pair<uint32_t, uint32_t>> table; // (micro-batch, chunk)
    for (uint32_t g = 0; g < m; g += pp)
    {
        const uint32_t ge = std::min(m, g + pp);
        for (uint32_t j = 0; j < v; ++j)
        {
            for (uint32_t i = g; i < ge; ++i)
            {
                table.emplace_back(i, j);
            }
        }
    }
    const uint32_t total = m * v;
    auto fwd = [&](uint32_t k) { return Op{true, table[k].first, table[k].second}; };
    auto bwd = [&](uint32_t k) { return Op{false, table[k].first, v - 1 - table[k].second}; };
    for (uint32_t s = 0; s < pp; ++s)
    {
        const uint32_t warm = std::min(total, 2 * (pp - s - 1) + (v - 1) * pp);
        for (uint32_t k = 0; k < warm; ++k)
        {
            ops[s].push_back(fwd(k));
        }
        for (uint32_t k = 0; k + warm < total; ++k)
        {
            ops[s].push_back(fwd(warm + k));
            ops[s].push_back(bwd(k));
        }
        for (uint32_t k = total - warm; k < total; ++k)
        {
            ops[s].push_back(bwd(k));
        }
    }
    return ops;
}

std::vector<NodeList>
PlanBuilder::PipelineSends(uint32_t s,
                           uint32_t to,
                           const Op& op,
                           const std::vector<NodeList>& last,
                           const std::vector<uint32_t>& ppStream)
{
    const uint32_t dp = m_plan.dp;
    const uint32_t tp = m_plan.tp;
    m_dag.SetContext("", "");
    m_dag.BeginCollective(
        std::string(op.forward ? "PP activation send" : "PP gradient send") + " stage " +
        std::to_string(s) + " -> " + std::to_string(to) + ", micro-batch " +
        std::to_string(op.micro) +
        (m_plan.virtualStages > 1 ? ", chunk " + std::to_string(op.chunk) : std::string()));
    std::vector<NodeList> out(dp);
    for (uint32_t d = 0; d < dp; ++d)
    {
        for (uint32_t t = 0; t < tp; ++t)
        {
            out[d].push_back(
                m_dag.AddMessage(Rank(t, d, s),
                                 Rank(t, d, to),
                                 m_ppBytes,
                                 ppStream[((s * dp + d) * tp + t) * 2 + (op.forward ? 0 : 1)],
                                 {last[d][0]}));
        }
    }
    return out;
}

void
PlanBuilder::Build()
{
    const uint32_t pp = m_plan.pp;
    const uint32_t dp = m_plan.dp;
    const uint32_t tp = m_plan.tp;
    const uint32_t m = m_plan.microBatches;
    const uint32_t v = m_plan.virtualStages;
    m_transformer = m_model.IsTransformer();
    m_distOpt = m_job.step && m_job.step->distributedOptimizer;
    m_fullRecompute = m_transformer && m_job.step && m_job.step->recompute == Recompute::FULL;
    const uint32_t layers = m_transformer ? m_model.layers : 1;
    for (uint32_t s = 0; s < pp; ++s)
    {
        m_stageLayers.push_back(layers / pp + (s < layers % pp ? 1 : 0));
    }
    m_release.assign(pp, {});
    if (m_distOpt && dp > 1 && v > 1)
    {
        // interleaved: Megatron's align_param_gather (its default with virtual stages) starts
        // the all-gathers of chunks 0 and 1 on every stage at the iteration's start
        m_chunkGather.assign(pp, std::vector<std::vector<NodeList>>(v));
        for (uint32_t s = 0; s < pp; ++s)
        {
            for (uint32_t j = 0; j < std::min(v, 2u); ++j)
            {
                DispatchChunkGather(s, j, NodeList(dp, NONE));
            }
        }
    }
    const double tokens = m_model.SamplesPerIteration(m_job.NumGpus()) * m_model.sequenceLength;
    m_tokensPerMicro = tokens / dp / m;
    m_actBytes = m_transformer
                     ? static_cast<uint64_t>(std::llround(m_tokensPerMicro * m_model.hidden *
                                                          m_model.bytesPerActivation))
                     : 0;
    // Each TP rank sends its 1/tp share of the boundary tensor: the sequence shard with sequence
    // parallelism, else Megatron's scatter/gather optimization (Narayanan et al. SC'21 §4.1:
    // send 1/t over the network, all-gather over NVLink at the receiving stage).
    m_ppBytes = (m_actBytes + tp - 1) / tp;
    const bool ppGather = tp > 1 && !m_plan.sequenceParallel;

    const std::vector<std::vector<Op>> ops = OneFOneB();
    // Pipeline messages into virtual stage q = chunk × pp + stage (= the stage without virtual
    // stages): act[q][micro][replica] -> the tp messages of its forward input, grad[q][...]
    // those of its backward input.
    const uint32_t vstages = pp * v;
    std::vector<std::vector<std::vector<NodeList>>> act(
        vstages,
        std::vector<std::vector<NodeList>>(m, std::vector<NodeList>(dp)));
    std::vector<std::vector<std::vector<NodeList>>> grad = act;
    std::vector<std::vector<bool>> actBuilt(vstages, std::vector<bool>(m, false));
    std::vector<std::vector<bool>> gradBuilt(vstages, std::vector<bool>(m, false));
    std::vector<size_t> next(pp, 0);
    std::vector<std::vector<NodeList>> last(pp, std::vector<NodeList>(dp)); // previous op end
    std::vector<uint32_t> ppStream(static_cast<size_t>(dp) * tp * pp * 2);
    for (auto& x : ppStream)
    {
        x = m_dag.NewStream();
    }
    size_t remaining = 0;
    for (const auto& o : ops)
    {
        remaining += o.size();
    }
    while (remaining > 0)
    {
        bool progress = false;
        for (uint32_t s = 0; s < pp; ++s)
        {
            while (next[s] < ops[s].size())
            {
                const Op& op = ops[s][next[s]];
                const uint32_t q = op.chunk * pp + s;
                // cross-stage dependency built yet?
                if (op.forward && q > 0 && !actBuilt[q][op.micro])
                {
                    break;
                }
                if (!op.forward && q + 1 < vstages && !gradBuilt[q][op.micro])
                {
                    break;
                }
                std::vector<NodeList> start(dp);
                for (uint32_t d = 0; d < dp; ++d)
                {
                    start[d] = last[s][d];
                    const NodeList& in = op.forward ? act[q][op.micro][d] : grad[q][op.micro][d];
                    if (ppGather && !in.empty())
                    {
                        // all-gather the received shards inside the TP group (NVLink)
                        std::vector<uint32_t> members;
                        for (uint32_t t = 0; t < tp; ++t)
                        {
                            members.push_back(Rank(t, d, s));
                        }
                        m_dag.SetContext("PP",
                                         StageText(s) + ", micro-batch " +
                                             std::to_string(op.micro) + " (TP group)");
                        const auto ag = Collectives::RingAllGather(m_dag, members, m_actBytes, in);
                        start[d].insert(start[d].end(), ag.rankDone.begin(), ag.rankDone.end());
                    }
                    else
                    {
                        start[d].insert(start[d].end(), in.begin(), in.end());
                    }
                }
                const auto end = Pass(s, op, start);
                for (uint32_t d = 0; d < dp; ++d)
                {
                    // the stage's next compute waits for this pass (TP collectives included)
                    last[s][d] = {end[d].size() == 1 ? end[d][0] : m_dag.AddBarrier(end[d])};
                }
                // pipeline sends (asynchronous: the stage does not wait for them); the last
                // stage's chunk j sends to the first stage's chunk j + 1
                if (op.forward && q + 1 < vstages)
                {
                    act[q + 1][op.micro] = PipelineSends(s, (q + 1) % pp, op, last[s], ppStream);
                    actBuilt[q + 1][op.micro] = true;
                }
                if (!op.forward && q > 0)
                {
                    grad[q - 1][op.micro] = PipelineSends(s, (q - 1) % pp, op, last[s], ppStream);
                    gradBuilt[q - 1][op.micro] = true;
                }
                // every chunk's gradients are complete after its last backward; the stage's
                // buckets are built after the last chunk's (chunk 0)
                if (!op.forward && op.micro + 1 == m && op.chunk == 0 && dp > 1)
                {
                    Buckets(s);
                }
                ++next[s];
                --remaining;
                progress = true;
            }
        }
        if (!progress)
        {
            throw std::logic_error("TrainingIteration: 1F1B schedule does not progress (job " +
                                   std::to_string(m_job.id) + ")");
        }
    }
}

} // namespace ns3
