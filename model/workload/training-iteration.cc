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
#include "plan-builder.h"

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
