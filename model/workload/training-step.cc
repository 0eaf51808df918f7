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

#include "training-step.h"

#include "model-zoo.h"
#include "parallel-plan.h"

#include "ns3/log.h"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTrainingStep");

/*
 * Sources.
 *  [A100DS] NVIDIA A100 Tensor Core GPU data sheet: BF16 tensor core 312 TFLOPS (624 with
 *           sparsity); A100 40GB (HBM2) and A100 80GB (HBM2e); no FP8.
 *  [H100DS] NVIDIA H100 Tensor Core GPU data sheet, H100 SXM: BF16 tensor core 1,979 TFLOPS and
 *           FP8 3,958 TFLOPS, both "with sparsity" (the footnote: dense is one half); 80 GB.
 *           The dense values 989.4 and 1,978.9 TFLOPS are the H100 architecture white paper's
 *           (as quoted in glennklockwood.com/garden/processors/h100 [S]).
 *  [H200DS] NVIDIA H200 Tensor Core GPU data sheet, H200 SXM: BF16 1,979 and FP8 3,958 TFLOPS
 *           with sparsity, as the H100 SXM (the same GH100 compute), 141 GB HBM3e.
 *  [MEGHFU] Megatron-LM README @841f789f48 (numbers of Korthikanti et al., "Reducing Activation
 *           Recomputation in Large Transformer Models", arXiv 2205.05198): GPT-3 175B on A100
 *           80GB (Selene), sequence parallelism + selective recomputation, data-parallel size
 *           1: MFU 51.4 %, HFU 52.8 %; also 22B 41.5/43.7, 530B 56.0/57.0, 1T 56.3/57.0 %.
 *  [LLAMA3] Dubey et al. 2024, "The Llama 3 Herd of Models" (arXiv 2407.21783), Table 4, as
 *           quoted in glennklockwood.com/garden/llama-3.1 [S] (Balaji, SC'24): Llama 3 405B in
 *           BF16 on 8,192 H100 (TP 8, CP 1, PP 16, 16 M tokens per batch): 430 TFLOP/s per GPU
 *           (16,384 GPUs: 400; 16,384 with CP 16: 380; "38-43 % BF16 MFU").
 *  [MBPERF] NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @00b7660be025, NeMo 25.11
 *           container, DGX-H100: Llama 3.1 405B, 1,024 H100, FP8 (current scaling), GBS 512,
 *           MBS 1, seq 8192, TP 8, PP 8, CP 2, VP 8: 737 model TFLOP/s per GPU.
 *  [SC21]   Narayanan et al., SC'21, Appendix (workloads-fabric-facts.md §6): with full
 *           recomputation F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)); without:
 *           72·B·s·l·h²·(1 + s/(6h)) + 6·B·s·h·V (model FLOPs; Megatron-LM's
 *           num_floating_point_operations counts the same terms: 3 GEMM passes, forward and
 *           backward, no recomputation).
 *  [KORTH]  Korthikanti et al. 2022 count selective recomputation as hardware FLOPs
 *           72·B·s·l·h²·(1 + s/(3h) + V/(12·l·h)): the attention-score term s/(6h) twice. Not
 *           read in the paper's text here; the formula reproduces every MFU/HFU pair of
 *           [MEGHFU] (seq 2048, V 51200; 22B h 6144 l 48: 41.5 → 43.65; 175B: 51.4 → 52.78;
 *           530B h 20480 l 105: 56.0 → 56.92; 1T h 25600 l 128: 56.3 → 57.04 %) [Calc], while
 *           one extra forward of the scores only (4·B·s²·h per layer) would give 41.8 / 51.6 /
 *           56.1 / 56.5 %.
 *
 * Achieved fractions (of the dense peak, on the FLOPs the GPU executes):
 *  - A100 80GB: 0.528, the HFU of [MEGHFU] (175B, selective recomputation: executed FLOPs).
 *  - A100 40GB: 0.528, ASSUMPTION: the same chip and tensor-core peak as the 80 GB part (no
 *    published Megatron MFU on the 40 GB part found; its HBM2 is 1.6 vs 2.0 TB/s).
 *  - H100 SXM, BF16: 430 / 989.4 = 0.4346 ([LLAMA3], 8,192 GPUs). The paper's recomputation is
 *    not stated: its MFU is taken as executed FLOPs (ASSUMPTION).
 *  - H100 SXM, FP8: 737 / 1978.9 = 0.3724 ([MBPERF]); recomputation not stated (ASSUMPTION as
 *    above).
 *  - H200 SXM: the H100 SXM fractions, ASSUMPTION (no public Megatron training MFU on H200
 *    found; the same GH100 compute and peaks, more and faster memory).
 * These are end-to-end figures of large runs (their exposed communication and bubbles
 * included); crux uses them as the compute-only rate and simulates the communication on top,
 * as it does with the zoo's rates (model-zoo.cc). Megatron-LM's own H100 table
 * (images/model_table.png) is deliberately not used here: it is a validation target
 * (validation-sources.md), and a target must not set a model constant.
 */

namespace
{

const std::map<std::string, GpuSpec>&
Catalog()
{
    static const std::map<std::string, GpuSpec> catalog = [] {
        std::map<std::string, GpuSpec> c;
        const double gib = 1024.0 * 1024 * 1024;
        GpuSpec a40;
        a40.name = "a100-40gb";
        a40.description = "NVIDIA A100 SXM 40GB (HBM2)";
        a40.memoryBytes = 40 * gib;
        a40.peakBf16 = 312e12;    // [A100DS]
        a40.achievedBf16 = 0.528; // ASSUMPTION: as the 80 GB part
        c[a40.name] = a40;
        GpuSpec a80 = a40;
        a80.name = "a100-80gb";
        a80.description = "NVIDIA A100 SXM 80GB (HBM2e)";
        a80.memoryBytes = 80 * gib;
        a80.achievedBf16 = 0.528; // [MEGHFU] HFU
        c[a80.name] = a80;
        GpuSpec h100;
        h100.name = "h100-sxm";
        h100.description = "NVIDIA H100 SXM 80GB (HBM3)";
        h100.memoryBytes = 80 * gib;
        h100.peakBf16 = 989.4e12;              // [H100DS] dense
        h100.peakFp8 = 1978.9e12;              // [H100DS] dense
        h100.achievedBf16 = 430e12 / 989.4e12; // [LLAMA3]
        h100.achievedFp8 = 737e12 / 1978.9e12; // [MBPERF]
        c[h100.name] = h100;
        GpuSpec h200 = h100; // [H200DS]: the H100 SXM's peaks; fractions: ASSUMPTION
        h200.name = "h200-sxm";
        h200.description = "NVIDIA H200 SXM 141GB (HBM3e)";
        h200.memoryBytes = 141e9;
        c[h200.name] = h200;
        return c;
    }();
    return catalog;
}

std::string
Join(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
    {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

/// Forward FLOPs per token of one layer's attention part at sequence length s (per the zoo's
/// count: 2 × the Q, K, V, O projection parameters + 4·s·h for the scores).
double
AttentionForwardPerToken(const ModelSpec& m, double s)
{
    const double h = m.hidden;
    const double kv = m.heads > 0 ? h / m.heads * (m.kvHeads > 0 ? m.kvHeads : m.heads) : h;
    return 2 * (2 * h * h + 2 * h * kv) + 4 * s * h;
}

} // namespace

std::string
ToString(Recompute recompute)
{
    return RecomputeNames().at(static_cast<size_t>(recompute));
}

std::string
ToString(Precision precision)
{
    return PrecisionNames().at(static_cast<size_t>(precision));
}

bool
GpuSpec::HasFp8() const
{
    return peakFp8 > 0 && achievedFp8 > 0;
}

double
GpuSpec::AchievedFlops(Precision precision) const
{
    if (precision == Precision::FP8)
    {
        if (!HasFp8())
        {
            throw std::invalid_argument("GPU '" + name + "' has no FP8 tensor cores");
        }
        return achievedFp8 * peakFp8;
    }
    return achievedBf16 * peakBf16;
}

GpuSpec
GpuCatalog::Get(const std::string& name)
{
    const auto& c = Catalog();
    auto it = c.find(name);
    if (it == c.end())
    {
        throw std::invalid_argument("unknown GPU '" + name + "' (known: " + Join(Names()) + ")");
    }
    return it->second;
}

std::vector<std::string>
GpuCatalog::Names()
{
    std::vector<std::string> names;
    for (const auto& kv : Catalog())
    {
        names.push_back(kv.first);
    }
    return names;
}

bool
GpuCatalog::Has(const std::string& name)
{
    return Catalog().count(name) != 0;
}

bool
TrainingStepRequest::Empty() const
{
    return globalBatch == 0 && microBatchSize == 0 && sequenceLength == 0 && gpu.empty() &&
           precision.empty() && recompute.empty() && optimizer.empty();
}

std::string
TrainingStep::ToString() const
{
    std::ostringstream os;
    os << globalBatch << " x " << sequenceLength << " tokens, micro-batch " << microBatchSize
       << ", " << (gpu.empty() ? std::string("zoo rate") : gpu) << " " << ns3::ToString(precision)
       << " " << flopsPerGpuSecond / 1e12 << " TFLOP/s, recompute " << ns3::ToString(recompute)
       << (distributedOptimizer ? ", distributed optimizer" : "");
    return os.str();
}

double
TrainingFlopsPerSequence(const ModelSpec& model, uint32_t seq, Recompute recompute)
{
    if (!model.IsTransformer())
    {
        throw std::invalid_argument("model '" + model.name + "' has no transformer layers");
    }
    if (seq == 0 || model.sequenceLength == 0)
    {
        throw std::invalid_argument("sequence length must be >= 1");
    }
    const double s0 = model.sequenceLength;
    const double s = seq;
    const double l = model.layers;
    const double h = model.hidden;
    const double a = model.attentionScoreFlops; // s² coefficient inside flopsPerSample
    // the zoo's count at its own length: s0 × dense + a × s0²; rescaled to s
    const double densePerToken = model.flopsPerSample / s0 - a * s0;
    const double none = densePerToken * s + a * s * s;
    switch (recompute)
    {
    case Recompute::NONE:
        return none;
    case Recompute::SELECTIVE:
        return none + 12 * l * h * s * s; // [KORTH]: the scores' training FLOPs once more
    case Recompute::FULL: {
        const double logits = 6.0 * model.vocab * h * s; // output projection, not recomputed
        return none + (none - logits) / 3;               // [SC21]: one more forward
    }
    }
    return none;
}

TrainingStep
ResolveTrainingStep(const TrainingStepRequest& req, const ModelSpec& model, uint32_t numGpus)
{
    if (numGpus == 0)
    {
        throw PlanError("gpus", "the job has no GPUs");
    }
    TrainingStep st;
    if (!ParseRecompute(req.recompute, st.recompute))
    {
        throw PlanError("recompute",
                        "unknown value '" + req.recompute + "' (known: " + Join(RecomputeNames()) +
                            ")");
    }
    if (!ParsePrecision(req.precision, st.precision))
    {
        throw PlanError("precision",
                        "unknown value '" + req.precision + "' (known: " + Join(PrecisionNames()) +
                            ")");
    }
    if (!ParseOptimizer(req.optimizer, st.distributedOptimizer))
    {
        throw PlanError("optimizer",
                        "unknown value '" + req.optimizer + "' (known: " + Join(OptimizerNames()) +
                            ")");
    }
    const bool transformer = model.IsTransformer();
    if (!transformer && req.sequenceLength > 0)
    {
        throw PlanError("sequenceLength",
                        "model '" + model.name +
                            "' has no transformer layers (a sample is not "
                            "a sequence of tokens)");
    }
    if (!transformer && st.recompute != Recompute::NONE)
    {
        throw PlanError("recompute", "model '" + model.name + "' has no transformer layers");
    }
    st.sequenceLength = req.sequenceLength > 0 ? req.sequenceLength : model.sequenceLength;
    st.microBatchSize =
        req.microBatchSize > 0 ? req.microBatchSize : std::max<uint32_t>(1, model.microBatchSize);
    st.globalBatch = req.globalBatch > 0 ? static_cast<double>(req.globalBatch)
                                         : model.SamplesPerIteration(numGpus);
    st.exactBatch = req.globalBatch > 0 || req.microBatchSize > 0;
    if (transformer)
    {
        st.modelFlopsPerSequence =
            TrainingFlopsPerSequence(model, st.sequenceLength, Recompute::NONE);
        st.flopsPerSequence = TrainingFlopsPerSequence(model, st.sequenceLength, st.recompute);
    }
    else
    {
        st.modelFlopsPerSequence = model.flopsPerSample;
        st.flopsPerSequence = model.flopsPerSample;
    }
    if (!req.gpu.empty())
    {
        if (!GpuCatalog::Has(req.gpu))
        {
            throw PlanError("gpu",
                            "unknown GPU '" + req.gpu + "' (known: " + Join(GpuCatalog::Names()) +
                                ")");
        }
        const GpuSpec g = GpuCatalog::Get(req.gpu);
        if (st.precision == Precision::FP8 && !g.HasFp8())
        {
            throw PlanError("precision",
                            "the " + g.description +
                                " has no FP8 tensor cores (fp8: " + "h100-sxm, h200-sxm)");
        }
        st.gpu = req.gpu;
        st.flopsPerGpuSecond = g.AchievedFlops(st.precision);
    }
    else
    {
        if (st.precision == Precision::FP8)
        {
            throw PlanError("precision",
                            "fp8 needs a \"gpu\" with FP8 tensor cores (h100-sxm, h200-sxm); the "
                            "zoo's rates are A100 bf16");
        }
        // the zoo's calibrated rate, counted as executed FLOPs without recomputation
        st.flopsPerGpuSecond = model.AchievedFlopsPerGpu();
    }
    if (!(st.flopsPerGpuSecond > 0))
    {
        throw PlanError("gpu", "model '" + model.name + "' has no compute rate");
    }
    // the forward pass is a third of the model FLOPs for the LLMs (overlapStart = 1/3); the
    // recomputation runs inside the backward pass
    st.forwardShare = model.overlapStart * st.modelFlopsPerSequence / st.flopsPerSequence;
    st.recomputeShare = (st.flopsPerSequence - st.modelFlopsPerSequence) / st.flopsPerSequence;
    NS_LOG_DEBUG(model.name << " on " << numGpus << " GPUs: " << st.ToString() << ", "
                            << st.flopsPerGpuSecond << " FLOP/s per GPU");
    return st;
}

double
AttentionFractionAt(const ModelSpec& model, uint32_t seq)
{
    if (!model.IsTransformer() || model.attentionFraction <= 0 || model.attentionFraction >= 1)
    {
        return model.attentionFraction;
    }
    const double x0 = AttentionForwardPerToken(model, model.sequenceLength);
    const double mlp = x0 * (1 - model.attentionFraction) / model.attentionFraction;
    const double x = AttentionForwardPerToken(model, seq);
    return x / (x + mlp);
}

} // namespace ns3
