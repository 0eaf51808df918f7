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

#ifndef CRUX_MODEL_ZOO_H
#define CRUX_MODEL_ZOO_H

// Pure C++ (no ns-3 includes): usable by the scenario reader and by the pure scheduling layer.

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Published and calibrated numbers of one DLT model (DESIGN.md "Workload").
 *
 * Scaling rule (weak scaling in the data-parallel degree): every GPU of a job does the same
 * work per iteration whatever the job's size, i.e. the global batch grows with the GPU count.
 * Hence computeTime (seconds per iteration) does not depend on the GPU count and the FLOPs per
 * iteration of a job are proportional to its GPU count: W_j(n) = flopsPerSample ×
 * globalBatch × n / referenceGpus. Every number's source is given in model-zoo.cc.
 */
struct ModelSpec
{
    std::string name;            //!< zoo key, e.g. "gpt"
    std::string description;     //!< one line, human-readable
    double parameters{0};        //!< trainable parameters (count)
    double bytesPerParameter{2}; //!< bytes of one gradient element on the wire (2 = fp16/bf16)
    /// Training FLOPs (forward + backward) per sample: 6 × parameters × tokens for transformers
    /// (Kaplan et al. 2020), 3 × forward FLOPs for convolutional nets. Unit: FLOPs.
    double flopsPerSample{0};
    uint32_t sequenceLength{1}; //!< tokens per sample (1 for image models)
    uint32_t globalBatch{0};    //!< samples per iteration of a job of referenceGpus GPUs
    uint32_t referenceGpus{1};  //!< GPU count the batch and computeTime refer to
    /// Compute time of one iteration (forward + backward + optimizer) on A100 GPUs, seconds,
    /// communication excluded. The calibrated knob (see model-zoo.cc), overridable per job.
    double computeTime{0};
    /// Fraction of computeTime spent in the forward pass (0..1): gradients exist only after it.
    /// Backward ≈ 2 × forward (Kaplan et al. 2020: 2N forward + 4N backward FLOPs per token), so
    /// 1/3 unless stated otherwise.
    double overlapStart{1.0 / 3.0};
    uint32_t tensorParallel{1}; //!< TP degree the model is trained with (stays inside a host)
    /// Gradient buckets all-reduced per iteration (>= 1); 1 = one all-reduce after the backward
    /// pass (no overlap of communication with computation).
    uint32_t numBuckets{1};

    // ---- transformer shape, for parallelism plans (parallel-plan.h); layers 0 = the model
    // ---- has no transformer layers and runs data-parallel only
    uint32_t layers{0};         //!< transformer layers (decoder blocks)
    uint32_t hidden{0};         //!< hidden size h (d_model)
    uint32_t heads{0};          //!< attention heads (TP must divide it)
    uint32_t kvHeads{0};        //!< key/value heads (grouped-query attention; = heads if MHA)
    uint32_t ffnHidden{0};      //!< MLP (one expert's) inner size
    uint32_t vocab{0};          //!< vocabulary size
    uint32_t experts{0};        //!< MoE experts per layer (0 = dense)
    uint32_t topK{0};           //!< experts each token is routed to (MoE)
    double expertParameters{0}; //!< parameters inside the experts, all layers (MoE)
    /// Share of a layer's FLOPs spent before its MLP (QKV/output projections and attention
    /// scores); the rest is the MLP (the routed experts for MoE).
    double attentionFraction{0.5};
    double bytesPerActivation{2}; //!< bytes of one activation element on the wire (bf16)
    uint32_t microBatchSize{1};   //!< sequences per micro-batch of the default plan
    uint32_t pipelineParallel{1}; //!< PP degree of the default plan
    uint32_t expertParallel{1};   //!< EP degree of the default plan (MoE)
    /// Gradient bucket size in bytes for parallelism plans (0 = GradientBytes() / numBuckets).
    double bucketBytes{0};
    /// Training FLOPs of the attention scores per sequence, as the coefficient of s² inside
    /// flopsPerSample (12·l·h for the LLMs: QKᵀ and AV forward and backward); 0 where
    /// flopsPerSample neglects them ("gpt", "bert-large": Kaplan's 6N). Used to rescale the
    /// FLOPs to another sequence length (TrainingFlopsPerSequence()).
    double attentionScoreFlops{0};
    /// Megatron-LM's DDP bucket grows with the data-parallel size: max(bucketBytes,
    /// bucketBytesPerDpRank × dp) (distributed_data_parallel.py: max(40 M, 1 M × dp)
    /// parameters); 0 = fixed bucketBytes. Applied to jobs with a training step (DltJob::step).
    double bucketBytesPerDpRank{0};

    /// \return gradient bytes all-reduced per iteration by a whole replica:
    ///         round(parameters × bytesPerParameter), bytes
    uint64_t GradientBytes() const;

    /**
     * \param numGpus GPUs of the job (>= 1)
     * \return W_j, FLOPs the whole job computes per iteration (weak scaling, see class doc)
     * \throws std::invalid_argument if numGpus is 0
     */
    double FlopsPerIteration(uint32_t numGpus) const;

    /// \return achieved FLOP/s of one GPU while computing: W_j(n) / (n × computeTime), FLOP/s
    double AchievedFlopsPerGpu() const;

    /**
     * \param numGpus GPUs of the job (>= 1)
     * \return samples (sequences) the whole job processes per iteration: globalBatch × numGpus
     *         / referenceGpus (weak scaling)
     */
    double SamplesPerIteration(uint32_t numGpus) const;

    /// \return the gradient bucket size in bytes: bucketBytes, or GradientBytes() / numBuckets
    double BucketSize() const;

    /// \return true if the model has transformer layers (parallelism plans beyond DP apply)
    bool IsTransformer() const;

    /// \return true for a mixture-of-experts model (experts > 0)
    bool IsMoe() const;
};

/**
 * \ingroup crux
 * \brief The model zoo: named ModelSpecs with documented sources ("gpt", "bert-large",
 * "resnet50", for the trace-driven runs "nmt-transformer-big", "multi-interests", "ctr-dlrm",
 * and the LLMs "gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b", "llama-7b",
 * "llama-13b", "llama-33b", "llama-65b", "llama2-7b", "llama2-13b", "llama2-70b",
 * "mixtral-8x7b", and for the validation suite "megatron-1.7b", "megatron-7.1b", "megatron-177b").
 */
class ModelZoo
{
  public:
    /// A100 dense fp16/bf16 Tensor Core peak, FLOP/s (NVIDIA A100 datasheet: 312 TFLOPS).
    static constexpr double A100_PEAK_FLOPS = 312e12;

    /**
     * \param name zoo key (case-sensitive)
     * \return the model's spec
     * \throws std::invalid_argument "unknown model 'x' (known: a, b, c)" if name is unknown
     */
    static ModelSpec Get(const std::string& name);

    /// \return the known zoo keys, sorted
    static std::vector<std::string> Names();

    /// \return true if name is a zoo key
    static bool Has(const std::string& name);
};

} // namespace ns3

#endif // CRUX_MODEL_ZOO_H
