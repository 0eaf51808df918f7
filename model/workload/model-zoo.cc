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

#include <algorithm>
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

/*
 * ---- Transformer shapes of "gpt" and "bert-large" (used only by parallelism plans; their
 *      parameters, FLOPs and compute times above are unchanged) ----
 * "gpt": 24 layers, h 1024, 16 heads, FFN 4h, vocabulary 50257, context 2048 [GPT3].
 * "bert-large": 24 layers, h 1024, 16 heads, FFN 4096, vocabulary 30522, sequence 512 [BERT]
 * (workloads-fabric-facts.md §8). Micro-batch of the default plan: 16 sequences for both
 * (assumption: fits an 80 GB A100 for a 350 M model; for "bert-large" it is the reference
 * batch per GPU, 256 / 16).
 *
 * ---- Large language models (parallelism plans; workloads-fabric-facts.md §6-§8) ----
 *  [GPT3T]  T. Brown et al. 2020, Table 2.1, as transcribed in facts §8: GPT-3 XL 1.3B (24
 *           layers, d 2048, 24 heads), 2.7B (32, 2560, 32), 6.7B (32, 4096, 32), 13B (40, 5140
 *           (sic) -> 5120 = 40 x 128 as every implementation, facts §9.10, 40 heads), 175B (96,
 *           12288, 96); FFN 4d, vocabulary 50257, context 2048; batch 1M tokens for 1.3B/2.7B,
 *           2M for 6.7B/13B, 3.2M for 175B.
 *  [MEG21]  Narayanan et al., SC'21, and Megatron-LM images/cases_april2021.png (facts §6):
 *           per-GPU throughput on A100 80GB, seq 2048, V 51200, counted with the FLOP formula
 *           96·B·s·l·h²·(1 + s/6h + V/(16·l·h)) that includes full activation recomputation:
 *           1.7B (h 2304, l 24, 32 GPUs, batch 512, MP 1): 137 TFLOP/s; 3.6B (3072, 30, 64,
 *           512, MP 2): 138; 7.5B (4096, 36, 128, 512, MP 4): 142; 18B (6144, 40, 256, 1024,
 *           MP 8): 135.
 *  [MEGEX]  Megatron-LM examples/gpt3/train_gpt3_175b_distributed.sh (facts §8): 1536
 *           sequences, TP 8, PP 16.
 *  [MEGMFU] Megatron-LM README @2e90a342f5 (facts §6): GPT-3 175B with sequence parallelism and
 *           selective recomputation: MFU 51.4 % (A100).
 *  [LLAMA]  Touvron et al. 2023 (LLaMA), model card and Table 2 as in facts §8: 7B (32 layers,
 *           d 4096, 32 heads), 13B (40, 5120, 40), 33B (60, 6656, 52), 65B (80, 8192, 64); FFN
 *           11008 / 13824 / 17920 / 22016 (2/3·4d rounded up to a multiple of 256); vocabulary
 *           32000, context 2048, batch 4M tokens; SwiGLU, RMSNorm, rotary positions, untied
 *           embeddings; trained on 1.0T (7B, 13B) and 1.4T (33B, 65B) tokens.
 *  [LLAMAHW] The LLaMA paper's carbon table as quoted by secondary sources [S]: 82,432 /
 *           135,168 / 530,432 / 1,022,362 A100-80GB GPU-hours for 7B / 13B / 33B / 65B; and
 *           §2.4: "around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB" for 65B (the GPU
 *           hours give 380.4 for 65B, consistent).
 *  [LLAMA2] Touvron et al. 2023 (Llama 2), Table 1 and §2.2 (facts §8, [S]): 7B, 13B as
 *           LLaMA-1 shapes, 70B: 80 layers, d 8192, 64 heads with 8 KV heads (GQA), FFN 28672;
 *           context 4096, batch 4M tokens, 2T tokens; A100-80GB GPU-hours 184,320 / 368,640 /
 *           1,720,320 for 7B / 13B / 70B.
 *  [MEGH100] Megatron-LM images/model_table.png @f2e5db402c (facts §6): 70B trained TP 8 x PP 2.
 *  [MIXTRAL] Megatron-LM examples/mixtral (facts §7): 32 layers, d 4096, 32 heads with 8 KV
 *           heads, FFN 14336 per expert (SwiGLU), 8 experts, top-2, vocabulary 32000, untied
 *           embeddings, trained at seq 4096; recommended TP 1, EP 8, PP 4; 46.7 B parameters,
 *           12.9 B active (arXiv 2401.04088 abstract: 47 B / 13 B).
 *  [MEGTAB] Megatron-LM README @f2e5db402c (2024-07-15, "New scaling figures on H100 GPUs"),
 *           images/model_table.png and its text: GPT models with vocabulary 131,072 and
 *           sequence 4,096 on H100; 1.7B: 24 layers, hidden 2048, 16 heads, TP 1, PP 1, DP 48,
 *           48 GPUs, batch 192; 7.1B: 30 layers, hidden 4096, 32 heads, TP 2, PP 1, DP 48, 96
 *           GPUs, batch 192; 177B: 96 layers, hidden 12288, 96 heads, TP 8, PP 6, DP 48,
 *           2,304 GPUs, batch 1,152 (the same 177B model strong-scaled from 96 to 4,608 GPUs at
 *           batch 1,152). Only these shapes, plans and batches are taken from it: its TFLOP/s
 *           and MFU columns are validation targets (validation/megatron/), not constants.
 *
 * Parameters (computed, not copied): GPT-3 family with Megatron's count 12·l·h² + 13·l·h +
 *   (V + s)·h (facts §6: attention + MLP, biases and layer norms, tied embedding, learned
 *   positions; reproduces 1.3 / 2.7 / 6.7 / 12.9 / 174.6 B). LLaMA family and Mixtral:
 *   per layer 2h² + 2·h·h_kv (Q, O, K, V) + 3·h·ffn (SwiGLU; × experts for MoE, plus the
 *   h × experts router) + 2h (RMSNorm), a final norm h and untied input/output embeddings
 *   2·V·h (6.74 / 13.02 / 32.53 / 65.29 / 68.98 B; Mixtral 46.70 B, 12.88 B active).
 * FLOPs per token (training = 3 × forward, no recomputation, as Megatron's formula without
 *   recomputation, facts §6): 6 × (matmul parameters a token passes through: the layers' active
 *   parameters + the V·h output projection) + 12·l·s·h for the attention scores (QKᵀ and AV,
 *   full s×s, Megatron's SC'21 count). A sample is one sequence of s tokens.
 * Achieved FLOP/s (model FLOPs per GPU-second, A100): LLaMA / Llama 2: tokens per GPU-second
 *   from the GPU-hours (tokens / (GPU-hours × 3600)) × FLOPs per token: LLaMA 7B 46.3 %, 13B
 *   54.1 %, 33B 47.9 %, 65B 49.5 % of peak; Llama 2 7B 44.5 %, 13B 42.1 %, 70B 46.0 %. GPT-3
 *   1.3B-13B: the [MEG21] row nearest in size, converted from the recomputation-counting
 *   formula to model FLOPs (× F_model / F_96 of that row, about 0.76): 32.6-34.4 % of peak
 *   (1.3B 33.5 %, 2.7B 33.5 %, 6.7B 34.4 %, 13B 32.6 %). GPT-3 175B: [MEGMFU]
 *   51.4 %. Mixtral: no public training throughput found; ASSUMPTION 35 % of peak on active
 *   FLOPs. These are end-to-end figures (they include the bubble and the exposed communication
 *   of the published runs); using them as the compute-only rate is an ASSUMPTION that makes
 *   simulated iterations slightly longer than the published ones.
 * computeTime = FLOPs per sample × globalBatch / referenceGpus / achieved FLOP/s (weak scaling
 *   as every zoo entry). Batch at the reference GPU count: GPT-3 1.3B-13B: the [MEG21] row's
 *   (GPUs, batch); 175B: 1536 sequences at 1024 GPUs ([MEGEX]; 1024 GPUs: ASSUMPTION, the
 *   GPU count of Narayanan et al.'s 175B estimate [R]); LLaMA: 2048 sequences (4M tokens) at
 *   2048 GPUs ([LLAMAHW]; 2048 GPUs given for 65B only: ASSUMPTION for the others); Llama 2:
 *   1024 sequences (4M tokens) at 2048 GPUs (GPU count: ASSUMPTION); Mixtral: 1024 sequences
 *   at 2048 GPUs (ASSUMPTION, as Llama 2).
 * Megatron-LM's H100 table models [MEGTAB] ("megatron-1.7b", "megatron-7.1b",
 *   "megatron-177b"; for the validation suite, validation/megatron/): GPT-3 style (FFN 4h,
 *   biases, LayerNorm; learned absolute positions, Megatron's default
 *   --position-embedding-type, ASSUMPTION: the README does not say), with the output layer NOT
 *   tied to the embedding: the table's parameter counts say so (12lh² + 13lh + (V + s)h + Vh:
 *   1.7B 1.754 B, tied it would be 1.485 B; 7.1B 7.132 B, tied 6.595 B; 177B 177.24 B, tied
 *   175.63 B). Batch and reference GPUs: the table row's. Plans: the row's (1.7B TP 1; 7.1B
 *   TP 2; 177B TP 8 x PP 6). Rate of a job that names no "gpu" (the zoo's A100 convention):
 *   [MEGMFU] 51.4 % of the A100 peak, as "gpt3-175b" (ASSUMPTION for the smaller models); the
 *   validation rows name "gpu": "h100-sxm" and so run at the GPU catalog's rate
 *   (training-step.cc), never at a rate of [MEGTAB].
 * Default plans: GPT-3 tp = the [MEG21] row's model-parallel size (1 / 2 / 4 / 8), 175B TP 8 x
 *   PP 16 [MEGEX]; Llama 2 70B TP 8 x PP 2 [MEGH100]; Mixtral TP 1, EP 8, PP 4 [MIXTRAL];
 *   LLaMA 7B TP 1, 13B TP 2, 33B TP 4 x PP 2, 65B TP 8 x PP 4, Llama 2 7B TP 1, 13B TP 2
 *   (ASSUMPTIONS in Megatron's usual range). Micro-batch 1 sequence ([MEGEX], MLPerf GPT-3
 *   mbs 1, facts §6; ASSUMPTION for the smaller models). Gradient buckets of 40 M parameters
 *   (Megatron's DDP bucket, max(40 M, 1 M × dp) parameters, facts §6), bf16 gradients and
 *   activations (2 bytes, ASSUMPTION: Megatron can reduce in fp32), overlapStart 1/3.
 */

namespace
{

/// A decoder transformer's shape, for Transformer().
struct Shape
{
    uint32_t layers{0};  //!< l
    uint32_t hidden{0};  //!< h
    uint32_t heads{0};   //!< attention heads
    uint32_t kvHeads{0}; //!< key/value heads
    uint32_t ffn{0};     //!< MLP inner size (per expert)
    uint32_t vocab{0};   //!< V
    uint32_t seq{0};     //!< s, tokens per sample
    bool gpt3{false};    //!< GPT-3 style (biases, LayerNorm, learned positions, tied, FFN 4h)
    bool untied{false};  //!< GPT-3 style with a separate V x h output layer (not tied)
    uint32_t experts{0}; //!< MoE experts (0 = dense)
    uint32_t topK{0};    //!< MoE top-k
};

/// Fill a ModelSpec's shape, parameters, FLOPs per sample and attention share (see the block
/// comment above for the formulas).
void
Transformer(ModelSpec& m, const Shape& t)
{
    const double l = t.layers;
    const double h = t.hidden;
    const double v = t.vocab;
    const double s = t.seq;
    m.layers = t.layers;
    m.hidden = t.hidden;
    m.heads = t.heads;
    m.kvHeads = t.kvHeads;
    m.ffnHidden = t.ffn;
    m.vocab = t.vocab;
    m.sequenceLength = t.seq;
    m.experts = t.experts;
    m.topK = t.topK;
    const double hkv = h / t.heads * t.kvHeads;
    const double attn = 2 * h * h + 2 * h * hkv;
    const double mlpOne = (t.gpt3 ? 2.0 : 3.0) * h * t.ffn;
    double mlpActive = mlpOne;
    if (t.gpt3)
    {
        m.parameters = 12 * l * h * h + 13 * l * h + (v + s) * h + (t.untied ? v * h : 0.0);
    }
    else
    {
        double perLayer = attn + 2 * h;
        if (t.experts > 0)
        {
            perLayer += t.experts * mlpOne + h * t.experts;
            mlpActive = t.topK * mlpOne + h * t.experts;
            m.expertParameters = l * t.experts * mlpOne;
        }
        else
        {
            perLayer += mlpOne;
        }
        m.parameters = l * perLayer + h + 2 * v * h;
    }
    const double active = l * (attn + mlpActive) + v * h;
    m.flopsPerSample = (6 * active + 12 * l * s * h) * s;
    const double attnFlops = 2 * attn + 4 * s * h;
    m.attentionFraction = attnFlops / (attnFlops + 2 * mlpActive);
    m.bytesPerParameter = 2;
    m.bytesPerActivation = 2;
    m.overlapStart = 1.0 / 3.0;
    m.microBatchSize = 1;
    m.bucketBytes = 40e6 * m.bytesPerParameter;
    m.bucketBytesPerDpRank = 1e6 * m.bytesPerParameter; // max(40 M, 1 M x dp) parameters
    m.attentionScoreFlops = 12 * l * h;                 // the 12·l·s·h term per token
    m.numBuckets = static_cast<uint32_t>(std::ceil(m.parameters / 40e6));
}

/// Model FLOPs / the recomputation-counting FLOPs of [MEG21] for a row's configuration.
double
Meg21ModelFlopsRatio(double l, double h)
{
    const double s = 2048;
    const double v = 51200;
    const double f96 = 96 * l * h * h * s * (1 + s / (6 * h) + v / (16 * l * h));
    const double f72 = 72 * l * h * h * s * (1 + s / (6 * h)) + 6 * s * h * v;
    return f72 / f96;
}

/// Set computeTime from the achieved model FLOP/s per GPU (weak scaling at referenceGpus).
void
SetAchieved(ModelSpec& m, double flopsPerGpuSecond)
{
    m.computeTime = m.flopsPerSample * m.globalBatch / m.referenceGpus / flopsPerGpuSecond;
}

/// Tokens per GPU-second of a run of `tokens` tokens that took `gpuHours` GPU-hours.
double
TokensPerGpuSecond(double tokens, double gpuHours)
{
    return tokens / (gpuHours * 3600.0);
}

/**
 * The zoo's table: one block per model, each number with its public source beside it.
 * Long by design (~380 lines of data; the derivations are the helpers above, e.g.
 * SetAchieved()): a table split over several functions would be harder to check against its
 * sources, not easier (the ~150-line rule of issue 13 is for code).
 * \return model name -> its specification
 */
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
        m.layers = 24;
        m.hidden = 1024;
        m.heads = 16;
        m.kvHeads = 16;
        m.ffnHidden = 4096;
        m.vocab = 50257;
        m.attentionFraction = (8 * hidden * hidden + 4 * 2048 * hidden) /
                              (8 * hidden * hidden + 4 * 2048 * hidden + 16 * hidden * hidden);
        m.microBatchSize = 16;
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
        m.layers = 24;
        m.hidden = 1024;
        m.heads = 16;
        m.kvHeads = 16;
        m.ffnHidden = 4096;
        m.vocab = 30522;
        m.attentionFraction = (8.0 * 1024 * 1024 + 4.0 * 512 * 1024) /
                              (8.0 * 1024 * 1024 + 4.0 * 512 * 1024 + 16.0 * 1024 * 1024);
        m.microBatchSize = 16;
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

    // ---- GPT-3 family [GPT3T], efficiency and batch of the nearest [MEG21] row ----
    struct Gpt3
    {
        const char* name;        //!< zoo key
        const char* description; //!< description
        uint32_t layers;         //!< l
        uint32_t hidden;         //!< h
        uint32_t heads;          //!< heads
        double rowL;             //!< [MEG21] row: layers
        double rowH;             //!< [MEG21] row: hidden
        double rowTflops;        //!< [MEG21] row: TFLOP/s per GPU
        uint32_t rowGpus;        //!< [MEG21] row: GPUs
        uint32_t rowBatch;       //!< [MEG21] row: batch (sequences)
        uint32_t tp;             //!< default TP (the row's model-parallel size)
    };

    for (
        const Gpt3& g : {
            Gpt3{"gpt3-1.3b",
                 "GPT-3 XL 1.3B (Brown et al.)",
                 24,
                 2048,
                 24,
                 24,
                 2304,
                 137,
                 32,
                 512,
                 1},
            Gpt3{"gpt3-2.7b", "GPT-3 2.7B (Brown et al.)", 32, 2560, 32, 30, 3072, 138, 64, 512, 2},
            Gpt3{"gpt3-6.7b",
                 "GPT-3 6.7B (Brown et al.)",
                 32,
                 4096,
                 32,
                 36,
                 4096,
                 142,
                 128,
                 512,
                 4},
            Gpt3{"gpt3-13b", "GPT-3 13B (Brown et al.)", 40, 5120, 40, 40, 6144, 135, 256, 1024, 8},
        })
    {
        ModelSpec m;
        m.name = g.name;
        m.description = g.description;
        Shape t;
        t.layers = g.layers;
        t.hidden = g.hidden;
        t.heads = g.heads;
        t.kvHeads = g.heads;
        t.ffn = 4 * g.hidden;
        t.vocab = 50257;
        t.seq = 2048;
        t.gpt3 = true;
        Transformer(m, t);
        m.globalBatch = g.rowBatch;
        m.referenceGpus = g.rowGpus;
        m.tensorParallel = g.tp;
        m.pipelineParallel = 1;
        SetAchieved(m, g.rowTflops * 1e12 * Meg21ModelFlopsRatio(g.rowL, g.rowH));
        zoo[m.name] = m;
    }
    {
        ModelSpec m;
        m.name = "gpt3-175b";
        m.description = "GPT-3 175B (Brown et al.)";
        Shape t;
        t.layers = 96;
        t.hidden = 12288;
        t.heads = 96;
        t.kvHeads = 96;
        t.ffn = 4 * 12288;
        t.vocab = 50257;
        t.seq = 2048;
        t.gpt3 = true;
        Transformer(m, t);
        m.globalBatch = 1536;
        m.referenceGpus = 1024;
        m.tensorParallel = 8;
        m.pipelineParallel = 16;
        SetAchieved(m, 0.514 * ModelZoo::A100_PEAK_FLOPS);
        zoo[m.name] = m;
    }

    // ---- LLaMA [LLAMA] [LLAMAHW] and Llama 2 [LLAMA2] [MEGH100] ----
    struct Llama
    {
        const char* name;        //!< zoo key
        const char* description; //!< description
        uint32_t layers;         //!< l
        uint32_t hidden;         //!< h
        uint32_t heads;          //!< heads
        uint32_t kvHeads;        //!< KV heads
        uint32_t ffn;            //!< FFN
        uint32_t seq;            //!< context
        double tokens;           //!< training tokens
        double gpuHours;         //!< A100 GPU-hours
        uint32_t tp;             //!< default TP
        uint32_t pp;             //!< default PP
    };

    for (const Llama& g : {
             Llama{"llama-7b",
                   "LLaMA 7B (Touvron et al. 2023)",
                   32,
                   4096,
                   32,
                   32,
                   11008,
                   2048,
                   1.0e12,
                   82432,
                   1,
                   1},
             Llama{"llama-13b",
                   "LLaMA 13B (Touvron et al. 2023)",
                   40,
                   5120,
                   40,
                   40,
                   13824,
                   2048,
                   1.0e12,
                   135168,
                   2,
                   1},
             Llama{"llama-33b",
                   "LLaMA 33B ('30B', Touvron et al. 2023)",
                   60,
                   6656,
                   52,
                   52,
                   17920,
                   2048,
                   1.4e12,
                   530432,
                   4,
                   2},
             Llama{"llama-65b",
                   "LLaMA 65B (Touvron et al. 2023)",
                   80,
                   8192,
                   64,
                   64,
                   22016,
                   2048,
                   1.4e12,
                   1022362,
                   8,
                   4},
             Llama{"llama2-7b",
                   "Llama 2 7B (Touvron et al. 2023)",
                   32,
                   4096,
                   32,
                   32,
                   11008,
                   4096,
                   2.0e12,
                   184320,
                   1,
                   1},
             Llama{"llama2-13b",
                   "Llama 2 13B (Touvron et al. 2023)",
                   40,
                   5120,
                   40,
                   40,
                   13824,
                   4096,
                   2.0e12,
                   368640,
                   2,
                   1},
             Llama{"llama2-70b",
                   "Llama 2 70B, GQA (Touvron et al. 2023)",
                   80,
                   8192,
                   64,
                   8,
                   28672,
                   4096,
                   2.0e12,
                   1720320,
                   8,
                   2},
         })
    {
        ModelSpec m;
        m.name = g.name;
        m.description = g.description;
        Shape t;
        t.layers = g.layers;
        t.hidden = g.hidden;
        t.heads = g.heads;
        t.kvHeads = g.kvHeads;
        t.ffn = g.ffn;
        t.vocab = 32000;
        t.seq = g.seq;
        Transformer(m, t);
        m.globalBatch = static_cast<uint32_t>(4194304 / g.seq); // 4M tokens
        m.referenceGpus = 2048;
        m.tensorParallel = g.tp;
        m.pipelineParallel = g.pp;
        SetAchieved(m,
                    TokensPerGpuSecond(g.tokens, g.gpuHours) * m.flopsPerSample / m.sequenceLength);
        zoo[m.name] = m;
    }

    // ---- Mixtral-8x7B [MIXTRAL] (MoE) ----
    {
        ModelSpec m;
        m.name = "mixtral-8x7b";
        m.description = "Mixtral-8x7B MoE, 8 experts top-2 (Jiang et al. 2024)";
        Shape t;
        t.layers = 32;
        t.hidden = 4096;
        t.heads = 32;
        t.kvHeads = 8;
        t.ffn = 14336;
        t.vocab = 32000;
        t.seq = 4096;
        t.experts = 8;
        t.topK = 2;
        Transformer(m, t);
        m.globalBatch = 1024;
        m.referenceGpus = 2048;
        m.tensorParallel = 1;
        m.pipelineParallel = 4;
        m.expertParallel = 8;
        SetAchieved(m, 0.35 * ModelZoo::A100_PEAK_FLOPS); // ASSUMPTION, see above
        zoo[m.name] = m;
    }

    // ---- Megatron-LM's H100 table models [MEGTAB] (shapes, plans and batches only) ----
    struct MegatronH100
    {
        const char* name;        //!< zoo key
        const char* description; //!< description
        uint32_t layers;         //!< l
        uint32_t hidden;         //!< h
        uint32_t heads;          //!< heads
        uint32_t tp;             //!< the row's TP
        uint32_t pp;             //!< the row's PP
        uint32_t gpus;           //!< the row's GPUs
        uint32_t batch;          //!< the row's batch (sequences)
    };

    for (const MegatronH100& g : {
             MegatronH100{"megatron-1.7b",
                          "GPT 1.7B of Megatron-LM's H100 table (V 131072, seq 4096)",
                          24,
                          2048,
                          16,
                          1,
                          1,
                          48,
                          192},
             MegatronH100{"megatron-7.1b",
                          "GPT 7.1B of Megatron-LM's H100 table (V 131072, seq 4096)",
                          30,
                          4096,
                          32,
                          2,
                          1,
                          96,
                          192},
             MegatronH100{"megatron-177b",
                          "GPT 177B of Megatron-LM's H100 table (V 131072, seq 4096)",
                          96,
                          12288,
                          96,
                          8,
                          6,
                          2304,
                          1152},
         })
    {
        ModelSpec m;
        m.name = g.name;
        m.description = g.description;
        Shape t;
        t.layers = g.layers;
        t.hidden = g.hidden;
        t.heads = g.heads;
        t.kvHeads = g.heads;
        t.ffn = 4 * g.hidden;
        t.vocab = 131072;
        t.seq = 4096;
        t.gpt3 = true;
        t.untied = true; // the table's parameter counts, see above
        Transformer(m, t);
        m.globalBatch = g.batch;
        m.referenceGpus = g.gpus;
        m.tensorParallel = g.tp;
        m.pipelineParallel = g.pp;
        SetAchieved(m, 0.514 * ModelZoo::A100_PEAK_FLOPS); // [MEGMFU]; ASSUMPTION, see above
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

double
ModelSpec::SamplesPerIteration(uint32_t numGpus) const
{
    if (referenceGpus == 0)
    {
        throw std::invalid_argument("ModelSpec '" + name + "': referenceGpus must be >= 1");
    }
    return static_cast<double>(globalBatch) * numGpus / referenceGpus;
}

double
ModelSpec::BucketSize() const
{
    if (bucketBytes > 0)
    {
        return bucketBytes;
    }
    return static_cast<double>(GradientBytes()) / std::max<uint32_t>(1, numBuckets);
}

bool
ModelSpec::IsTransformer() const
{
    return layers > 0 && hidden > 0;
}

bool
ModelSpec::IsMoe() const
{
    return experts > 0;
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
