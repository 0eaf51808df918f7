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

#include "model-zoo.h"

#include <cmath>
#include <map>
#include <stdexcept>

namespace ns3
{

/*
 * Sources of the zoo numbers.
 *  [GPT3]   T. Brown et al., "Language Models are Few-Shot Learners", NeurIPS 2020, Table 2.1
 *           (GPT-3 Medium: 24 layers, d_model 1024, 16 heads, context 2048, 350 M parameters;
 *           GPT-2/3 BPE vocabulary of 50257 tokens).
 *  [BERT]   J. Devlin et al., "BERT: Pre-training of Deep Bidirectional Transformers for
 *           Language Understanding", NAACL 2019, §3 and App. A.2 (BERT-large: L = 24, H = 1024,
 *           A = 16, 340 M parameters; batch 256 sequences; sequence length up to 512).
 *  [RESNET] K. He et al., "Deep Residual Learning for Image Recognition", CVPR 2016, Table 1
 *           (ResNet-50: 3.8e9 multiply-adds forward per 224×224 image). The widely quoted
 *           25.6 M parameters and 4.1 G "FLOPs" (torchvision's count of ResNet-50, again
 *           multiply-adds) are used here, as the module's brief fixes.
 *  [KAPLAN] J. Kaplan et al., "Scaling Laws for Neural Language Models", 2020, §2.1: training
 *           compute ≈ 6 × N × tokens (2N forward + 4N backward per token), attention-context
 *           term neglected (it adds ~14 % for d_model 1024 at context 2048).
 *  [A100]   NVIDIA A100 Tensor Core GPU datasheet: 312 TFLOP/s dense fp16/bf16.
 *  [DDP]    PyTorch DistributedDataParallel: default gradient bucket cap 25 MiB.
 *  [NVRN]   NVIDIA DeepLearningExamples, PyTorch ResNet50 v1.5 README: 1 × A100 80GB, mixed
 *           precision training throughput 2470 img/s at batch 256 per GPU.
 *
 * ---- "gpt": the Crux paper's §2.2 GPT (a GPT-3 variant cut to 24 layers, hidden 1024) ----
 * Parameters: 12·L·h² (attention 4h² + MLP 8h² per layer) + V·h (token embedding, tied with
 * the output projection) with L = 24, h = 1024, V = 50257 (the GPT-3 vocabulary [GPT3]):
 *   12·24·1024² + 50257·1024 = 301,989,888 + 51,463,168 = 353,453,056 (≈ the 350 M of GPT-3
 *   Medium in [GPT3]; biases, layer norms and position embeddings, < 1 %, are left out).
 * Gradients: fp16, 2 bytes each → 706,906,112 bytes per replica per iteration.
 * FLOPs: 6 × parameters per token [KAPLAN] (the V·h term counts: the tied output projection is
 *   a V×h matmul on every token), context 2048 tokens per sequence [GPT3].
 * Calibration (target: the paper's §2.2 measurement, 1.53 s per iteration for GPT alone on
 *   64 GPUs = 8 hosts × 8 A100, TP 8 inside each host, DP 8 across hosts):
 *   - Batch: 1536 sequences × 2048 tokens = 3,145,728 tokens per iteration at 64 GPUs. [GPT3]
 *     lists 0.5 M tokens for this model size, but 0.5 M tokens on 64 A100s would take only
 *     ~0.25 s per iteration at any plausible efficiency, so the production job must run a larger
 *     (or accumulated) batch; 3.1 M is GPT-3's largest batch. (assumption)
 *   - W_j = 6 × 353,453,056 × 3,145,728 = 6.6712e15 FLOPs per iteration (64 GPUs).
 *   - Communication: Megatron-LM's data-parallel gradient all-reduce ran after the backward
 *     pass (overlapped reduction came only in late 2023), so numBuckets = 1: the all-reduce is
 *     fully exposed. Per iteration each host NIC sends 8 rails × 2·7/8 × 706.9 MB / 8
 *     = 1.237 GB = 9.90 Gbit, i.e. ≈ 0.099 s at 100 Gbit/s (the scenario's default host link,
 *     one NIC per host) when the NIC is the bottleneck.
 *   - computeTime = 1.53 − 0.10 = 1.43 s → achieved 6.6712e15 / (64 × 1.43) = 72.9 TFLOP/s per
 *     GPU = 23.4 % of the A100 peak [A100] (plausible: TP 8 splits h = 1024 into 128-wide
 *     shards, so the GEMMs are small). On a faster fabric (4 × 200 Gbit/s NICs) the exposed
 *     all-reduce shrinks to ~12 ms and an iteration takes ≈ 1.44 s; override computeTime per
 *     job if the target is 1.53 s there.
 *
 * ---- "bert-large" [BERT] ----
 * 340 M parameters, fp16 gradients (680 MB). Reference: the §2.2 BERT job on 16 GPUs; batch
 * 256 sequences × 512 tokens [BERT] → W = 6 × 340e6 × 131,072 = 2.674e14 FLOPs per iteration.
 * Assumed achieved 111 TFLOP/s per GPU (36 % of peak, typical of fused-kernel BERT pre-training
 * on A100; assumption) → computeTime = 2.674e14 / 16 / 111.4e12 = 0.150 s.
 * Data-parallel with PyTorch DDP bucketing [DDP]: 680 MB / 25 MiB → 26 buckets, released over
 * the backward pass (overlapStart 1/3).
 *
 * ---- "resnet50" [RESNET] ----
 * 25.6 M parameters, fp16 gradients (51.2 MB); 4.1e9 forward FLOPs per 224² image, training
 * = 3 × forward = 12.3e9 FLOPs per image. Reference: 8 GPUs (one host), 256 images per GPU
 * ([NVRN] recipe) → global batch 2048. computeTime = 256 / 2470 img/s = 0.1036 s [NVRN]
 * → achieved 30.4 TFLOP/s per GPU (9.7 % of peak). DDP buckets [DDP]: 51.2 MB / 25 MiB → 2.
 *
 * ---- Models added for the trace-driven runs (Crux §6.3: "BERT, GPT, ResNet, NMT,
 *      Multi-Interests, ... in-house CTR"); sources: ----
 *  [VASWANI] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, Table 3
 *           (Transformer big: N = 6, d_model 1024, d_ff 4096, 16 heads, 213 M parameters).
 *  [NVNMT]  NVIDIA DeepLearningExamples, PyTorch/Translation/Transformer README (fairseq-based
 *           transformer_wmt_en_de_big_t2t, shared embeddings): DGX A100, 1 × A100 40GB, mixed
 *           precision, 10240 tokens per GPU: 82,059 tokens/s; 8 GPUs: 551,599 tokens/s. The
 *           same README, DGX-2 (V100 32GB), 1 GPU, mixed precision, 5120 tokens: 39,911
 *           tokens/s; DGX-1 (V100 16GB), 1 GPU, mixed precision: 32,942 tokens/s.
 *  [MIND]   C. Li et al., "Multi-Interest Network with Dynamic Routing for Recommendation at
 *           Tmall", CIKM 2019 (capsule "multi-interest extractor", label-aware attention).
 *  [COMIREC] THUDM/ComiRec, src/train.py and src/model.py (public MIND re-implementation of
 *           Cen et al., KDD 2020): Taobao data set 1,708,531 items, embedding and hidden size
 *           64, 4 interests, 50 behaviours per user, batch 256, 10 × batch sampled-softmax
 *           negatives, TensorFlow 1 with fp32 variables and Adam.
 *  [DLRM]   M. Naumov et al., "Deep Learning Recommendation Model for Personalization and
 *           Recommendation Systems", 2019, §3-4 (embedding tables model-parallel, MLPs
 *           data-parallel, all-to-all between them).
 *  [NVDLRM] NVIDIA DeepLearningExamples, PyTorch/Recommendation/DLRM README (Criteo Terabyte:
 *           26 categorical features, embedding dim 128, bottom MLP 512-256-128, top MLP
 *           1024-1024-512-256-1, dot interaction, batch 32768 per GPU; DGX-1, 1 × V100 32GB,
 *           mixed precision: 875k samples/s).
 *
 * ---- "nmt-transformer-big" [VASWANI] [NVNMT] ----
 * 213 M parameters [VASWANI]; fp16 gradients (mixed precision [NVNMT]) → 426 MB per replica.
 * A "sample" here is one target token (sequenceLength 1): FLOPs ≈ 6 × 213e6 = 1.278e9 per token
 * (6N rule of [KAPLAN]; encoder parameters act on source tokens and decoder parameters on target
 * tokens, whose counts are about equal per batch — an approximation). Reference: 8 GPUs ×
 * 10240 tokens [NVNMT] → global batch 81,920 tokens. computeTime = 10240 / 82,059 tokens/s
 * (one A100, no communication [NVNMT]) = 0.1248 s → achieved 104.9 TFLOP/s per GPU (33.6 % of
 * peak). DDP buckets [DDP]: 426 MB / 25 MiB → 17.
 *
 * ---- "multi-interests" (MIND) [MIND] [COMIREC] ----
 * Trainable parameters: item embedding table 1,708,531 × 64 = 109,345,984 plus the shared
 * bilinear map 64 × 64 = 4,096 → 109,350,080 [COMIREC]; fp32 (4 bytes per gradient element).
 * ESTIMATE: the whole embedding table is treated as a dense gradient all-reduced every iteration
 * (437 MB), an upper bound on the traffic; a sparse exchange would send only the rows a batch
 * touches. Forward FLOPs per sample (multiply-add = 2 FLOPs): bilinear map 50 × 64 × 64 × 2 =
 * 409,600; dynamic routing, 3 iterations = 3 weighted sums + 2 agreement updates, each
 * 4 × 50 × 64 × 2 FLOPs: 128,000; sampled softmax over
 * 2,560 negatives + 1 positive: 2,561 × 64 × 2 = 327,808; total 865,408; training = 3 × forward
 * = 2,596,224 FLOPs per sample. Reference: 1 GPU, batch 256 [COMIREC].
 * computeTime = 0.010 s: ESTIMATE, no public A100 measurement found. Basis: TensorFlow's Adam
 * rescales both moment tables of the whole 109 M-element table every step (≈ 2.6 GB of
 * HBM traffic, ≈ 1.7 ms at the A100's 1.555 TB/s) plus lookups and many small kernels. The
 * model is thus strongly communication-bound (very low GPU intensity). numBuckets 1: the
 * embedding gradient (nearly all bytes) is produced last, by the first layer.
 *
 * ---- "ctr-dlrm" (the paper's in-house CTR model is not public; DLRM stands in) [DLRM] [NVDLRM]
 * Dense (all-reduced) parameters, weights + biases, from the layer sizes of [NVDLRM]: bottom MLP
 * 13-512-256-128 = 171,392; top MLP input 128 + 27·26/2 = 479, 479-1024-1024-512-256-1 =
 * 2,197,505; total 2,368,897, fp32 gradients (AMP keeps fp32 master weights) → 9.5 MB.
 * The embedding tables are model-parallel [DLRM] and NOT all-reduced; their all-to-all
 * (26 × 128 × 2 bytes ≈ 6.7 kB per sample each way, ≈ 218 MB per GPU per iteration at batch
 * 32768) is NOT modelled by the zoo's ring all-reduce — a known under-estimate of this model's
 * traffic. Forward FLOPs per sample: 2 × 2,365,184 weights + interaction 2 × 27 × 27 × 128 =
 * 4,916,992; training = 3 × forward = 14,750,976. Reference: 1 GPU, batch 32768 [NVDLRM].
 * computeTime: [NVDLRM] gives 875k samples/s on one V100 only. ESTIMATE for an A100: × 2.491,
 * the A100/V100 single-GPU mixed-precision throughput ratio of [NVNMT] (82,059 / 32,942) →
 * 2.18 M samples/s → computeTime = 32768 / 2.18e6 = 0.01503 s (achieved 32.1 TFLOP/s, 10.3 %
 * of peak). numBuckets 1 (9.5 MB < one 25 MiB DDP bucket).
 */

namespace
{

std::map<std::string, ModelSpec>
BuildZoo()
{
    std::map<std::string, ModelSpec> zoo;

    {
        ModelSpec m;
        m.name = "gpt";
        m.description = "GPT-3 variant, 24 layers, hidden 1024 (Crux paper §2.2)";
        const double layers = 24;
        const double hidden = 1024;
        const double vocab = 50257;
        m.parameters = 12 * layers * hidden * hidden + vocab * hidden; // 353,453,056
        m.bytesPerParameter = 2;
        m.sequenceLength = 2048;
        m.flopsPerSample = 6 * m.parameters * m.sequenceLength;
        m.globalBatch = 1536;
        m.referenceGpus = 64;
        m.computeTime = 1.43;
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 8;
        m.numBuckets = 1;
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "bert-large";
        m.description = "BERT-large, 24 layers, hidden 1024, 340 M parameters (Devlin et al.)";
        m.parameters = 340e6;
        m.bytesPerParameter = 2;
        m.sequenceLength = 512;
        m.flopsPerSample = 6 * m.parameters * m.sequenceLength;
        m.globalBatch = 256;
        m.referenceGpus = 16;
        m.computeTime = 0.150;
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 1;
        m.numBuckets = 26;
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "resnet50";
        m.description = "ResNet-50, 25.6 M parameters, 224x224 images (He et al.)";
        m.parameters = 25.6e6;
        m.bytesPerParameter = 2;
        m.sequenceLength = 1;
        m.flopsPerSample = 3 * 4.1e9;
        m.globalBatch = 2048;
        m.referenceGpus = 8;
        m.computeTime = 256.0 / 2470.0;
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 1;
        m.numBuckets = 2;
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "nmt-transformer-big";
        m.description = "Transformer big NMT, 213 M parameters (Vaswani et al.)";
        m.parameters = 213e6;
        m.bytesPerParameter = 2;
        m.sequenceLength = 1; // a sample is one target token
        m.flopsPerSample = 6 * m.parameters;
        m.globalBatch = 8 * 10240;
        m.referenceGpus = 8;
        m.computeTime = 10240.0 / 82059.0;
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 1;
        m.numBuckets = 17;
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "multi-interests";
        m.description = "MIND multi-interest recommender, 109 M parameters (Li et al.; estimate)";
        const double items = 1708531;
        const double dim = 64;
        const double behaviours = 50;
        const double interests = 4;
        const double sampled = 10 * 256 + 1;
        m.parameters = items * dim + dim * dim; // 109,350,080
        m.bytesPerParameter = 4;
        m.sequenceLength = 1;
        const double forward = behaviours * dim * dim * 2 +             // bilinear map
                               5 * (interests * behaviours * dim * 2) + // routing
                               sampled * dim * 2;                       // sampled softmax
        m.flopsPerSample = 3 * forward;                                 // 2,596,224
        m.globalBatch = 256;
        m.referenceGpus = 1;
        m.computeTime = 0.010; // estimate, see above
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 1;
        m.numBuckets = 1;
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "ctr-dlrm";
        m.description = "DLRM CTR model (Criteo Terabyte config), dense part 2.37 M parameters";
        const std::vector<double> bottom{13, 512, 256, 128};
        const std::vector<double> top{128 + 27 * 26 / 2, 1024, 1024, 512, 256, 1};
        double weights = 0;
        double biases = 0;
        for (const auto* mlp : {&bottom, &top})
        {
            for (size_t i = 1; i < mlp->size(); ++i)
            {
                weights += (*mlp)[i - 1] * (*mlp)[i];
                biases += (*mlp)[i];
            }
        }
        m.parameters = weights + biases; // 2,368,897
        m.bytesPerParameter = 4;
        m.sequenceLength = 1;
        m.flopsPerSample = 3 * (2 * weights + 2 * 27 * 27 * 128); // 14,750,976
        m.globalBatch = 32768;
        m.referenceGpus = 1;
        m.computeTime = 32768.0 / (875e3 * 82059.0 / 32942.0); // estimate, see above
        m.overlapStart = 1.0 / 3.0;
        m.tensorParallel = 1;
        m.numBuckets = 1;
        zoo[m.name] = m;
    }
    return zoo;
}

const std::map<std::string, ModelSpec>&
Zoo()
{
    static const std::map<std::string, ModelSpec> zoo = BuildZoo();
    return zoo;
}

} // namespace

uint64_t
ModelSpec::GradientBytes() const
{
    return static_cast<uint64_t>(std::llround(parameters * bytesPerParameter));
}

double
ModelSpec::FlopsPerIteration(uint32_t numGpus) const
{
    if (numGpus == 0)
    {
        throw std::invalid_argument("ModelSpec::FlopsPerIteration: numGpus must be >= 1 (model '" +
                                    name + "')");
    }
    if (referenceGpus == 0)
    {
        throw std::invalid_argument("ModelSpec '" + name + "': referenceGpus must be >= 1");
    }
    return flopsPerSample * globalBatch * static_cast<double>(numGpus) / referenceGpus;
}

double
ModelSpec::AchievedFlopsPerGpu() const
{
    if (computeTime <= 0 || referenceGpus == 0)
    {
        return 0;
    }
    return flopsPerSample * globalBatch / referenceGpus / computeTime;
}

ModelSpec
ModelZoo::Get(const std::string& name)
{
    const auto& zoo = Zoo();
    auto it = zoo.find(name);
    if (it == zoo.end())
    {
        std::string known;
        for (const auto& kv : zoo)
        {
            known += (known.empty() ? "" : ", ") + kv.first;
        }
        throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
    }
    return it->second;
}

std::vector<std::string>
ModelZoo::Names()
{
    std::vector<std::string> names;
    for (const auto& kv : Zoo())
    {
        names.push_back(kv.first);
    }
    return names;
}

bool
ModelZoo::Has(const std::string& name)
{
    return Zoo().count(name) != 0;
}

} // namespace ns3
