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

// Scenario-file reader: defaults, overrides, and one clear error per kind of bad input.

#include "ns3/crux-scenario.h"

#include <gtest/gtest.h>
#include <string>

using ns3::Scenario;
using ns3::ScenarioError;

namespace
{

/// \return the ScenarioError message of parsing \p text ("" if it parsed)
std::string
ErrorOf(const std::string& text)
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

TEST(Scenario, ReadsFieldsAndKeepsDefaults)
{
    Scenario s = Scenario::Parse(R"({"name":"x","scheduler":"ecmp","priorityLevels":3,
        "topology":{"tors":4,"hostLinkRate":"25Gbps"},
        "jobs":[{"model":"gpt","hosts":[0,1],"gpusPerHost":8,"start":0.5,"iterations":3},
                {"model":"bert-large","gpus":16}]})",
                                 "t.json");
    EXPECT_EQ(s.name, "x");
    EXPECT_EQ(s.scheduler, "ecmp");
    EXPECT_EQ(s.priorityLevels, 3u);
    EXPECT_EQ(s.topology.tors, 4u);
    EXPECT_EQ(s.topology.aggs, 2u); // default kept
    EXPECT_EQ(s.topology.hostLinkRate, "25Gbps");
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[0].hosts, (std::vector<uint32_t>{0, 1}));
    EXPECT_DOUBLE_EQ(s.jobs[0].start, 0.5);
    EXPECT_EQ(s.jobs[0].iterations, 3u);
    EXPECT_EQ(s.jobs[1].name, "job1");
    EXPECT_EQ(s.jobs[1].gpus, 16u);
    EXPECT_EQ(s.congestionControl, "dcqcn"); // default
    // Round trip through ToJson keeps every field.
    Scenario r = Scenario::Parse(s.ToJson(), "round-trip");
    EXPECT_EQ(r.ToJson(), s.ToJson());
}

TEST(Scenario, CongestionControlIsReadCheckedAndWrittenForThePacketFabric)
{
    for (const std::string cc : {"dcqcn", "hpcc", "none"})
    {
        Scenario s = Scenario::Parse(R"({"congestionControl":")" + cc +
                                         R"(","jobs":[{"model":"gpt","gpus":8}]})",
                                     "t.json");
        EXPECT_EQ(s.congestionControl, cc);
        EXPECT_NE(s.ToJson().find(R"("congestionControl": ")" + cc + "\""), std::string::npos);
        EXPECT_EQ(Scenario::Parse(s.ToJson(), "round-trip").congestionControl, cc);
    }
    EXPECT_NE(ErrorOf(R"({"congestionControl":"cubic","jobs":[{"model":"gpt","gpus":8}]})")
                  .find("t.json: congestionControl: unknown value 'cubic' (known: dcqcn, hpcc, "
                        "none)"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"congestionControl":1,"jobs":[{"model":"gpt","gpus":8}]})")
                  .find("congestionControl: must be a string"),
              std::string::npos);
    // the flow fabric has no congestion control: the field is not written for it
    Scenario f = Scenario::Parse(
        R"({"fabric":"flow","congestionControl":"hpcc","jobs":[{"model":"gpt","gpus":8}]})",
        "t.json");
    EXPECT_EQ(f.ToJson().find("congestionControl"), std::string::npos);
}

TEST(Scenario, MalformedJsonNamesTheFile)
{
    std::string e = ErrorOf("{\"jobs\": [");
    EXPECT_NE(e.find("t.json: malformed JSON"), std::string::npos) << e;
}

TEST(Scenario, MissingFileNamesTheFile)
{
    try
    {
        Scenario::Load("/nonexistent/dir/s.json");
        FAIL() << "no error";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/s.json: cannot open"),
                  std::string::npos);
    }
}

TEST(Scenario, UnknownKeyIsAnError)
{
    std::string e = ErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,"iteratoins":3}]})");
    EXPECT_NE(e.find("jobs[0].iteratoins: unknown key"), std::string::npos) << e;
    e = ErrorOf(R"({"schedular":"crux","jobs":[{"model":"gpt","gpus":8}]})");
    EXPECT_NE(e.find("schedular: unknown key"), std::string::npos) << e;
}

TEST(Scenario, RangeErrorsNameTheField)
{
    EXPECT_NE(ErrorOf(R"({"priorityLevels":0,"jobs":[{"model":"gpt","gpus":8}]})")
                  .find("priorityLevels: must be 1..8"),
              std::string::npos);
    EXPECT_NE(
        ErrorOf(R"({"jobs":[{"model":"gpt","gpus":8,"iterations":0}]})").find("jobs[0].iterations"),
        std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[]})").find("jobs: must be a non-empty array"), std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"gpus":8}]})").find("jobs[0].model: missing"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"topology":{"type":"torus"},"jobs":[{"model":"gpt","gpus":8}]})")
                  .find("topology.type: unknown topology 'torus'"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"model":"gpt","gpus":-3}]})").find("jobs[0].gpus"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"model":"gpt","gpus":"8"}]})").find("jobs[0].gpus"),
              std::string::npos);
}

TEST(Scenario, ChakraJob)
{
    Scenario s = Scenario::Parse(R"({"jobs":[{"name":"et","chakra":"traces/llm","gpus":8,
        "collectives":{"allReduce":"ring"}},{"model":"gpt","gpus":8}]})",
                                 "t.json");
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[0].chakra, "traces/llm");
    EXPECT_EQ(s.jobs[0].model, "");
    EXPECT_EQ(s.jobs[0].parallelism.allReduce, "ring");
    EXPECT_EQ(s.jobs[1].chakra, "");
    // the copy has "chakra", no "model", only the all-reduce algorithm, and reads back the same
    Scenario r = Scenario::Parse(s.ToJson(), "round-trip");
    EXPECT_EQ(r.ToJson(), s.ToJson());
    EXPECT_EQ(r.jobs[0].chakra, "traces/llm");
    EXPECT_EQ(s.ToJson().find("\"parallelism\""), std::string::npos);
    // errors name the field
    EXPECT_NE(ErrorOf(R"({"jobs":[{"chakra":"x","model":"gpt","gpus":8}]})")
                  .find("jobs[0].model: give either \"model\" or \"chakra\", not both"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"chakra":"x","gpus":8,"parallelism":{"tp":2}}]})")
                  .find("jobs[0].parallelism: a Chakra trace job has no parallelism plan"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"chakra":"","gpus":8}]})").find("jobs[0].chakra: must not"),
              std::string::npos);
    EXPECT_NE(ErrorOf(R"({"jobs":[{"chakra":3,"gpus":8}]})").find("jobs[0].chakra"),
              std::string::npos);
}
