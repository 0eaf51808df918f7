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

#ifndef CRUX_TRAINING_STEP_H
#define CRUX_TRAINING_STEP_H

// Pure C++ (no ns-3 includes): used by the scenario reader's callers, DltJob and the tests.

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct ModelSpec;

/**
 * \ingroup crux
 * \brief Activation recomputation (Megatron-LM's --recompute-granularity).
 */
enum class Recompute
{
    NONE,      //!< every activation is kept (model FLOPs = executed FLOPs)
    SELECTIVE, //!< the attention core (scores, softmax, attention over V) is recomputed
    FULL       //!< every transformer layer's forward runs again in the backward pass
};

/**
 * \ingroup crux
 * \brief The tensor-core number format the GEMMs run in.
 */
enum class Precision
{
    BF16, //!< bf16 (dense tensor-core rate)
    FP8   //!< FP8 (Transformer Engine; H100 and H200 only)
};

/// \return the scenario names of the recomputation choices, in enum order
inline const std::vector<std::string>&
RecomputeNames()
{
    static const std::vector<std::string> names{"none", "selective", "full"};
    return names;
}

/// \return the scenario names of the precisions, in enum order
inline const std::vector<std::string>&
PrecisionNames()
{
    static const std::vector<std::string> names{"bf16", "fp8"};
    return names;
}

/// \return the scenario names of the optimizers: "standard" (data-parallel all-reduce of the
/// gradients) and "distributed" (Megatron-LM's distributed optimizer)
inline const std::vector<std::string>&
OptimizerNames()
{
    static const std::vector<std::string> names{"standard", "distributed"};
    return names;
}

/**
 * \param names a name list \param name a name ("" = the first, the default)
 * \return its index, or -1 if unknown (header-only: the scenario reader checks the names)
 */
inline int
StepNameIndex(const std::vector<std::string>& names, const std::string& name)
{
    if (name.empty())
    {
        return 0;
    }
    for (size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

/**
 * \param name "none", "selective", "full"; "" = NONE
 * \param out the choice
 * \return false if the name is unknown
 */
inline bool
ParseRecompute(const std::string& name, Recompute& out)
{
    const int i = StepNameIndex(RecomputeNames(), name);
    if (i >= 0)
    {
        out = static_cast<Recompute>(i);
    }
    return i >= 0;
}

/**
 * \param name "bf16", "fp8"; "" = BF16
 * \param out the precision
 * \return false if the name is unknown
 */
inline bool
ParsePrecision(const std::string& name, Precision& out)
{
    const int i = StepNameIndex(PrecisionNames(), name);
    if (i >= 0)
    {
        out = static_cast<Precision>(i);
    }
    return i >= 0;
}

/**
 * \param name "standard" or "distributed"; "" = standard
 * \param distributed true for "distributed"
 * \return false if the name is unknown
 */
inline bool
ParseOptimizer(const std::string& name, bool& distributed)
{
    const int i = StepNameIndex(OptimizerNames(), name);
    if (i >= 0)
    {
        distributed = i == 1;
    }
    return i >= 0;
}

/// \return "none", "selective" or "full"
std::string ToString(Recompute recompute);

/// \return "bf16" or "fp8"
std::string ToString(Precision precision);

/**
 * \ingroup crux
 * \brief One GPU type: its peak dense tensor-core rates (vendor data sheets) and the fraction
 * of them a large Megatron-style training run achieves (published measurements). Sources in
 * training-step.cc.
 */
struct GpuSpec
{
    std::string name;        //!< catalog key, e.g. "h100-sxm"
    std::string description; //!< one line, human-readable
    double memoryBytes{0};   //!< HBM capacity, bytes (informational: memory is not modelled)
    double peakBf16{0};      //!< dense BF16 tensor-core peak, FLOP/s
    double peakFp8{0};       //!< dense FP8 tensor-core peak, FLOP/s (0 = the GPU has no FP8)
    /// Fraction of peakBf16 achieved on the FLOPs the GPU executes (recomputation included).
    double achievedBf16{0};
    double achievedFp8{0}; //!< fraction of peakFp8 achieved (0 = no FP8)

    /// \return true if the GPU has FP8 tensor cores
    bool HasFp8() const;

    /**
     * \param precision the GEMMs' format
     * \return achieved FLOP/s of one GPU: achieved fraction × peak
     * \throws std::invalid_argument for FP8 on a GPU without it
     */
    double AchievedFlops(Precision precision) const;
};

/**
 * \ingroup crux
 * \brief The GPU types a job can name ("a100-40gb", "a100-80gb", "h100-sxm", "h200-sxm").
 */
class GpuCatalog
{
  public:
    /**
     * \param name catalog key (case-sensitive)
     * \return the GPU's spec
     * \throws std::invalid_argument "unknown GPU 'x' (known: a, b)" if the name is unknown
     */
    static GpuSpec Get(const std::string& name);

    /// \return the known keys, sorted
    static std::vector<std::string> Names();

    /// \return true if name is a key
    static bool Has(const std::string& name);
};

/**
 * \ingroup crux
 * \brief A job's training step as a paper gives it (scenario fields of the job); 0 / "" = the
 * zoo's default.
 */
struct TrainingStepRequest
{
    uint32_t globalBatch{0};    //!< sequences per iteration of the whole job
    uint32_t microBatchSize{0}; //!< sequences per micro-batch
    uint32_t sequenceLength{0}; //!< tokens per sequence
    std::string gpu;            //!< GpuCatalog key ("" = the zoo's calibrated A100 rate)
    std::string precision;      //!< "bf16" / "fp8" ("" = bf16)
    std::string recompute;      //!< "none" / "selective" / "full" ("" = none)
    std::string optimizer;      //!< "standard" / "distributed" ("" = standard)

    /// \return true if no field is set (the job stays exactly as the zoo builds it)
    bool Empty() const;
};

/**
 * \ingroup crux
 * \brief A job's resolved training step (ResolveTrainingStep()).
 *
 * FLOP counts are per sequence and per iteration (forward + backward). computeTime of the job
 * = globalBatch × flopsPerSequence / (GPUs × flopsPerGpuSecond).
 */
struct TrainingStep
{
    double globalBatch{0};                //!< sequences per iteration of the whole job
    bool exactBatch{false};               //!< globalBatch or microBatchSize given: m must be exact
    uint32_t microBatchSize{1};           //!< sequences per micro-batch
    uint32_t sequenceLength{1};           //!< tokens per sequence
    std::string gpu;                      //!< GpuCatalog key; "" = the zoo's calibrated rate
    Precision precision{Precision::BF16}; //!< GEMM format
    Recompute recompute{Recompute::NONE}; //!< activation recomputation
    bool distributedOptimizer{false};     //!< reduce-scatter + all-gather instead of all-reduce
    double modelFlopsPerSequence{0};      //!< model FLOPs (no recomputation), FLOPs
    double flopsPerSequence{0};           //!< executed FLOPs (recomputation included), FLOPs
    double flopsPerGpuSecond{0};          //!< achieved rate of one GPU on executed FLOPs, FLOP/s
    /// Share of the compute time that is the forward pass (model FLOPs / 3 over executed).
    double forwardShare{1.0 / 3.0};
    /// Share of the compute time that is recomputation (executed − model FLOPs over executed).
    double recomputeShare{0};

    /// \return a one-line description, e.g. "1536 x 2048 tokens, mbs 1, h100-sxm bf16, ..."
    std::string ToString() const;
};

/**
 * \brief Training FLOPs of one sequence of a transformer model with the given recomputation.
 *
 * Without recomputation (Megatron's model FLOPs, Narayanan et al. SC'21 App. A): the zoo's
 * count rescaled to \p seq tokens: seq × (dense FLOPs per token) + A × seq², with A =
 * ModelSpec::attentionScoreFlops. Full recomputation adds one forward pass of the layers (not
 * of the output projection 6·V·h per token): F + (F − 6·V·h·seq)/3, which for GPT-3 shapes is
 * SC'21's 96·s·l·h²·(1 + s/6h + V/(16·l·h)). Selective recomputation adds the attention-score
 * term 12·l·h·seq² once more: Korthikanti et al. 2022's hardware FLOPs 72·s·l·h²·(1 + s/3h +
 * V/(12·l·h)) for GPT-3 shapes (sources in training-step.cc).
 * \param model a transformer model (ModelSpec::IsTransformer())
 * \param seq tokens per sequence (>= 1)
 * \param recompute the recomputation
 * \return FLOPs (forward + backward) of one sequence
 * \throws std::invalid_argument if the model has no transformer layers or seq is 0
 */
double TrainingFlopsPerSequence(const ModelSpec& model, uint32_t seq, Recompute recompute);

/**
 * \brief The attention share of a layer's forward FLOPs at another sequence length.
 *
 * ModelSpec::attentionFraction holds it at the zoo's sequence length: attention = 2 × the
 * Q, K, V, O projection parameters + 4·s·h per token, the MLP the rest; the MLP part is kept
 * and the score term rescaled to \p seq.
 * \param model the model \param seq tokens per sequence
 * \return the share in (0, 1) (the model's own value for a model without transformer layers)
 */
double AttentionFractionAt(const ModelSpec& model, uint32_t seq);

/**
 * \brief Resolve a job's training step against its model and GPU count.
 *
 * Defaults: globalBatch the zoo's weak-scaled batch (ModelSpec::SamplesPerIteration), micro-
 * batch size and sequence length the zoo's, no GPU (the zoo's calibrated rate:
 * ModelSpec::AchievedFlopsPerGpu(), counted as executed FLOPs without recomputation), bf16, no
 * recomputation, the standard optimizer.
 * \param req the request (not Empty())
 * \param model the job's zoo model
 * \param numGpus the job's GPUs
 * \return the step
 * \throws PlanError naming the field (relative to the job): "sequenceLength" or "recompute"
 *         on a model without transformer layers, "gpu" unknown, "precision" fp8 on a GPU
 *         without FP8 or without a gpu, an unknown "recompute", "precision" or "optimizer"
 */
TrainingStep ResolveTrainingStep(const TrainingStepRequest& req,
                                 const ModelSpec& model,
                                 uint32_t numGpus);

} // namespace ns3

#endif // CRUX_TRAINING_STEP_H
