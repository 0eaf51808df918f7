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

// Training steps as a paper writes them: the scenario fields (globalBatch, microBatchSize,
// sequenceLength, gpu, precision, recompute, optimizer, parallelism.virtualStages), the GPU
// catalog's data-sheet numbers, the FLOPs per sequence at another length, and the resolved
// step's compute rate.

#include "ns3/crux-scenario.h"
#include "ns3/model-zoo.h"
#include "ns3/parallel-plan.h"
#include "ns3/training-step.h"

#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

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

/// A one-job scenario whose job object has \p extra fields added.
std::string
OneJob(const std::string& extra)
{
    return R"({"jobs": [{"model": "gpt3-175b", "gpus": 64)" + extra + "}]}";
}

/// \return the PlanError field of resolving a step ("" if it resolved)
std::string
StepFieldOf(const TrainingStepRequest& req, const std::string& model, uint32_t gpus)
{
    try
    {
        ResolveTrainingStep(req, ModelZoo::Get(model), gpus);
    }
    catch (const PlanError& e)
    {
        return e.Field();
    }
    return "";
}

} // namespace

TEST(TrainingStep, ScenarioFieldsReadAndWritten)
{
    const Scenario s = Scenario::Parse(
        OneJob(R"(, "globalBatch": 2688, "microBatchSize": 1, "sequenceLength": 2048,
                  "gpu": "h100-sxm", "precision": "fp8", "recompute": "selective",
                  "optimizer": "distributed", "parallelism": {"tp": 4, "virtualStages": 2})"),
        "t.json");
    const auto& st = s.jobs[0].step;
    EXPECT_EQ(st.globalBatch, 2688u);
    EXPECT_EQ(st.microBatchSize, 1u);
    EXPECT_EQ(st.sequenceLength, 2048u);
    EXPECT_EQ(st.gpu, "h100-sxm");
    EXPECT_EQ(st.precision, "fp8");
    EXPECT_EQ(st.recompute, "selective");
    EXPECT_EQ(st.optimizer, "distributed");
    EXPECT_EQ(s.jobs[0].parallelism.virtualStages, 2u);
    // written back and read again: the same fields
    const Scenario back = Scenario::Parse(s.ToJson(), "back.json");
    EXPECT_EQ(back.jobs[0].step.globalBatch, 2688u);
    EXPECT_EQ(back.jobs[0].step.gpu, "h100-sxm");
    EXPECT_EQ(back.jobs[0].step.optimizer, "distributed");
    EXPECT_EQ(back.jobs[0].parallelism.virtualStages, 2u);
    // a job without them writes none of them (scenario copies of shipped runs unchanged)
    const Scenario plain = Scenario::Parse(OneJob(""), "p.json");
    EXPECT_TRUE(plain.jobs[0].step.Empty());
    EXPECT_EQ(plain.ToJson().find("globalBatch"), std::string::npos);
    EXPECT_EQ(plain.ToJson().find("recompute"), std::string::npos);
    // microBatchSize and optimizer need micro-batches: the job becomes planned
    EXPECT_TRUE(Scenario::Parse(OneJob(R"(, "microBatchSize": 2)"), "t").jobs[0].hasPlan);
    EXPECT_FALSE(Scenario::Parse(OneJob(R"(, "gpu": "a100-80gb")"), "t").jobs[0].hasPlan);
}

TEST(TrainingStep, ReaderRefusesBadValuesNamingTheField)
{
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "recompute": "some")"))
                  .find("t.json: jobs[0].recompute: unknown value 'some' (known: none, "
                        "selective, full)"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "precision": "fp4")")).find("jobs[0].precision"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "optimizer": "zero3")")).find("jobs[0].optimizer"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "globalBatch": 0)"))
                  .find("jobs[0].globalBatch: must "
                        "be >= 1"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "sequenceLength": -4)")).find("jobs[0].sequenceLength"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "gpu": "")")).find("jobs[0].gpu"), std::string::npos);
    EXPECT_NE(ScenarioErrorOf(OneJob(R"(, "parallelism": {"virtualStages": 0})"))
                  .find("jobs[0].parallelism.virtualStages: must be >= 1"),
              std::string::npos);
}

TEST(TrainingStep, GpuCatalogDataSheets)
{
    EXPECT_EQ(GpuCatalog::Names(),
              (std::vector<std::string>{"a100-40gb", "a100-80gb", "h100-sxm", "h200-sxm"}));
    EXPECT_DOUBLE_EQ(GpuCatalog::Get("a100-80gb").peakBf16, 312e12);
    EXPECT_DOUBLE_EQ(GpuCatalog::Get("a100-40gb").peakBf16, 312e12);
    EXPECT_FALSE(GpuCatalog::Get("a100-80gb").HasFp8());
    // H100 / H200 SXM: 1,979 and 3,958 TFLOPS with sparsity, half of it dense
    for (const char* g : {"h100-sxm", "h200-sxm"})
    {
        EXPECT_NEAR(GpuCatalog::Get(g).peakBf16 * 2, 1979e12, 0.5e12) << g;
        EXPECT_NEAR(GpuCatalog::Get(g).peakFp8 * 2, 3958e12, 0.5e12) << g;
        EXPECT_TRUE(GpuCatalog::Get(g).HasFp8()) << g;
    }
    // achieved: 430 TFLOP/s bf16 (Llama 3), 737 TFLOP/s fp8 (Megatron-Bridge, Llama 3.1 405B)
    EXPECT_NEAR(GpuCatalog::Get("h100-sxm").AchievedFlops(Precision::BF16), 430e12, 1e9);
    EXPECT_NEAR(GpuCatalog::Get("h100-sxm").AchievedFlops(Precision::FP8), 737e12, 1e9);
    EXPECT_NEAR(GpuCatalog::Get("a100-80gb").AchievedFlops(Precision::BF16), 0.528 * 312e12, 1e9);
    EXPECT_THROW(GpuCatalog::Get("a100-80gb").AchievedFlops(Precision::FP8), std::invalid_argument);
    EXPECT_THROW(GpuCatalog::Get("v100"), std::invalid_argument);
}

TEST(TrainingStep, FlopsAtAnotherSequenceLength)
{
    // Llama 2 70B (zoo at s 4096): Megatron's count at s 2048 = 6 (active + V h) s + 12 l h s²
    const ModelSpec m = ModelZoo::Get("llama2-70b");
    const double perToken4096 = m.flopsPerSample / 4096;
    const double dense = perToken4096 - 12.0 * m.layers * m.hidden * 4096;
    const double want = dense * 2048 + 12.0 * m.layers * m.hidden * 2048.0 * 2048;
    EXPECT_NEAR(TrainingFlopsPerSequence(m, 2048, Recompute::NONE) / want, 1, 1e-12);
    EXPECT_NEAR(TrainingFlopsPerSequence(m, 4096, Recompute::NONE) / m.flopsPerSample, 1, 1e-12);
    // "gpt" counts 6N per token (no score term): linear in s
    const ModelSpec g = ModelZoo::Get("gpt");
    EXPECT_NEAR(TrainingFlopsPerSequence(g, 1024, Recompute::NONE) / (g.flopsPerSample / 2),
                1,
                1e-12);
    // the attention share grows with s (scores 4 s h per token and layer)
    EXPECT_GT(AttentionFractionAt(m, 8192), m.attentionFraction);
    EXPECT_NEAR(AttentionFractionAt(m, 4096), m.attentionFraction, 1e-12);
    EXPECT_THROW(TrainingFlopsPerSequence(ModelZoo::Get("resnet50"), 1, Recompute::NONE),
                 std::invalid_argument);
}

TEST(TrainingStep, ResolvedRateAndDefaults)
{
    // no gpu: the zoo's calibrated rate; the step's compute time equals the zoo's
    TrainingStepRequest req;
    req.recompute = "none";
    const ModelSpec m = ModelZoo::Get("gpt3-175b");
    const TrainingStep st = ResolveTrainingStep(req, m, 1024);
    EXPECT_DOUBLE_EQ(st.globalBatch, 1536);
    EXPECT_EQ(st.sequenceLength, 2048u);
    EXPECT_EQ(st.microBatchSize, 1u);
    EXPECT_NEAR(st.globalBatch * st.flopsPerSequence / (1024 * st.flopsPerGpuSecond) /
                    m.computeTime,
                1,
                1e-12);
    EXPECT_FALSE(st.exactBatch);
    // the MLPerf GPT-3 175B shape on 10,752 H100 in FP8
    req = TrainingStepRequest();
    req.globalBatch = 2688;
    req.microBatchSize = 1;
    req.gpu = "h100-sxm";
    req.precision = "fp8";
    const TrainingStep big = ResolveTrainingStep(req, m, 10752);
    EXPECT_TRUE(big.exactBatch);
    EXPECT_NEAR(big.flopsPerGpuSecond, 737e12, 1e9);
    EXPECT_NEAR(big.forwardShare, 1.0 / 3, 1e-12);
    EXPECT_EQ(big.recomputeShare, 0);
    // errors name the field
    req = TrainingStepRequest();
    req.precision = "fp8";
    EXPECT_EQ(StepFieldOf(req, "gpt3-175b", 64), "precision"); // no gpu: the zoo's A100 rate
    req.precision = "";
    req.recompute = "full";
    EXPECT_EQ(StepFieldOf(req, "resnet50", 8), "recompute");
    req.recompute = "";
    req.gpu = "b200";
    EXPECT_EQ(StepFieldOf(req, "gpt3-175b", 64), "gpu");
}
