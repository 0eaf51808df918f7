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
 * PlanBuilder, the data-parallel part of a planned iteration: the gradient buckets of each
 * stage, released during its last backward pass (PyTorch DDP / Megatron-LM's overlap_grad_reduce),
 * reduced by an all-reduce or, with the distributed optimizer, a reduce-scatter over the
 * replicas (dense) and the expert-data-parallel group (experts); the distributed optimizer's
 * parameter all-gathers waited for by the next forward (overlap_param_gather).
 */

#include "collectives.h"
#include "plan-builder.h"
#include "training-iteration.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

using NodeId = PlanBuilder::NodeId;     //!< a node of the DAG
using NodeList = PlanBuilder::NodeList; //!< nodes, e.g. one per replica

/// Split total into parts: part i gets total/parts, plus one for the first total mod parts.
uint64_t
SplitPart(uint64_t total, uint32_t parts, uint32_t i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

} // namespace

void
PlanBuilder::ReleaseRest(bool track)
{
    if (!track)
    {
        return;
    }
    for (; m_nextBucket < m_trackEnd; ++m_nextBucket)
    {
        for (uint32_t d = 0; d < m_plan.dp; ++d)
        {
            m_release[m_trackStage][d][m_nextBucket] = m_lastCompute[d];
        }
    }
}

void
PlanBuilder::GroupBytes(uint32_t s, uint64_t& dense, uint64_t& expert) const
{
    const double layers = m_transformer ? m_model.layers : 1;
    const double stageShare = m_stageLayers[s] / layers;
    const double expertShare = m_model.IsMoe() && m_model.parameters > 0
                                   ? m_model.expertParameters / m_model.parameters
                                   : 0.0;
    dense = static_cast<uint64_t>(
        std::llround(m_job.gradientBytes * (1 - expertShare) * stageShare / m_plan.tp));
    expert = static_cast<uint64_t>(
        std::llround(m_job.gradientBytes * expertShare * stageShare / m_plan.tp / m_plan.ep));
}

void
PlanBuilder::Buckets(uint32_t s)
{
    const uint32_t dp = m_plan.dp;
    const uint32_t tp = m_plan.tp;
    const uint32_t ep = m_plan.ep;
    const uint32_t buckets = m_job.numBuckets;
    uint64_t dense = 0;
    uint64_t expert = 0;
    GroupBytes(s, dense, expert);
    // the gradients' reduction: an all-reduce, or the distributed optimizer's reduce-scatter
    // (each rank keeps the reduced shard it updates; the parameters come back by all-gather),
    // both on the job's all-reduce family (NCCL's channel rings unless a classic one is chosen)
    auto reduce =
        [this](const std::vector<uint32_t>& members, uint64_t bytes, const NodeList& ready) {
            return m_distOpt
                       ? Collectives::ReduceScatter(m_dag, members, bytes, m_plan.allReduce, ready)
                       : Collectives::AllReduce(m_dag, members, bytes, m_plan.allReduce, ready);
        };
    for (uint32_t t = 0; t < tp; ++t)
    {
        std::vector<NodeId> previous(dp, NONE);
        for (uint32_t b = 0; b < buckets; ++b)
        {
            std::vector<uint32_t> members;
            NodeList ready;
            for (uint32_t d = 0; d < dp; ++d)
            {
                members.push_back(Rank(t, d, s));
                ready.push_back(
                    m_dag.AddBarrier({m_release[s][d][b], previous[d]}, {BUCKET_START, b}));
            }
            const std::string stage = StageText(s);
            const std::string where =
                "bucket " + std::to_string(b) + (stage.empty() ? "" : ", " + stage);
            m_dag.SetContext("DP", where);
            const auto denseDone = reduce(members, SplitPart(dense, buckets, b), ready);
            std::vector<NodeList> done(dp);
            for (uint32_t d = 0; d < dp; ++d)
            {
                done[d].push_back(denseDone.rankDone[d]);
            }
            if (expert > 0 && dp / ep > 1)
            {
                // expert gradients: the replicas holding the same experts (d mod ep)
                m_dag.SetContext("expert DP", where);
                for (uint32_t q = 0; q < ep; ++q)
                {
                    std::vector<uint32_t> edp;
                    NodeList edpReady;
                    for (uint32_t d = q; d < dp; d += ep)
                    {
                        edp.push_back(Rank(t, d, s));
                        edpReady.push_back(ready[d]);
                    }
                    const auto e = reduce(edp, SplitPart(expert, buckets, b), edpReady);
                    for (uint32_t j = 0, d = q; d < dp; d += ep, ++j)
                    {
                        done[d].push_back(e.rankDone[j]);
                    }
                }
            }
            for (uint32_t d = 0; d < dp; ++d)
            {
                previous[d] = m_dag.AddBarrier(done[d], {BUCKET_END, b});
            }
        }
    }
}

NodeList
PlanBuilder::ParamGather(uint32_t s, uint32_t b, const NodeList& ready)
{
    const uint32_t dp = m_plan.dp;
    const uint32_t ep = m_plan.ep;
    const uint32_t buckets = m_job.numBuckets;
    uint64_t dense = 0;
    uint64_t expert = 0;
    GroupBytes(s, dense, expert);
    // the updated parameters are bf16 (2 bytes) whatever the gradients' format
    const double toParams = 2.0 / m_model.bytesPerParameter;
    auto params = [&](uint64_t gradBytes) {
        return static_cast<uint64_t>(std::llround(SplitPart(gradBytes, buckets, b) * toParams));
    };
    std::vector<NodeList> done(dp);
    const std::string stage = StageText(s);
    const std::string where =
        "parameter all-gather, bucket " + std::to_string(b) + (stage.empty() ? "" : ", " + stage);
    for (uint32_t t = 0; t < m_plan.tp; ++t)
    {
        std::vector<uint32_t> members;
        for (uint32_t d = 0; d < dp; ++d)
        {
            members.push_back(Rank(t, d, s));
        }
        m_dag.SetContext("DP", where);
        const auto g =
            Collectives::AllGather(m_dag, members, params(dense), m_plan.allReduce, ready);
        for (uint32_t d = 0; d < dp; ++d)
        {
            done[d].push_back(g.rankDone[d]);
        }
        if (expert > 0 && dp / ep > 1)
        {
            m_dag.SetContext("expert DP", where);
            for (uint32_t q = 0; q < ep; ++q)
            {
                std::vector<uint32_t> edp;
                NodeList edpReady;
                for (uint32_t d = q; d < dp; d += ep)
                {
                    edp.push_back(Rank(t, d, s));
                    edpReady.push_back(ready[d]);
                }
                const auto e =
                    Collectives::AllGather(m_dag, edp, params(expert), m_plan.allReduce, edpReady);
                for (uint32_t j = 0, d = q; d < dp; d += ep, ++j)
                {
                    done[d].push_back(e.rankDone[j]);
                }
            }
        }
    }
    NodeList out(dp);
    for (uint32_t d = 0; d < dp; ++d)
    {
        done[d].push_back(ready[d]);
        out[d] = m_dag.AddBarrier(done[d]);
    }
    return out;
}

std::vector<NodeList>
PlanBuilder::WaitParams(uint32_t s,
                        uint32_t chunk,
                        uint32_t hiLayers,
                        uint32_t chunkLayers,
                        const std::vector<NodeList>& cur)
{
    uint32_t first = 0;
    uint32_t end = 0;
    ChunkBuckets(chunk, first, end);
    const uint64_t count = end - first;
    if (count == 0)
    {
        return cur;
    }
    // bucket first + r holds the fraction [r/count, (r+1)/count) of the chunk's gradients from
    // its last layer (released first in the backward pass); the block's layers up to hi from
    // the front need every bucket down to r = floor(count × (L − hi) / L), i.e. front-order
    // indices up to count − 1 − that
    const uint64_t needUpTo =
        count - 1 - count * (chunkLayers - hiLayers) / std::max<uint32_t>(chunkLayers, 1);
    if (m_nextGather > needUpTo)
    {
        return cur; // gathered for an earlier block, which this one follows
    }
    const uint32_t dp = m_plan.dp;
    std::vector<NodeList> out = cur;
    if (m_plan.virtualStages > 1)
    {
        // interleaved (Megatron aligns the all-gathers over the stages): dispatched already,
        // the block waits for its buckets
        const auto& chain = m_chunkGather[s][chunk];
        for (uint32_t d = 0; d < dp; ++d)
        {
            NodeList deps = cur[d];
            for (uint64_t k = m_nextGather; k <= needUpTo; ++k)
            {
                deps.push_back(chain[k][d]);
            }
            out[d] = {m_dag.AddBarrier(deps)};
        }
        m_nextGather = static_cast<uint32_t>(needUpTo + 1);
        return out;
    }
    for (; m_nextGather <= needUpTo; ++m_nextGather)
    {
        if (m_gatherDone.empty())
        {
            // the first all-gather is dispatched when the forward first needs it (exposed)
            NodeList ready(dp);
            for (uint32_t d = 0; d < dp; ++d)
            {
                ready[d] = cur[d].size() == 1 ? cur[d][0] : m_dag.AddBarrier(cur[d]);
            }
            m_gatherDone = ParamGather(s, end - 1 - m_nextGather, ready);
        }
        // the forward waits for it; the wait dispatches the next bucket's all-gather
        NodeList wait(dp);
        for (uint32_t d = 0; d < dp; ++d)
        {
            NodeList deps = cur[d];
            deps.push_back(m_gatherDone[d]);
            wait[d] = m_dag.AddBarrier(deps);
            out[d] = {wait[d]};
        }
        m_gatherDone.clear();
        if (m_nextGather + 1 < count)
        {
            m_gatherDone = ParamGather(s, end - 2 - m_nextGather, wait);
        }
    }
    return out;
}

void
PlanBuilder::DispatchChunkGather(uint32_t s, uint32_t chunk, const NodeList& ready)
{
    uint32_t first = 0;
    uint32_t end = 0;
    ChunkBuckets(chunk, first, end);
    auto& chain = m_chunkGather[s][chunk];
    NodeList at = ready;
    for (uint32_t b = end; b-- > first;)
    {
        // one NCCL stream: each bucket's all-gather after the previous one (front order)
        chain.push_back(ParamGather(s, b, at));
        at = chain.back();
    }
}

} // namespace ns3
