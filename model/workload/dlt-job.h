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

#ifndef CRUX_DLT_JOB_H
#define CRUX_DLT_JOB_H

#include "model-zoo.h"
#include "nccl-model.h"
#include "parallel-plan.h"
#include "training-step.h"

#include "ns3/message-transport.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class ChakraTrace;

/**
 * \ingroup crux
 * \brief One inter-host connection of a job's per-iteration communication pattern.
 *
 * Produced by DltJob::CommunicationPattern(); MakeSchedJob() turns it into the scheduler's
 * SchedFlow list (ClusterModel), which also predicts per-link bytes.
 */
struct DltCommFlow
{
    uint32_t flowId{0};          //!< job-local flow id (= MessageRequest::flowId)
    GpuId src;                   //!< sending GPU
    GpuId dst;                   //!< receiving GPU
    uint32_t rail{0};            //!< position of src among its host's GPUs of the job (by index)
    uint32_t rank{0};            //!< position of src's host in the job (= its ring rank without
                                 //!< a plan)
    double bytesPerIteration{0}; //!< bytes sent src → dst per iteration (exact integer value)
};

/**
 * \ingroup crux
 * \brief Plain description of a DLT job: model, GPUs, parallelism, timing and network knobs.
 *
 * Parallelism plan: the job uses the same number G of GPUs on each of its H hosts.
 * TensorParallel() = G (TP stays inside a host, over NVLink, not modelled as traffic) and
 * DataParallel() = H. Gradients are all-reduced per iteration on G parallel rings ("rails"):
 * ring g links the g-th GPU (in localGpu order) of every host, hosts in the order they first
 * appear in gpus. Each rail carries gradientBytes / G: for a TP-sharded model each TP rank owns
 * 1/G of the gradients; for a purely data-parallel model this is the inter-host part of a
 * hierarchical all-reduce (an intra-host reduce-scatter over NVLink leaves 1/G of the gradient
 * on every GPU, then one inter-host ring per rail), so the inter-host pattern is the same.
 *
 * Iteration timeline (DltJobApplication): forward overlapStart × computeTime; backward releases
 * numBuckets gradient buckets evenly over the rest of the compute; bucket all-reduces run one
 * after the other; the iteration ends when compute and every bucket's all-reduce are done.
 *
 * With a parallelism **plan** (ApplyPlan(), ParallelPlan) the job instead runs tensor, pipeline,
 * data and expert parallelism with the collectives the plan names (TrainingIteration);
 * numBuckets is then the number of gradient buckets of each data-parallel group, and
 * computeTime stays the compute one GPU does per iteration (the pipeline bubble comes on top).
 * Without a plan the job behaves exactly as described above.
 */
struct DltJob
{
    uint32_t id{0};                 //!< job id, unique in the run (MessageRequest::jobId)
    std::string modelName;          //!< model zoo key (informational once model is filled)
    ModelSpec model;                //!< the model's numbers
    std::vector<GpuId> gpus;        //!< the job's GPUs (non-empty, no duplicates)
    double computeTime{0};          //!< computation per iteration, seconds (>= 0)
    double flopsPerIteration{0};    //!< W_j: FLOPs the whole job computes per iteration (>= 0)
    uint64_t gradientBytes{0};      //!< bytes of one replica's gradients all-reduced per iteration
    double overlapStart{1.0 / 3.0}; //!< forward fraction of computeTime (0..1)
    uint32_t numBuckets{1};         //!< gradient buckets per iteration (>= 1)
    double startTime{0};            //!< simulation time of the first iteration, seconds (>= 0)
    uint32_t iterations{1};         //!< iterations to run (0 = until the application stops)
    uint8_t dscp{0};                //!< DSCP of all the job's messages (0..63; 8 × priority level)
    /// UDP source port per flow id (ECMP steering), filled by the scheduler helper. Flows not
    /// in the map use 0 = the transport's default.
    std::map<uint32_t, uint16_t> udpSrcPorts;
    /// Without a plan, a single-host job (DataParallel() == 1) all-reduces its gradients
    /// (gradientBytes per iteration, in numBuckets buckets) as one ring of its GPUs over NVLink
    /// when true; when false (default) its gradients are reduced for free (no traffic), as
    /// before. crux-experiment sets it when the topology has intra-host links
    /// (topology.intraHost), so that such a job has traffic and a finite t_j (Crux Definition 2).
    bool intraHostAllReduce{false};
    /// The parallelism plan; empty = crux's data-parallel ring per rail (see above).
    std::optional<ParallelPlan> plan;
    /// How the job's collectives run (NCCL channels, protocol, the hardware NCCL's cost model
    /// sees; collectives.h): given to every DAG of the job (TrainingIteration::Build()).
    /// The drivers fill the hardware from the cluster and channels/protocol from the
    /// scenario's "collectives" object.
    CollectiveConfig collectives;
    /// The training step as a paper gives it (ApplyStep()); empty = the zoo's defaults.
    std::optional<TrainingStep> step;
    /// A Chakra execution trace the job runs instead (FromChakra(); rank r = the r-th GPU of
    /// TrainingIteration::RankGpus()); null = none. Shared, read-only: copies of the job (the
    /// runs of an experiment) share one trace.
    std::shared_ptr<const ChakraTrace> chakra;

    /**
     * \brief Build a job from a zoo model with the zoo's defaults (weak scaling, see ModelSpec).
     * \param id job id
     * \param modelName zoo key
     * \param gpus the job's GPUs
     * \return job with model, computeTime, flopsPerIteration (for gpus.size() GPUs),
     *         gradientBytes, overlapStart and numBuckets from the zoo; startTime 0, 1 iteration
     * \throws std::invalid_argument for an unknown model or an invalid GPU set (see Validate)
     */
    static DltJob FromModel(uint32_t id,
                            const std::string& modelName,
                            const std::vector<GpuId>& gpus);

    /**
     * \brief Build a job that runs a Chakra execution trace (ChakraTrace) each iteration.
     * \param id job id
     * \param trace the trace (NumRanks() = gpus.size())
     * \param gpus the job's GPUs (rank r = the r-th GPU of TrainingIteration::RankGpus())
     * \return job with modelName "chakra", computeTime = trace.ComputeTime(), flopsPerIteration
     *         = trace.FlopsPerIteration() (W_j), gradientBytes 0, numBuckets 1 (the
     *         iteration's communication span is the one "bucket" of the AllReduceComplete
     *         trace), overlapStart = trace.FirstCommStart() / computeTime (0
     *         without compute; the scheduler's view of when communication can start); startTime
     *         0, 1 iteration
     * \throws std::invalid_argument for an invalid GPU set or a rank count other than the GPUs
     */
    static DltJob FromChakra(uint32_t id,
                             std::shared_ptr<const ChakraTrace> trace,
                             const std::vector<GpuId>& gpus);

    /**
     * \brief Give the job a training step (ResolveTrainingStep(); call before ApplyPlan()).
     *
     * The job's model copy becomes the model as this job trains it: sequenceLength,
     * microBatchSize, flopsPerSample (executed FLOPs per sequence, recomputation included),
     * attentionFraction at that length, and with a given globalBatch globalBatch = it and
     * referenceGpus = the job's GPUs. computeTime = globalBatch × flopsPerSequence / (GPUs ×
     * flopsPerGpuSecond), flopsPerIteration = globalBatch × flopsPerSequence, overlapStart = the
     * forward share. An Empty() request changes nothing.
     * \param request the fields as given
     * \throws PlanError naming the field (see ResolveTrainingStep())
     */
    void ApplyStep(const TrainingStepRequest& request);

    /**
     * \brief Give the job a parallelism plan: ResolvePlan() on the job's model, GPUs and GPUs per
     * host; numBuckets becomes the gradient buckets of one data-parallel group: ceil(the largest
     * group's gradient bytes / bucket size), at least 1 per virtual stage (a multiple of
     * virtualStages); the bucket size is ModelSpec::BucketSize(), with a training step at least
     * ModelSpec::bucketBytesPerDpRank × dp (Megatron's rule). With a training step whose batch
     * was given (TrainingStep::exactBatch) the micro-batches are exactly globalBatch /
     * (microBatchSize × dp).
     * \param request the plan as requested (0 / "" fields take their defaults)
     * \throws PlanError naming the field if the plan is inconsistent with the model or the GPUs,
     *         "microBatchSize" if microBatchSize × dp does not divide the batch, "globalBatch"
     *         if the batch is not a whole number of sequences or gives more than
     *         MAX_MICRO_BATCHES micro-batches, "parallelism.microBatches" if given and
     *         different, "parallelism.virtualStages" (CheckVirtualStages())
     */
    void ApplyPlan(const ParallelismRequest& request);

    /**
     * \brief Check the description.
     * \throws std::invalid_argument naming the job id and the field: empty or duplicate gpus,
     *         unequal GPU counts per host, negative times or FLOPs, overlapStart outside [0,1],
     *         numBuckets 0, dscp > 63, a plan whose tp × pp × dp is not the GPU count, a
     *         Chakra trace with another rank count or together with a plan
     */
    void Validate() const;

    /**
     * \return the compute span of one iteration without communication, seconds: computeTime,
     *         × (m + p − 1) / m with a plan of p stages and m micro-batches (the 1F1B bubble),
     *         × (m + (p − 1)/v) / m with v virtual stages (interleaved 1F1B)
     */
    double ComputeSpan() const;

    /// \return the job's hosts in ring order (order of first appearance in gpus)
    std::vector<uint32_t> Hosts() const;
    /// \return number of GPUs
    uint32_t NumGpus() const;
    /// \return GPUs per host used by the job (the TP degree / number of rails); 0 if no GPUs
    uint32_t TensorParallel() const;
    /// \return number of hosts (the DP degree = ring size)
    uint32_t DataParallel() const;

    /**
     * \param rail ring index 0..TensorParallel()-1
     * \return the ring's members, rank order: element r = the rail-th GPU (by localGpu) of
     *         Hosts()[r]
     * \throws std::out_of_range if rail is too large
     */
    std::vector<GpuId> RailGpus(uint32_t rail) const;

    /// \return flow id of the connection rank → rank+1 of a rail: rail × DataParallel() + rank
    uint32_t FlowId(uint32_t rail, uint32_t rank) const;

    /// \return UDP source port of a flow (0 = transport default if not in udpSrcPorts)
    uint16_t UdpSrcPortOf(uint32_t flowId) const;

    /**
     * \param rail ring index
     * \return gradient bytes the rail all-reduces per iteration: gradientBytes split into
     *         TensorParallel() parts, the first (gradientBytes mod G) parts one byte larger
     */
    uint64_t RailBytes(uint32_t rail) const;

    /**
     * \param rail ring index
     * \param bucket bucket index 0..numBuckets-1
     * \return bytes of that bucket on that rail (RailBytes split into numBuckets parts alike)
     */
    uint64_t BucketBytes(uint32_t rail, uint32_t bucket) const;

    /**
     * \brief The job's per-iteration inter-host traffic: every inter-host connection of the
     * iteration TrainingIteration builds, with exactly the bytes it sends on it.
     *
     * Without a plan: one flow per (rail, rank), flow id rail × DataParallel() + rank:
     * TensorParallel() × DataParallel() flows when DataParallel() > 1, none otherwise
     * (single-host jobs use NVLink only), each ≈ 2(N−1)/N × gradientBytes / G per iteration.
     * With a plan: every inter-host connection of its TP, PP, DP and EP traffic (flow ids 0, 1,
     * ... in order of first use; intra-host connections, NVLink, are not listed).
     * \return flows ordered by flow id
     * \throws std::invalid_argument if Validate() fails
     */
    std::vector<DltCommFlow> CommunicationPattern() const;

    /**
     * \brief The job's per-iteration intra-host traffic: every connection between two GPUs of
     * one host of the iteration TrainingIteration builds (a plan's TP traffic, the ring of a
     * single-host job with intraHostAllReduce), with exactly the bytes it sends; flow ids follow
     * the inter-host ones (CommDag numbering). rail and rank are those of the source GPU.
     * \return flows ordered by flow id (empty if the job has no intra-host traffic)
     * \throws std::invalid_argument if Validate() fails
     */
    std::vector<DltCommFlow> IntraHostPattern() const;
};

} // namespace ns3

#endif // CRUX_DLT_JOB_H
