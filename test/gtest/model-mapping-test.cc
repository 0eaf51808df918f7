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

// Lingjun model labels -> model zoo, the seeded draw for unknown labels, and the zoo entries
// added for the trace runs (numbers from model-zoo.cc's sources).

#include "ns3/model-mapping.h"
#include "ns3/model-zoo.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <string>

using namespace ns3;

TEST(ModelMapping, RealLabelsMapOntoZooFamilies)
{
    const std::map<std::string, std::string> expect{{"GPT-13b", "gpt3-13b"},
                                                    {"GPT-13B", "gpt3-13b"},
                                                    {"GPT-3b", "gpt3-2.7b"},
                                                    {"GPT-7b", "gpt3-6.7b"},
                                                    {"gpt-175b", "gpt3-175b"},
                                                    {"GPT", "gpt"},
                                                    {"llama", "llama-7b"},
                                                    {"llama_30b", "llama-33b"},
                                                    {"llama-65B", "llama-65b"},
                                                    {"llama2-13b", "llama2-13b"},
                                                    {"Llama-2-70b", "llama2-70b"},
                                                    {"llama_70b", "llama2-70b"},
                                                    {"65b", "llama-65b"},
                                                    {"7B", "llama-7b"},
                                                    {"mixtral-8x7b", "mixtral-8x7b"},
                                                    {"ResNet", "resnet50"},
                                                    {"mnist", "resnet50"},
                                                    {"bert-base", "bert-large"},
                                                    {"RoBERTa", "bert-large"},
                                                    {"NMT", "nmt-transformer-big"},
                                                    {"MIND", "multi-interests"},
                                                    {"multi_interest", "multi-interests"},
                                                    {"CTR", "ctr-dlrm"},
                                                    {"deepfm", "ctr-dlrm"}};
    ModelMapper mapper(42);
    for (const auto& [label, zoo] : expect)
    {
        ModelAssignment a = mapper.Map(label, "job-" + label);
        EXPECT_EQ(a.zooModel, zoo) << label;
        EXPECT_TRUE(a.fromLabel) << label;
        EXPECT_TRUE(ModelZoo::Has(a.zooModel)) << label;
        // the LLMs run with their default plan; "GPT" (the §2.2 model) and the rest do not
        EXPECT_EQ(a.withPlan,
                  zoo != "gpt" && ModelZoo::Get(zoo).IsTransformer() && zoo != "bert-large")
            << label;
    }
    for (const char* label : {"unknown", "cognitive", "rl", "preprocess", "DLM", "dota", "", "7"})
    {
        EXPECT_FALSE(ModelMapper::MatchLabel(label).has_value()) << label;
    }
    EXPECT_DOUBLE_EQ(*ModelMapper::LabelParameters("GPT-13b"), 13e9);
    EXPECT_DOUBLE_EQ(*ModelMapper::LabelParameters("llama_30b"), 30e9);
    EXPECT_DOUBLE_EQ(*ModelMapper::LabelParameters("65b"), 65e9);
    EXPECT_DOUBLE_EQ(*ModelMapper::LabelParameters("gpt-3.5B"), 3.5e9);
    EXPECT_DOUBLE_EQ(*ModelMapper::LabelParameters("bert-340m"), 340e6);
    EXPECT_FALSE(ModelMapper::LabelParameters("llama").has_value());
    EXPECT_FALSE(ModelMapper::LabelParameters("resnet50").has_value());
    EXPECT_FALSE(ModelMapper::LabelParameters("v2beta").has_value());
    EXPECT_DOUBLE_EQ(*mapper.Map("GPT-7b", "j").labelParameters, 7e9);
}

TEST(ModelMapping, UnknownLabelsGetASeededDrawKeyedByJobName)
{
    ModelMapper a(7);
    ModelMapper b(7);
    ModelMapper c(8);
    ASSERT_EQ(a.Candidates(), ModelMapper::DefaultCandidates());
    for (const auto& name : a.Candidates())
    {
        EXPECT_TRUE(ModelZoo::Has(name)) << name;
    }
    std::map<std::string, int> counts;
    int differs = 0;
    const int n = 6000;
    for (int i = 0; i < n; ++i)
    {
        const std::string job = "dlc" + std::to_string(i);
        ModelAssignment x = a.Map("unknown", job);
        EXPECT_FALSE(x.fromLabel);
        EXPECT_EQ(x.zooModel, b.Map("cognitive", job).zooModel); // same seed, same job
        differs += x.zooModel != c.Map("unknown", job).zooModel;
        ++counts[x.zooModel];
    }
    // Independent of call order: the 100th job maps alike after other calls.
    EXPECT_EQ(ModelMapper(7).Map("rl", "dlc100").zooModel, a.Map("rl", "dlc100").zooModel);
    // Uniform over the 6 zoo entries: each within 5 standard deviations of n / 6.
    ASSERT_EQ(counts.size(), ModelMapper::DefaultCandidates().size());
    const double mean = static_cast<double>(n) / counts.size();
    const double sd = std::sqrt(n * (1.0 / counts.size()) * (1 - 1.0 / counts.size()));
    for (const auto& [name, k] : counts)
    {
        EXPECT_NEAR(k, mean, 5 * sd) << name;
    }
    // Another seed changes about 5/6 of the draws.
    EXPECT_NEAR(static_cast<double>(differs) / n, 5.0 / 6, 0.03);

    ModelMapper only(1, {"gpt", "resnet50"});
    for (int i = 0; i < 50; ++i)
    {
        const std::string m = only.Map("dota", std::to_string(i)).zooModel;
        EXPECT_TRUE(m == "gpt" || m == "resnet50") << m;
    }
    EXPECT_THROW(ModelMapper(1, {"gpt", "gtp"}), std::invalid_argument);
}

TEST(ModelZooTrace, AddedModelsCarryTheirSourcedNumbers)
{
    const ModelSpec nmt = ModelZoo::Get("nmt-transformer-big");
    EXPECT_DOUBLE_EQ(nmt.parameters, 213e6);                // Vaswani et al., Table 3
    EXPECT_EQ(nmt.GradientBytes(), 426000000u);             // fp16
    EXPECT_NEAR(nmt.computeTime, 10240.0 / 82059.0, 1e-12); // 1 x A100, NVIDIA README
    EXPECT_NEAR(nmt.AchievedFlopsPerGpu() / ModelZoo::A100_PEAK_FLOPS, 0.336, 0.001);
    EXPECT_EQ(nmt.numBuckets, 17u);
    EXPECT_DOUBLE_EQ(nmt.FlopsPerIteration(16), 2 * nmt.FlopsPerIteration(8));

    const ModelSpec mind = ModelZoo::Get("multi-interests");
    EXPECT_DOUBLE_EQ(mind.parameters, 1708531.0 * 64 + 64 * 64);
    EXPECT_EQ(mind.GradientBytes(), 437400320u); // fp32, whole table (upper bound)
    EXPECT_DOUBLE_EQ(mind.flopsPerSample, 2596224);
    EXPECT_DOUBLE_EQ(mind.FlopsPerIteration(1), 2596224.0 * 256);

    const ModelSpec ctr = ModelZoo::Get("ctr-dlrm");
    EXPECT_DOUBLE_EQ(ctr.parameters, 2368897);
    EXPECT_DOUBLE_EQ(ctr.flopsPerSample, 14750976);
    EXPECT_NEAR(ctr.computeTime, 0.015034, 1e-6);
    EXPECT_NEAR(ctr.AchievedFlopsPerGpu() / 1e12, 32.15, 0.05);

    // Existing entries are unchanged.
    EXPECT_DOUBLE_EQ(ModelZoo::Get("gpt").computeTime, 1.43);
    EXPECT_DOUBLE_EQ(ModelZoo::Get("bert-large").parameters, 340e6);
    EXPECT_DOUBLE_EQ(ModelZoo::Get("resnet50").parameters, 25.6e6);
    // GPU intensity ordering the entries imply on one GPU's compute: a communication-heavy MIND
    // moves far more bytes per FLOP than the transformer models.
    const double mindBytesPerFlop =
        mind.GradientBytes() / (mind.FlopsPerIteration(1) / mind.referenceGpus);
    const double nmtBytesPerFlop = nmt.GradientBytes() / (nmt.FlopsPerIteration(8) / 8);
    EXPECT_GT(mindBytesPerFlop, 100 * nmtBytesPerFlop);
}
