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

#include "training-iteration.h"

#include "chakra-trace.h"
#include "collectives.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTrainingIteration");

namespace
{

typedef CommDag::NodeId NodeId;
typedef CommDag::NodeList NodeList;
constexpr NodeId NONE = CommDag::NONE;

/// Split total into parts: part i gets total/parts, plus one for the first total mod parts.
uint64_t
SplitPart(uint64_t total, uint32_t parts, uint32_t i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

/// crux's pattern without a plan: one ring all-reduce per rail per bucket, buckets in order.
void
BuildDataParallelRings(const DltJob& job, CommDag& dag)
{
    const uint32_t buckets = job.numBuckets;
    const uint32_t dp = job.DataParallel();
    const uint32_t tp = job.TensorParallel();
    // Time arithmetic exactly as the release times have always been computed (byte-identical
    // results): integer nanoseconds.
    const Time c = Seconds(job.computeTime);
    const Time f = Seconds(job.computeTime * job.overlapStart);
    std::vector<NodeId> release(buckets);
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const Time at = (b + 1 == buckets) ? c : f + (c - f) * (b + 1) / buckets;
        release[b] = dag.AddDelay(at, {});
    }
    dag.AddDelay(c, {}); // the compute
    // flow id = rail × DataParallel() + rank (DltJob::FlowId)
    std::vector<std::vector<uint32_t>> rails(tp);
    for (uint32_t rail = 0; rail < tp && dp > 1; ++rail)
    {
        for (uint32_t r = 0; r < dp; ++r)
        {
            rails[rail].push_back(r * tp + rail);
        }
        for (uint32_t r = 0; r < dp; ++r)
        {
            dag.RegisterConnection(rails[rail][r], rails[rail][(r + 1) % dp]);
        }
    }
    // single-host job with intraHostAllReduce: the ring of its GPUs (ranks 0..tp-1)
    std::vector<uint32_t> ring;
    if (dp == 1 && job.intraHostAllReduce && tp > 1)
    {
        for (uint32_t r = 0; r < tp; ++r)
        {
            ring.push_back(r);
            dag.RegisterConnection(r, (r + 1) % tp);
        }
    }
    NodeId previous = NONE;
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const NodeId start = dag.AddBarrier({release[b], previous}, {BUCKET_START, b});
        dag.SetContext("DP", "bucket " + std::to_string(b));
        NodeList done;
        if (dp > 1)
        {
            for (uint32_t rail = 0; rail < tp; ++rail)
            {
                const auto nodes =
                    Collectives::RingAllReduce(dag, rails[rail], job.BucketBytes(rail, b), {start});
                done.insert(done.end(), nodes.rankDone.begin(), nodes.rankDone.end());
            }
        }
        else if (job.intraHostAllReduce && tp > 1)
        {
            // single-host job with intra-host links: one ring of its GPUs over NVLink, the whole
            // bucket (every rail's share)
            uint64_t bytes = 0;
            for (uint32_t rail = 0; rail < tp; ++rail)
            {
                bytes += job.BucketBytes(rail, b);
            }
            const auto nodes = Collectives::RingAllReduce(dag, ring, bytes, {start});
            done.insert(done.end(), nodes.rankDone.begin(), nodes.rankDone.end());
        }
        else
        {
            // single-host job: gradients are reduced over NVLink, no network traffic
            done.push_back(dag.AddDelay(Time(0), {start}));
        }
        previous = dag.AddBarrier(done, {BUCKET_END, b});
    }
}

/// Builder of a planned iteration (see TrainingIteration's class doc).
class PlanBuilder
{
  public:
    PlanBuilder(const DltJob& job, CommDag& dag)
        : m_job(job),
          m_dag(dag),
          m_plan(*job.plan),
          m_model(job.model)
    {
    }

    void Build();

  private:
    /// Job rank of (TP rank, DP replica, stage).
    uint32_t Rank(uint32_t t, uint32_t d, uint32_t s) const
    {
        return t + m_plan.tp * (d + m_plan.dp * s);
    }

    /// One op of a stage's 1F1B sequence.
    struct Op
    {
        bool forward;      //!< forward or backward
        uint32_t micro;    //!< micro-batch
        uint32_t chunk{0}; //!< model chunk of the stage (virtual stages; 0 without)
    };

    /// A compute piece of `duration` after `deps` for every replica; during the last backward
    /// pass it is split at the bucket boundaries (release nodes recorded).
    NodeList Compute(const std::vector<NodeList>& deps, double seconds, bool track);

    /// A TP collective per replica (all-reduce, or all-gather / reduce-scatter).
    std::vector<NodeList> TpCollective(uint32_t s,
                                       const std::vector<NodeList>& ready,
                                       uint64_t bytes,
                                       int kind);

    /// The dispatch or combine all-to-all of every EP group of stage s.
    std::vector<NodeList> ExpertAllToAll(uint32_t s,
                                         const std::vector<NodeList>& ready,
                                         uint64_t bytes);

    /// One pass (forward or backward) of one micro-batch on stage s, all replicas.
    std::vector<NodeList> Pass(uint32_t s, const Op& op, const std::vector<NodeList>& start);

    /// The forward part of one block: [AG] attention [RS|AR] [dispatch] MLP/experts [combine]
    /// [AG..RS|AR]; compute t × a then t × (1 − a). Also the recomputation of a block.
    std::vector<NodeList> ForwardBlock(uint32_t s,
                                       std::vector<NodeList> cur,
                                       double t,
                                       uint64_t act,
                                       uint64_t a2a,
                                       bool track);

    /// The backward part of one block: MLP/experts then attention, AG <-> RS swapped.
    std::vector<NodeList> BackwardBlock(uint32_t s,
                                        std::vector<NodeList> cur,
                                        double t,
                                        uint64_t act,
                                        uint64_t a2a,
                                        bool track);

    /// Release the buckets not released yet at the last compute of the tracked pass.
    void ReleaseRest(bool track);

    /// Gradient bytes of stage s per (TP rank) group: the dense part over dp, the expert part
    /// over dp / ep (set), as the data-parallel buckets split them.
    void GroupBytes(uint32_t s, uint64_t& dense, uint64_t& expert) const;

    /// The data-parallel buckets of stage s (after the releases are known): all-reduce, or with
    /// the distributed optimizer reduce-scatter, of each bucket over its group.
    void Buckets(uint32_t s);

    /// The distributed optimizer's parameter all-gather of bucket b of stage s, every TP rank's
    /// group, member d starting at ready[d]. \return [replica] -> barrier after its gathers
    /// (and ready[d])
    NodeList ParamGather(uint32_t s, uint32_t b, const NodeList& ready);

    /// Before a block of the first forward of (stage s, chunk) whose layers end at hiLayers of
    /// the chunk's chunkLayers: wait for the all-gathers of the buckets holding its layers,
    /// dispatching each next all-gather when the previous one is waited for (Megatron's
    /// overlap_param_gather). \return the replicas' new start nodes
    std::vector<NodeList> WaitParams(uint32_t s,
                                     uint32_t chunk,
                                     uint32_t hiLayers,
                                     uint32_t chunkLayers,
                                     const std::vector<NodeList>& cur);

    /// Interleaved: dispatch every all-gather of (stage s, chunk), one after the other (front
    /// order), the first at ready[d] per replica (NONE = at once); m_chunkGather records them.
    void DispatchChunkGather(uint32_t s, uint32_t chunk, const NodeList& ready);

    /// The 1F1B op sequence of every stage: [stage] -> ops in issue order (Megatron's
    /// interleaved schedule with virtual stages).
    std::vector<std::vector<Op>> OneFOneB() const;

    /// The pipeline messages of op `op` of stage s to stage `to` (s + 1 forward, s − 1
    /// backward), one per replica and TP rank, after the op's last node of each replica.
    /// \return [replica] -> the tp messages
    std::vector<NodeList> PipelineSends(uint32_t s,
                                        uint32_t to,
                                        const Op& op,
                                        const std::vector<NodeList>& last,
                                        const std::vector<uint32_t>& ppStream);

    /// " stage s" when the job is pipelined, else "" (the watchdog's descriptions).
    std::string StageText(uint32_t s) const
    {
        return m_plan.pp > 1 ? "stage " + std::to_string(s) : std::string();
    }

    /// The buckets of chunk `chunk` of a stage: [first, end) of the stage's numBuckets (the
    /// chunk finishing its backward first, v − 1, gets the first ones).
    void ChunkBuckets(uint32_t chunk, uint32_t& first, uint32_t& end) const
    {
        const uint32_t v = m_plan.virtualStages;
        const uint32_t o = v - 1 - chunk;
        first = static_cast<uint32_t>(static_cast<uint64_t>(o) * m_job.numBuckets / v);
        end = static_cast<uint32_t>(static_cast<uint64_t>(o + 1) * m_job.numBuckets / v);
    }

    const DltJob& m_job;
    CommDag& m_dag;
    const ParallelPlan& m_plan;
    const ModelSpec& m_model;
    bool m_transformer{false};
    bool m_distOpt{false};               //!< distributed optimizer (reduce-scatter + all-gather)
    bool m_fullRecompute{false};         //!< full recomputation: the forward again, in backward
    std::vector<uint32_t> m_stageLayers; //!< L_s
    double m_tokensPerMicro{0};          //!< tokens of one micro-batch of one replica
    uint64_t m_actBytes{0};              //!< activations of one layer, one micro-batch
    // bucket release tracking (last backward of each chunk of a stage)
    std::vector<std::vector<std::vector<NodeId>>> m_release; //!< [stage][replica][bucket]
    uint32_t m_trackStage{0};                                //!< stage of the tracked pass
    uint32_t m_trackFirst{0}; //!< first bucket the tracked pass releases
    uint32_t m_trackEnd{0};   //!< end of the buckets the tracked pass releases
    int64_t m_trackTotal{0};  //!< backward compute of the tracked pass, steps
    int64_t m_trackDone{0};   //!< backward compute emitted so far, steps
    uint32_t m_nextBucket{0}; //!< next bucket to release
    NodeList m_lastCompute;   //!< last compute node per replica (tracked)
    uint32_t m_nextGather{0}; //!< WaitParams: next bucket (front order) to wait for
    NodeList m_gatherDone;    //!< WaitParams: per replica, the dispatched all-gather's end
    /// interleaved: [stage][chunk] -> per bucket in front order the all-gather's end per replica
    std::vector<std::vector<std::vector<NodeList>>> m_chunkGather;
    std::string m_passText; //!< the current pass in the user's words (CommDag::SetContext)
    uint64_t m_ppBytes{0};  //!< one pipeline message: a TP rank's share of the boundary tensor
};

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

} // namespace

std::vector<GpuId>
TrainingIteration::RankGpus(const DltJob& job)
{
    std::vector<GpuId> out;
    for (uint32_t h : job.Hosts())
    {
        std::vector<uint32_t> local;
        for (const auto& g : job.gpus)
        {
            if (g.host == h)
            {
                local.push_back(g.localGpu);
            }
        }
        std::sort(local.begin(), local.end());
        for (uint32_t l : local)
        {
            GpuId id;
            id.host = h;
            id.localGpu = l;
            out.push_back(id);
        }
    }
    return out;
}

void
TrainingIteration::Build(const DltJob& job, CommDag& dag)
{
    job.Validate();
    if (dag.NumRanks() != job.NumGpus())
    {
        throw std::invalid_argument("TrainingIteration::Build (job " + std::to_string(job.id) +
                                    "): the DAG has " + std::to_string(dag.NumRanks()) +
                                    " ranks, the job " + std::to_string(job.NumGpus()) + " GPUs");
    }
    dag.SetCollectiveConfig(job.collectives);
    if (job.chakra)
    {
        NS_LOG_DEBUG("job " << job.id << ": iteration from its Chakra trace");
        job.chakra->Build(dag);
        return;
    }
    if (!job.plan)
    {
        NS_LOG_DEBUG("job " << job.id << ": data parallel, " << job.numBuckets
                            << " buckets released during the backward pass");
        BuildDataParallelRings(job, dag);
        return;
    }
    NS_LOG_DEBUG("job " << job.id << ": plan " << job.plan->ToString());
    PlanBuilder(job, dag).Build();
}

} // namespace ns3
