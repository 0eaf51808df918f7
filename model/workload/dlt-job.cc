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

#include "dlt-job.h"

#include "chakra-trace.h"
#include "comm-dag.h"
#include "training-iteration.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDltJob");

namespace
{

/// Split total into parts: part i gets total/parts, plus one for the first total mod parts.
uint64_t
SplitPart(uint64_t total, uint32_t parts, uint32_t i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

} // namespace

DltJob
DltJob::FromModel(uint32_t id, const std::string& modelName, const std::vector<GpuId>& gpus)
{
    DltJob job;
    job.id = id;
    job.modelName = modelName;
    job.model = ModelZoo::Get(modelName);
    job.gpus = gpus;
    if (gpus.empty())
    {
        throw std::invalid_argument("job " + std::to_string(id) + ": gpus is empty");
    }
    job.computeTime = job.model.computeTime;
    job.flopsPerIteration = job.model.FlopsPerIteration(gpus.size());
    job.gradientBytes = job.model.GradientBytes();
    job.overlapStart = job.model.overlapStart;
    job.numBuckets = job.model.numBuckets;
    job.Validate();
    return job;
}

DltJob
DltJob::FromChakra(uint32_t id,
                   std::shared_ptr<const ChakraTrace> trace,
                   const std::vector<GpuId>& gpus)
{
    if (!trace)
    {
        throw std::invalid_argument("job " + std::to_string(id) + ": the Chakra trace is null");
    }
    DltJob job;
    job.id = id;
    job.modelName = "chakra";
    job.model.name = "chakra";
    job.gpus = gpus;
    job.chakra = trace;
    job.computeTime = trace->ComputeTime();
    job.flopsPerIteration = trace->FlopsPerIteration();
    job.gradientBytes = 0;
    job.numBuckets = 1; // one labelled span of communication per iteration (ChakraTrace)
    job.overlapStart =
        job.computeTime > 0 ? std::min(1.0, trace->FirstCommStart() / job.computeTime) : 0.0;
    job.Validate();
    return job;
}

void
DltJob::Validate() const
{
    const std::string who = "job " + std::to_string(id) + ": ";
    if (gpus.empty())
    {
        throw std::invalid_argument(who + "gpus is empty");
    }
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::map<uint32_t, uint32_t> perHost;
    for (const auto& g : gpus)
    {
        if (!seen.insert({g.host, g.localGpu}).second)
        {
            throw std::invalid_argument(who + "gpus lists GPU (host " + std::to_string(g.host) +
                                        ", gpu " + std::to_string(g.localGpu) + ") twice");
        }
        perHost[g.host]++;
    }
    const uint32_t first = perHost.begin()->second;
    for (const auto& kv : perHost)
    {
        if (kv.second != first)
        {
            throw std::invalid_argument(
                who + "gpus: every host must hold the same number of the job's GPUs (host " +
                std::to_string(perHost.begin()->first) + " has " + std::to_string(first) +
                ", host " + std::to_string(kv.first) + " has " + std::to_string(kv.second) + ")");
        }
    }
    if (!(computeTime >= 0))
    {
        throw std::invalid_argument(who + "computeTime must be >= 0 s");
    }
    if (!(flopsPerIteration >= 0))
    {
        throw std::invalid_argument(who + "flopsPerIteration must be >= 0");
    }
    if (!(overlapStart >= 0 && overlapStart <= 1))
    {
        throw std::invalid_argument(who + "overlapStart must be in [0, 1], got " +
                                    std::to_string(overlapStart));
    }
    if (numBuckets == 0)
    {
        throw std::invalid_argument(who + "numBuckets must be >= 1");
    }
    if (!(startTime >= 0))
    {
        throw std::invalid_argument(who + "startTime must be >= 0 s");
    }
    if (dscp > 63)
    {
        throw std::invalid_argument(who + "dscp " + std::to_string(dscp) + " > 63");
    }
    if (chakra && chakra->NumRanks() != gpus.size())
    {
        throw std::invalid_argument(who + "the Chakra trace has " +
                                    std::to_string(chakra->NumRanks()) + " ranks, the job " +
                                    std::to_string(gpus.size()) + " GPUs");
    }
    if (chakra && plan)
    {
        throw std::invalid_argument(who + "a Chakra trace job cannot have a parallelism plan");
    }
    if (plan)
    {
        const uint64_t product = static_cast<uint64_t>(plan->tp) * plan->pp * plan->dp;
        if (product != gpus.size())
        {
            throw std::invalid_argument(who + "plan: tp x pp x dp = " + std::to_string(product) +
                                        ", but the job has " + std::to_string(gpus.size()) +
                                        " GPUs");
        }
        const uint32_t g = first;
        if (plan->tp == 0 || !(g % plan->tp == 0 || plan->tp % g == 0))
        {
            throw std::invalid_argument(who + "plan: tp = " + std::to_string(plan->tp) +
                                        " does not fit " + std::to_string(g) + " GPUs per host");
        }
        if (plan->ep == 0 || plan->dp % plan->ep != 0 || plan->microBatches == 0 ||
            plan->layersPerBlock == 0 || plan->virtualStages == 0)
        {
            throw std::invalid_argument(who + "plan: ep must divide dp; microBatches, "
                                              "layersPerBlock and virtualStages must be >= 1");
        }
        if (model.IsTransformer() ? plan->pp > model.layers
                                  : (plan->tp > 1 || plan->pp > 1 || plan->ep > 1))
        {
            throw std::invalid_argument(who + "plan: " + plan->ToString() +
                                        " does not fit model '" + model.name + "'");
        }
    }
}

void
DltJob::ApplyStep(const TrainingStepRequest& request)
{
    if (request.Empty())
    {
        return;
    }
    if (plan)
    {
        throw PlanError("parallelism", "the training step must be applied before the plan");
    }
    const uint32_t n = NumGpus();
    const TrainingStep st = ResolveTrainingStep(request, model, n);
    // the model as this job trains it
    model.attentionFraction = AttentionFractionAt(model, st.sequenceLength);
    model.sequenceLength = st.sequenceLength;
    model.microBatchSize = st.microBatchSize;
    model.flopsPerSample = st.flopsPerSequence;
    if (request.globalBatch > 0)
    {
        model.globalBatch = request.globalBatch;
        model.referenceGpus = n;
    }
    flopsPerIteration = st.globalBatch * st.flopsPerSequence;
    computeTime = flopsPerIteration / (static_cast<double>(n) * st.flopsPerGpuSecond);
    model.computeTime = computeTime;
    overlapStart = st.forwardShare;
    step = st;
    NS_LOG_DEBUG("job " << id << ": step " << st.ToString() << ", W_j " << flopsPerIteration
                        << " FLOPs, compute " << computeTime << " s per iteration");
    Validate();
}

namespace
{
/**
 * The micro-batches of a step whose batch was given: globalBatch / (microBatchSize × dp),
 * exactly. \param st the step \param request the plan as requested \param p the plan (its
 * microBatches is set) \throws PlanError naming the field
 */
void
ExactMicroBatches(const TrainingStep& st, const ParallelismRequest& request, ParallelPlan& p)
{
    const double batch = st.globalBatch;
    if (batch != std::floor(batch) || batch < 1)
    {
        throw PlanError("globalBatch",
                        "the zoo's batch scaled to this job is " + std::to_string(batch) +
                            " sequences, not a whole number: give globalBatch");
    }
    const uint64_t b = static_cast<uint64_t>(batch);
    const uint64_t per = static_cast<uint64_t>(st.microBatchSize) * p.dp;
    if (b % per != 0)
    {
        throw PlanError(
            "microBatchSize",
            "globalBatch " + std::to_string(b) +
                " is not a multiple of microBatchSize x dp = " + std::to_string(st.microBatchSize) +
                " x " + std::to_string(p.dp) + " = " + std::to_string(per));
    }
    const uint64_t m = b / per;
    if (m > MAX_MICRO_BATCHES)
    {
        throw PlanError("globalBatch",
                        "globalBatch / (microBatchSize x dp) = " + std::to_string(m) +
                            " micro-batches, more than " + std::to_string(MAX_MICRO_BATCHES));
    }
    if (request.microBatches > 0 && request.microBatches != m)
    {
        throw PlanError("parallelism.microBatches",
                        std::to_string(request.microBatches) +
                            " contradicts globalBatch / (microBatchSize x dp) = " +
                            std::to_string(m) + " (omit it)");
    }
    p.microBatches = static_cast<uint32_t>(m);
}
} // namespace

void
DltJob::ApplyPlan(const ParallelismRequest& request)
{
    if (gpus.empty())
    {
        throw PlanError("parallelism", "the job has no GPUs");
    }
    const uint32_t perHost = TensorParallel();
    ParallelPlan p;
    if (step && step->exactBatch)
    {
        // the micro-batches follow from the batch: resolve the rest, then check them
        ParallelismRequest rest = request;
        rest.microBatches = 0;
        rest.virtualStages = 0;
        p = ResolvePlan(rest, model, NumGpus(), perHost);
        ExactMicroBatches(*step, request, p);
        p.virtualStages = request.virtualStages > 0 ? request.virtualStages : 1;
        CheckVirtualStages(model, p);
    }
    else
    {
        p = ResolvePlan(request, model, NumGpus(), perHost);
    }
    // buckets of one data-parallel group: the largest (first) stage's gradient share
    const double layers = model.IsTransformer() ? model.layers : 1;
    const double stageLayers = std::ceil(layers / p.pp);
    const double groupBytes = static_cast<double>(gradientBytes) * stageLayers / layers / p.tp;
    double bucket = model.BucketSize();
    if (step && model.bucketBytesPerDpRank > 0)
    {
        bucket = std::max(bucket, model.bucketBytesPerDpRank * p.dp); // Megatron's rule
    }
    // with virtual stages every model chunk has its own buckets (one DDP buffer per chunk)
    const double v = p.virtualStages;
    numBuckets = bucket > 0
                     ? static_cast<uint32_t>(v * std::max(1.0, std::ceil(groupBytes / v / bucket)))
                     : p.virtualStages;
    plan = p;
    NS_LOG_DEBUG("job " << id << ": plan " << p.ToString() << ", " << numBuckets
                        << " gradient buckets of " << bucket << " bytes at most");
    Validate();
}

double
DltJob::ComputeSpan() const
{
    if (!plan)
    {
        return computeTime;
    }
    const double m = plan->microBatches;
    if (plan->virtualStages > 1)
    {
        // interleaved 1F1B: the bubble shrinks to (p − 1)/v micro-batch times
        return computeTime * (m + (plan->pp - 1.0) / plan->virtualStages) / m;
    }
    return computeTime * (m + plan->pp - 1) / m;
}

std::vector<uint32_t>
DltJob::Hosts() const
{
    std::vector<uint32_t> hosts;
    std::set<uint32_t> seen;
    for (const auto& g : gpus)
    {
        if (seen.insert(g.host).second)
        {
            hosts.push_back(g.host);
        }
    }
    return hosts;
}

uint32_t
DltJob::NumGpus() const
{
    return gpus.size();
}

uint32_t
DltJob::DataParallel() const
{
    return Hosts().size();
}

uint32_t
DltJob::TensorParallel() const
{
    const uint32_t hosts = DataParallel();
    return hosts == 0 ? 0 : gpus.size() / hosts;
}

std::vector<GpuId>
DltJob::RailGpus(uint32_t rail) const
{
    const uint32_t tp = TensorParallel();
    if (rail >= tp)
    {
        throw std::out_of_range("job " + std::to_string(id) + ": rail " + std::to_string(rail) +
                                " >= " + std::to_string(tp) + " GPUs per host");
    }
    std::vector<GpuId> ring;
    for (uint32_t h : Hosts())
    {
        std::vector<uint32_t> local;
        for (const auto& g : gpus)
        {
            if (g.host == h)
            {
                local.push_back(g.localGpu);
            }
        }
        std::sort(local.begin(), local.end());
        GpuId id;
        id.host = h;
        id.localGpu = local.at(rail);
        ring.push_back(id);
    }
    return ring;
}

uint32_t
DltJob::FlowId(uint32_t rail, uint32_t rank) const
{
    return rail * DataParallel() + rank;
}

uint16_t
DltJob::UdpSrcPortOf(uint32_t flowId) const
{
    auto it = udpSrcPorts.find(flowId);
    return it == udpSrcPorts.end() ? 0 : it->second;
}

uint64_t
DltJob::RailBytes(uint32_t rail) const
{
    const uint32_t tp = TensorParallel();
    if (tp == 0)
    {
        return 0;
    }
    return SplitPart(gradientBytes, tp, rail);
}

uint64_t
DltJob::BucketBytes(uint32_t rail, uint32_t bucket) const
{
    if (numBuckets == 0)
    {
        throw std::invalid_argument("job " + std::to_string(id) + ": numBuckets must be >= 1");
    }
    return SplitPart(RailBytes(rail), numBuckets, bucket);
}

namespace
{
/**
 * The connections of one iteration of \p job kept by \p keep, as DltCommFlows in connection
 * (= flow id) order.
 * \param countOnly build a count-only DAG (inter-host connections only, O(connections) memory)
 */
template <typename Keep>
std::vector<DltCommFlow>
Pattern(const DltJob& job, bool countOnly, Keep keep)
{
    job.Validate();
    const std::vector<GpuId> ranks = TrainingIteration::RankGpus(job);
    CommDag dag(ranks, countOnly);
    TrainingIteration::Build(job, dag);
    dag.Finalize();
    const uint32_t perHost = job.TensorParallel();
    std::vector<DltCommFlow> flows;
    const auto& conns = dag.Connections();
    for (uint32_t id = 0; id < conns.size(); ++id)
    {
        if (!keep(conns[id]))
        {
            continue;
        }
        DltCommFlow f;
        f.flowId = id;
        f.src = ranks[conns[id].src];
        f.dst = ranks[conns[id].dst];
        f.rail = conns[id].src % perHost;
        f.rank = conns[id].src / perHost;
        f.bytesPerIteration = static_cast<double>(conns[id].bytes);
        flows.push_back(f);
    }
    return flows;
}
} // namespace

std::vector<DltCommFlow>
DltJob::CommunicationPattern() const
{
    return Pattern(*this, true, [](const CommDag::Connection& c) { return c.interHost; });
}

std::vector<DltCommFlow>
DltJob::IntraHostPattern() const
{
    // a full DAG: count-only mode skips collectives inside one host
    return Pattern(*this, false, [](const CommDag::Connection& c) {
        return !c.interHost && c.bytes > 0;
    });
}

} // namespace ns3
