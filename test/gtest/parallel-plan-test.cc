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

// Parallelism plans: the scenario fields "parallelism" / "collectives", the documented
// defaults, one clear error naming the field per inconsistency, and the LLM zoo entries'
// numbers against their published sizes.

#include "ns3/crux-scenario.h"
#include "ns3/model-zoo.h"
#include "ns3/parallel-plan.h"

#include <gtest/gtest.h>
#include <string>
#include <tuple>

using namespace ns3;

namespace
{

/// \return "field: detail" of the PlanError of resolving \p req ("" if it resolved)
std::string
PlanErrorOf(const ParallelismRequest& req,
            const std::string& model,
            uint32_t gpus,
            uint32_t perHost,
            std::string* field = nullptr)
{
    try
    {
        ResolvePlan(req, ModelZoo::Get(model), gpus, perHost);
    }
    catch (const PlanError& e)
    {
        if (field)
        {
            *field = e.Field();
        }
        return e.what();
    }
    return "";
}

/// \return the ScenarioError message of parsing \p text ("" if it parsed)
std::string
ScenarioErrorOf(const std::string& text)
{
    try
    {
        Scenario::Parse(text, "t.json");
    }
    catch (const ScenarioError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(ParallelPlan, DefaultsFollowTheZooAndTheGpus)
{
    // GPT-3 175B on 1024 GPUs: Megatron's TP 8 x PP 16 -> DP 8; 1536 sequences / 8 replicas
    ParallelPlan p = ResolvePlan({}, ModelZoo::Get("gpt3-175b"), 1024, 8);
    EXPECT_EQ(p.tp, 8u);
    EXPECT_EQ(p.pp, 16u);
    EXPECT_EQ(p.dp, 8u);
    EXPECT_EQ(p.ep, 1u);
    EXPECT_EQ(p.microBatches, 192u);
    EXPECT_EQ(p.allReduce, "nccl");
    // 64 GPUs of it: PP lowered to the largest divisor of 64 / 8 = 8 that is <= 16 -> DP 1
    p = ResolvePlan({}, ModelZoo::Get("gpt3-175b"), 64, 8);
    EXPECT_EQ(p.pp, 8u);
    EXPECT_EQ(p.dp, 1u);
    // 4 GPUs per host: TP lowered to 4 (stays inside a host)
    p = ResolvePlan({}, ModelZoo::Get("gpt3-13b"), 16, 4);
    EXPECT_EQ(p.tp, 4u);
    EXPECT_EQ(p.dp, 4u);
    // dp given: pp = N / (tp dp)
    ParallelismRequest r;
    r.dp = 2;
    p = ResolvePlan(r, ModelZoo::Get("llama2-70b"), 64, 8);
    EXPECT_EQ(p.tp, 8u);
    EXPECT_EQ(p.pp, 4u);
    // Mixtral: TP 1, EP 8, PP 4 (Megatron's recommendation) on 64 GPUs -> DP 16
    p = ResolvePlan({}, ModelZoo::Get("mixtral-8x7b"), 64, 8);
    EXPECT_EQ(p.tp, 1u);
    EXPECT_EQ(p.pp, 4u);
    EXPECT_EQ(p.dp, 16u);
    EXPECT_EQ(p.ep, 8u);
    // EP lowered to divide dp: 8 GPUs, PP 4 -> DP 2 -> EP 2
    p = ResolvePlan({}, ModelZoo::Get("mixtral-8x7b"), 8, 8);
    EXPECT_EQ(p.dp, 2u);
    EXPECT_EQ(p.ep, 2u);
    // a model without transformer layers: data parallelism only
    p = ResolvePlan({}, ModelZoo::Get("resnet50"), 16, 8);
    EXPECT_EQ(p.tp, 1u);
    EXPECT_EQ(p.pp, 1u);
    EXPECT_EQ(p.dp, 16u);
    // given values are kept; TP across hosts when the plan says so (tp a multiple of 4)
    r = {};
    r.tp = 8;
    r.pp = 1;
    r.microBatches = 3;
    r.allReduce = "halving-doubling";
    p = ResolvePlan(r, ModelZoo::Get("gpt3-13b"), 16, 4);
    EXPECT_EQ(p.tp, 8u);
    EXPECT_EQ(p.dp, 2u);
    EXPECT_EQ(p.microBatches, 3u);
    EXPECT_EQ(p.allReduce, "halving-doubling");
}

TEST(ParallelPlan, EachInconsistencyIsOneErrorNamingTheField)
{
    std::string field;
    ParallelismRequest r;
    r.tp = 8;
    r.pp = 2;
    r.dp = 2;
    EXPECT_NE(PlanErrorOf(r, "gpt3-13b", 64, 8, &field)
                  .find("tp x pp x dp = 8 x 2 x 2 = 32, "
                        "but the job has 64 GPUs"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism");
    r = {};
    r.tp = 3;
    EXPECT_NE(PlanErrorOf(r, "gpt3-13b", 24, 8, &field).find("neither divides the job's 8 GPUs"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism.tp");
    r = {};
    r.tp = 16;
    EXPECT_NE(PlanErrorOf(r, "gpt3-1.3b", 32, 8, &field).find("the model's 24 attention heads"),
              std::string::npos)
        << PlanErrorOf(r, "gpt3-1.3b", 32, 8);
    EXPECT_EQ(field, "parallelism.tp");
    r = {};
    r.tp = 1;
    r.pp = 48;
    EXPECT_NE(PlanErrorOf(r, "gpt", 48, 8, &field).find("larger than the model's 24 layers"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism.pp");
    r = {};
    r.ep = 3;
    r.pp = 1;
    EXPECT_NE(PlanErrorOf(r, "mixtral-8x7b", 48, 8, &field)
                  .find("does not divide the model's 8 "
                        "experts"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism.ep");
    r.ep = 4;
    r.pp = 8;
    r.dp = 6;
    EXPECT_NE(PlanErrorOf(r, "mixtral-8x7b", 48, 8, &field).find("does not divide dp = 6"),
              std::string::npos);
    r = {};
    r.ep = 2;
    EXPECT_NE(PlanErrorOf(r, "gpt3-13b", 16, 8, &field).find("has no experts"), std::string::npos);
    EXPECT_EQ(field, "parallelism.ep");
    r = {};
    r.tp = 2;
    EXPECT_NE(PlanErrorOf(r, "resnet50", 16, 8, &field).find("no transformer layers"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism.tp");
    r = {};
    r.allReduce = "butterfly";
    EXPECT_NE(PlanErrorOf(r, "gpt", 16, 8, &field).find("unknown algorithm 'butterfly'"),
              std::string::npos);
    EXPECT_EQ(field, "collectives.allReduce");
    r = {};
    r.pp = 3;
    EXPECT_NE(PlanErrorOf(r, "gpt", 16, 8, &field).find("does not divide the job's 16 GPUs"),
              std::string::npos);
    EXPECT_EQ(field, "parallelism.pp");
}

TEST(ParallelPlan, ScenarioFields)
{
    Scenario s = Scenario::Parse(
        R"({"jobs":[{"model":"gpt3-13b","gpus":32,
              "parallelism":{"tp":8,"pp":2,"microBatches":16,"sequenceParallel":true},
              "collectives":{"allReduce":"hierarchical","allToAll":"pairwise"}},
             {"model":"gpt","gpus":8}]})",
        "t.json");
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_TRUE(s.jobs[0].hasPlan);
    EXPECT_EQ(s.jobs[0].parallelism.tp, 8u);
    EXPECT_EQ(s.jobs[0].parallelism.pp, 2u);
    EXPECT_EQ(s.jobs[0].parallelism.dp, 0u); // default
    EXPECT_EQ(s.jobs[0].parallelism.microBatches, 16u);
    EXPECT_TRUE(s.jobs[0].parallelism.sequenceParallel);
    EXPECT_EQ(s.jobs[0].parallelism.allReduce, "hierarchical");
    EXPECT_FALSE(s.jobs[1].hasPlan);
    // the copy written to the results reads back the same; a job without a plan has no keys
    const std::string json = s.ToJson();
    Scenario back = Scenario::Parse(json, "copy.json");
    EXPECT_TRUE(back.jobs[0].hasPlan);
    EXPECT_EQ(back.jobs[0].parallelism.pp, 2u);
    EXPECT_EQ(back.jobs[0].parallelism.allReduce, "hierarchical");
    EXPECT_FALSE(back.jobs[1].hasPlan);
    EXPECT_EQ(json.find("parallelism"), json.rfind("parallelism")); // once: job 0 only

    EXPECT_NE(ScenarioErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,
        "collectives":{"allReduce":"butterfly"}}]})")
                  .find("t.json: jobs[0].collectives.allReduce: unknown algorithm 'butterfly'"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,
        "collectives":{"allToAll":"bruck"}}]})")
                  .find("jobs[0].collectives.allToAll: unknown algorithm 'bruck'"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,"parallelism":{"tp":0}}]})")
                  .find("jobs[0].parallelism.tp: must be >= 1"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,"parallelism":{"cp":2}}]})")
                  .find("jobs[0].parallelism.cp: unknown key"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,"parallelism":{"tp":"8"}}]})")
                  .find("jobs[0].parallelism.tp: must be a non-negative integer"),
              std::string::npos);
}

TEST(ModelZoo, LlmSizesMatchThePublishedOnes)
{
    // parameters computed from the configurations vs the published sizes (facts §6-§8)
    const std::pair<const char*, double> sizes[] = {{"gpt3-1.3b", 1.3e9},
                                                    {"gpt3-2.7b", 2.7e9},
                                                    {"gpt3-6.7b", 6.7e9},
                                                    {"gpt3-13b", 13.0e9},
                                                    {"gpt3-175b", 175.0e9},
                                                    {"llama-7b", 6.7e9},
                                                    {"llama-13b", 13.0e9},
                                                    {"llama-33b", 32.5e9},
                                                    {"llama-65b", 65.2e9},
                                                    {"llama2-7b", 6.7e9},
                                                    {"llama2-13b", 13.0e9},
                                                    {"llama2-70b", 69.0e9},
                                                    {"mixtral-8x7b", 46.7e9}};
    for (const auto& [name, published] : sizes)
    {
        const ModelSpec m = ModelZoo::Get(name);
        EXPECT_NEAR(m.parameters / published, 1.0, 0.025) << name << ": " << m.parameters;
        EXPECT_TRUE(m.IsTransformer()) << name;
        EXPECT_GT(m.computeTime, 0) << name;
        const double mfu = m.AchievedFlopsPerGpu() / ModelZoo::A100_PEAK_FLOPS;
        EXPECT_GT(mfu, 0.3) << name;
        EXPECT_LT(mfu, 0.55) << name;
    }
    // Mixtral: 12.9 B active parameters (arXiv 2401.04088: 13 B)
    const ModelSpec mx = ModelZoo::Get("mixtral-8x7b");
    EXPECT_NEAR((mx.parameters - mx.expertParameters * 6.0 / 8.0) / 12.88e9, 1.0, 0.01);
    EXPECT_TRUE(mx.IsMoe());
    // LLaMA 65B: the paper's 380 tokens per GPU-second
    const ModelSpec l65 = ModelZoo::Get("llama-65b");
    const double tokensPerGpuSecond = l65.AchievedFlopsPerGpu() / (l65.flopsPerSample / 2048);
    EXPECT_NEAR(tokensPerGpuSecond, 380.4, 0.5);
    // GPT-3 175B: FLOPs per token with attention = 72 l h² (1 + s/6h) + 6 h V (facts §6)
    const ModelSpec g = ModelZoo::Get("gpt3-175b");
    const double l = 96;
    const double h = 12288;
    const double s = 2048;
    const double perToken = 72 * l * h * h * (1 + s / (6 * h)) + 6 * h * 50257;
    EXPECT_NEAR(g.flopsPerSample / s / perToken, 1.0, 1e-9);
    EXPECT_NEAR(g.AchievedFlopsPerGpu() / ModelZoo::A100_PEAK_FLOPS, 0.514, 1e-9);
}

TEST(ModelZoo, MegatronH100TableModels)
{
    // Megatron-LM README's H100 table (model-zoo.cc [MEGTAB]): V 131072, s 4096, untied output
    // layer: 12 l h² + 13 l h + (V + s) h + V h parameters, "1.7B", "7.1B" and "177B" in the table
    const std::tuple<const char*, double, double, double, uint32_t, uint32_t> rows[] = {
        {"megatron-1.7b", 24, 2048, 1.7e9, 1, 1},
        {"megatron-7.1b", 30, 4096, 7.1e9, 2, 1},
        {"megatron-177b", 96, 12288, 177e9, 8, 6}};
    for (const auto& [name, l, h, published, tp, pp] : rows)
    {
        const ModelSpec m = ModelZoo::Get(name);
        const double v = 131072;
        const double s = 4096;
        EXPECT_DOUBLE_EQ(m.parameters, 12 * l * h * h + 13 * l * h + (v + s) * h + v * h) << name;
        EXPECT_NEAR(m.parameters / published, 1.0, 0.035) << name;
        EXPECT_EQ(m.sequenceLength, 4096u) << name;
        EXPECT_EQ(m.vocab, 131072u) << name;
        EXPECT_EQ(m.tensorParallel, tp) << name;
        EXPECT_EQ(m.pipelineParallel, pp) << name;
        // Megatron's num_floating_point_operations for this shape (no GQA, no SwiGLU):
        // 72 l h² s (1 + s/6h) + 6 s h V per sequence
        EXPECT_NEAR(m.flopsPerSample / (72 * l * h * h * s * (1 + s / (6 * h)) + 6 * s * h * v),
                    1.0,
                    1e-12)
            << name;
    }
}
