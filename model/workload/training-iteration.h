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

#ifndef CRUX_TRAINING_ITERATION_H
#define CRUX_TRAINING_ITERATION_H

// No Simulator calls: builds the CommDag of one training iteration; DltJobApplication runs it.

#include "comm-dag.h"
#include "dlt-job.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Labels of an iteration DAG's barrier nodes (CommDagLabel::kind).
 *
 * Every gradient bucket b has BUCKET_START and BUCKET_END labels with index b: one of each
 * for a job without a plan, one per member of each data-parallel group with a plan. The
 * bucket's all-reduce runs from the earliest START to the latest END
 * (DltJobApplication "AllReduceComplete").
 */
enum TrainingIterationLabel : uint32_t
{
    BUCKET_START = 1, //!< a (member's) all-reduce of bucket `index` may start
    BUCKET_END = 2    //!< a (member's) all-reduce of bucket `index` is complete
};

/**
 * \ingroup crux
 * \brief Builds one training iteration of a DltJob as a CommDag of compute delays and messages
 * (the collectives of collectives.h), with the job's real dependencies.
 *
 * **Without a plan** (DltJob::plan empty: crux's data-parallel pattern), c = computeTime,
 * f = overlapStart × c, B = numBuckets:
 *  - bucket b is released at f + (b+1)(c − f)/B (the last one at c), compute ends at c;
 *  - bucket b's all-reduce starts when it is released and bucket b−1's has finished (one
 *    bucket at a time, in order, as on one NCCL stream): a ring all-reduce over the hosts per
 *    rail (DltJob::RailGpus(), DltJob::BucketBytes()), all rails in parallel; a single-host job
 *    sends nothing (the bucket completes one event later);
 *  - the iteration ends when the compute and every bucket are done.
 *
 * **With a plan** (DltJob::plan, ParallelPlan), ranks as ParallelPlan says, m micro-batches,
 * p stages, stage s holding L_s of the model's L layers (the first L mod p stages one more), cut
 * into blocks of layersPerBlock layers:
 *  - compute of one micro-batch on stage s: forward overlapStart × c × (p L_s / L) / m, backward
 *    the rest; inside a layer the attention part is attentionFraction of it (ModelSpec), the
 *    MLP (experts) part the rest; the GPUs of a TP group compute in lockstep (one delay node);
 *  - 1F1B schedule per stage (PipeDream-flush, Megatron's non-interleaved schedule): p − s − 1
 *    warm-up forwards, then one forward / one backward alternating, then the remaining
 *    backwards; every compute step waits for the previous one of its stage;
 *  - with v = virtualStages > 1, Megatron's interleaved schedule: stage s holds v chunks of
 *    L/(p v) layers (chunk j = virtual stage j p + s; the last stage's chunk j feeds the first
 *    stage's chunk j + 1), micro-batches in groups of p through chunk 0..v−1 in turn (backward
 *    the other way round), 2(p − s − 1) + (v − 1) p warm-up forwards; each chunk releases its
 *    own buckets during its last backward pass;
 *  - with a training step (DltJob::step) of full recomputation, each block's backward pass
 *    starts with its forward pass again (compute recomputeShare × c × share, the TP collectives
 *    and EP all-to-alls of a forward block);
 *  - TP (tp > 1): per block, after the attention and after the MLP, an all-reduce of the
 *    block's activations (tokens × hidden × bytesPerActivation per layer) among the TP group in
 *    the forward pass, and after the MLP and after the attention in the backward pass (Megatron
 *    mappings.py); with sequenceParallel, an all-gather before and a reduce-scatter after each
 *    of the two parts instead (the same ring volume); on NVLink within a host, over the network
 *    when the TP group spans hosts;
 *  - PP (p > 1): after a micro-batch's forward on stage s each TP rank sends its 1/tp share of
 *    the boundary activations (tokens × hidden × bytes / tp: the sequence shard with sequence
 *    parallelism; without it Megatron's scatter/gather optimization, Narayanan et al. SC'21
 *    §4.1, followed by an all-gather of the full tensor inside the receiving TP group) to the
 *    same TP rank of stage s+1, which starts that micro-batch's forward when all shards have
 *    arrived (and been gathered); gradients go back alike after the backward; sends are
 *    asynchronous (the sender goes on computing);
 *  - EP (MoE, ep > 1): in every block of every micro-batch, between the attention and the
 *    experts, a dispatch all-to-all and after the experts a combine all-to-all among the ep
 *    replicas of the expert-parallel group (per TP rank, tokens / tp × topK × hidden × bytes per
 *    rank, of which (ep−1)/ep leave it), and the same two in the backward pass;
 *  - DP (dp > 1): during the last micro-batch's backward the stage's gradients (gradientBytes ×
 *    L_s / L / tp; for MoE the expert part / ep on the expert-data-parallel group) are released
 *    in numBuckets buckets as the backward compute passes (b+1)/numBuckets of it; bucket b's
 *    all-reduce (plan.allReduce) over the (TP rank, stage) group starts at a member when the
 *    bucket is released there and the member's bucket b−1 is done; with the distributed
 *    optimizer (TrainingStep::distributedOptimizer) a ring reduce-scatter instead, and the
 *    bucket's bf16 parameters are ring all-gathered in the first forward pass of its stage
 *    (chunk): the first bucket when that pass starts, each next one when the pass waits for the
 *    previous one, a block waiting for the buckets holding its layers;
 *  - the iteration ends when every node is done.
 *
 * **A Chakra job** (DltJob::chakra) runs its trace: ChakraTrace::Build() (one iteration = the
 * trace's graph once).
 */
class TrainingIteration
{
  public:
    /**
     * \brief The job's GPUs in rank order: hosts in order of first appearance in job.gpus, each
     * host's GPUs by local index. Rank r of a job with G GPUs per host is GPU r mod G (in that
     * order) of host r / G.
     * \param job the job
     * \return the GPUs, indexed by rank
     */
    static std::vector<GpuId> RankGpus(const DltJob& job);

    /**
     * \brief Add one iteration of the job to a DAG made with the job's RankGpus().
     * \param job the job (validated; as run: attribute overrides applied)
     * \param dag the DAG (empty, possibly count-only); its collective configuration becomes
     *        the job's (DltJob::collectives)
     * \throws std::invalid_argument if the job is invalid
     */
    static void Build(const DltJob& job, CommDag& dag);
};

} // namespace ns3

#endif // CRUX_TRAINING_ITERATION_H
