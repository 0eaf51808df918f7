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

// The scheduler interface as a researcher meets it: a scheduler of one's own, written in C++
// with an Attribute, registered by short name (by TypeId, with presets, and by factory), created
// with attribute overrides, run through the template method (input validated before DoSchedule,
// malformed decisions rejected with a clear message) and scored end to end by the stage
// ablation beside the built-in schedulers. Also: the registry's errors, Crux's stage attributes
// equal the registered presets, and Config::SetDefault reaches registry-created schedulers.

#include "scheduler-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/crux-scheduler.h"
#include "ns3/double.h"
#include "ns3/random-cluster.h"
#include "ns3/stage-ablation.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <mutex>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * A researcher's scheduler: ECMP default paths, jobs ranked by computation time per iteration
 * (longest first by default, ties by smaller id), the top K-1 ranks on their own levels.
 */
class ComputeOrderScheduler : public CommScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::ComputeOrderScheduler")
                .SetParent<CommScheduler>()
                .SetGroupName("Crux")
                .AddConstructor<ComputeOrderScheduler>()
                .AddAttribute("LongestFirst",
                              "Rank the longest computation first (else the "
                              "shortest first).",
                              BooleanValue(true),
                              MakeBooleanAccessor(&ComputeOrderScheduler::m_longestFirst),
                              MakeBooleanChecker());
        return tid;
    }

    /// Number of DoSchedule calls so far (all instances).
    static uint32_t s_calls;

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override
    {
        ++s_calls;
        Decision d = MakeDefaultDecision(model, config, GetName());
        std::vector<const SchedJob*> order;
        for (const SchedJob& job : model.jobs)
        {
            order.push_back(&job);
        }
        std::sort(order.begin(), order.end(), [this](const SchedJob* a, const SchedJob* b) {
            if (a->computeTime != b->computeTime)
            {
                return m_longestFirst ? a->computeTime > b->computeTime
                                      : a->computeTime < b->computeTime;
            }
            return a->id < b->id;
        });
        for (uint32_t r = 0; r < order.size(); ++r)
        {
            JobDecision& jd = d.jobs.at(order[r]->id);
            jd.rank = r;
            jd.level = TopRankLevel(r, config.numLevels);
        }
        return d;
    }

  private:
    bool m_longestFirst{true}; //!< order
};

uint32_t ComputeOrderScheduler::s_calls = 0;

/// How BrokenScheduler corrupts the ECMP decision.
enum Defect
{
    MISSING_JOB,
    EXTRA_JOB,
    LEVEL_TOO_HIGH,
    PATH_OUT_OF_RANGE,
    MISSING_FLOW,
    RANK_TOO_HIGH,
    RANKS_NOT_UNIQUE,
    WRONG_NUM_LEVELS,
    NEGATIVE_SHIFT
};

/// A scheduler returning a malformed decision (attribute Defect), to test the checks.
class BrokenScheduler : public CommScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::BrokenScheduler")
                                .SetParent<CommScheduler>()
                                .SetGroupName("Crux")
                                .AddConstructor<BrokenScheduler>()
                                .AddAttribute("Defect",
                                              "Which defect (enum Defect of the test).",
                                              UintegerValue(0),
                                              MakeUintegerAccessor(&BrokenScheduler::m_defect),
                                              MakeUintegerChecker<uint32_t>(0, NEGATIVE_SHIFT));
        return tid;
    }

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override
    {
        Decision d = MakeDefaultDecision(model, config, GetName());
        const uint32_t first = model.jobs.front().id;
        JobDecision& jd = d.jobs.at(first);
        switch (m_defect)
        {
        case MISSING_JOB:
            d.jobs.erase(first);
            break;
        case EXTRA_JOB:
            d.jobs[12345] = jd;
            break;
        case LEVEL_TOO_HIGH:
            jd.level = config.numLevels;
            break;
        case PATH_OUT_OF_RANGE:
            jd.flowPath.begin()->second = 99;
            break;
        case MISSING_FLOW:
            jd.flowPath.erase(jd.flowPath.begin());
            break;
        case RANK_TOO_HIGH:
            jd.rank = static_cast<uint32_t>(model.jobs.size());
            break;
        case RANKS_NOT_UNIQUE:
            d.uniquePriorities = true; // every rank is 0
            break;
        case WRONG_NUM_LEVELS:
            d.numLevels = config.numLevels + 1;
            break;
        case NEGATIVE_SHIFT:
            jd.timeShift = -1;
            break;
        }
        return d;
    }

  private:
    uint32_t m_defect{0}; //!< Defect
};

/// Registers the test schedulers once per process.
void
RegisterTestSchedulers()
{
    static std::once_flag once;
    std::call_once(once, [] {
        RegisterCommScheduler("compute-order", ComputeOrderScheduler::GetTypeId());
        RegisterCommScheduler("compute-order-short",
                              ComputeOrderScheduler::GetTypeId(),
                              {{"LongestFirst", "false"}});
        RegisterCommScheduler("compute-order-factory", [] {
            Ptr<ComputeOrderScheduler> s = CreateObject<ComputeOrderScheduler>();
            s->SetAttribute("LongestFirst", BooleanValue(false));
            return s;
        });
        RegisterCommScheduler("null-factory", [] { return Ptr<CommScheduler>(); });
        RegisterCommScheduler("broken", BrokenScheduler::GetTypeId());
    });
}

/// \return job ids ordered by computeTime (longest first unless \p shortestFirst), ties by id
std::vector<uint32_t>
ComputeOrder(const ClusterModel& m, bool shortestFirst)
{
    std::vector<std::pair<double, uint32_t>> keyed;
    for (const SchedJob& j : m.jobs)
    {
        keyed.emplace_back(shortestFirst ? j.computeTime : -j.computeTime, j.id);
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<uint32_t> ids;
    for (const auto& k : keyed)
    {
        ids.push_back(k.second);
    }
    return ids;
}

} // namespace

TEST(UserScheduler, RegisteredByTypeIdPresetAndFactory)
{
    RegisterTestSchedulers();
    const std::vector<std::string> known = KnownCommSchedulers();
    // Built-ins first, in their order; user schedulers after them.
    ASSERT_GE(known.size(), 15u);
    EXPECT_EQ(known[0], "ecmp");
    EXPECT_EQ(known[9], "optimal");
    for (const std::string name :
         {"compute-order", "compute-order-short", "compute-order-factory", "broken"})
    {
        EXPECT_NE(std::find(known.begin() + 10, known.end(), name), known.end()) << name;
    }

    const ClusterModel m = test::RandomLeafSpine(9, 4);
    SchedulerConfig c;
    c.numLevels = 4;
    const Decision longest = CreateCommScheduler("compute-order")->Schedule(m, c);
    EXPECT_EQ(longest.scheduler, "compute-order");
    const std::vector<uint32_t> expected = ComputeOrder(m, false);
    EXPECT_EQ(longest.PriorityOrder(), expected);
    for (uint32_t r = 0; r < expected.size(); ++r)
    {
        EXPECT_EQ(longest.LevelOf(expected[r]), r < 4 ? 3 - r : 0u) << "rank " << r;
    }
    // ECMP default paths.
    for (const SchedJob& j : m.jobs)
    {
        for (const SchedFlow& f : j.flows)
        {
            EXPECT_EQ(longest.PathOf(j.id, f.id), f.defaultPath);
        }
    }

    // The same order reversed three ways: override, preset, factory.
    const std::vector<uint32_t> shortest = ComputeOrder(m, true);
    EXPECT_NE(shortest, expected);
    const Decision overridden =
        CreateCommScheduler("compute-order", {{"LongestFirst", "false"}})->Schedule(m, c);
    EXPECT_EQ(overridden.PriorityOrder(), shortest);
    const Decision preset = CreateCommScheduler("compute-order-short")->Schedule(m, c);
    EXPECT_EQ(preset.PriorityOrder(), shortest);
    EXPECT_EQ(preset.scheduler, "compute-order-short");
    const Decision factory = CreateCommScheduler("compute-order-factory")->Schedule(m, c);
    EXPECT_EQ(factory.PriorityOrder(), shortest);
    EXPECT_EQ(factory.scheduler, "compute-order-factory");
    // An override beats the preset.
    EXPECT_EQ(CreateCommScheduler("compute-order-short", {{"LongestFirst", "true"}})
                  ->Schedule(m, c)
                  .PriorityOrder(),
              expected);

    test::ExpectDeterministic("compute-order");
    test::ExpectBadInputRejected("compute-order");
}

TEST(UserScheduler, TemplateMethodValidatesInputBeforeDoSchedule)
{
    RegisterTestSchedulers();
    const uint32_t before = ComputeOrderScheduler::s_calls;
    SchedulerConfig zero;
    zero.numLevels = 0;
    EXPECT_THROW(CreateCommScheduler("compute-order")->Schedule(test::RandomLeafSpine(3, 1), zero),
                 std::invalid_argument);
    ClusterModel empty;
    empty.links = {{8e9, "l0"}};
    EXPECT_THROW(CreateCommScheduler("compute-order")->Schedule(empty, SchedulerConfig()),
                 std::invalid_argument);
    EXPECT_EQ(ComputeOrderScheduler::s_calls, before) << "DoSchedule ran on invalid input";
    CreateCommScheduler("compute-order")->Schedule(test::RandomLeafSpine(3, 1), SchedulerConfig());
    EXPECT_EQ(ComputeOrderScheduler::s_calls, before + 1);
}

TEST(UserScheduler, MalformedDecisionsAreRejected)
{
    RegisterTestSchedulers();
    const ClusterModel m = test::RandomLeafSpine(4, 2);
    const uint32_t first = m.jobs.front().id;
    SchedulerConfig c;
    c.numLevels = 3;
    const std::vector<std::pair<Defect, std::string>> cases = {
        {MISSING_JOB, "job " + std::to_string(first) + " has no decision"},
        {EXTRA_JOB, "job 12345 is not in the model"},
        {LEVEL_TOO_HIGH, "level 3 >= K = 3"},
        {PATH_OUT_OF_RANGE, "path index 99 >= its"},
        {MISSING_FLOW, "flow paths for"},
        {RANK_TOO_HIGH, "rank 4 >= the number of jobs (4)"},
        {RANKS_NOT_UNIQUE, "ranks are not 0..3"},
        {WRONG_NUM_LEVELS, "Decision.numLevels = 4 but K = 3"},
        {NEGATIVE_SHIFT, "timeShift must be finite and >= 0"},
    };
    for (const auto& [defect, text] : cases)
    {
        const auto s = CreateCommScheduler("broken", {{"Defect", std::to_string(defect)}});
        try
        {
            s->Schedule(m, c);
            ADD_FAILURE() << "defect " << defect << " was accepted";
        }
        catch (const std::invalid_argument& e)
        {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("scheduler 'broken' returned an invalid decision: "),
                      std::string::npos)
                << msg;
            EXPECT_NE(msg.find(text), std::string::npos) << msg;
        }
    }
    // Defect 0 with an intact model... is MISSING_JOB; the plain ECMP decision passes:
    EXPECT_NO_THROW(ValidateDecision(m, c, CreateCommScheduler("ecmp")->Schedule(m, c), "ecmp"));
}

TEST(UserScheduler, RegistryErrorsNameTheProblem)
{
    RegisterTestSchedulers();
    auto registerError = [](const std::string& name, TypeId tid) {
        try
        {
            RegisterCommScheduler(name, tid);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    const TypeId tid = ComputeOrderScheduler::GetTypeId();
    EXPECT_NE(registerError("crux", tid).find("'crux' is already registered"), std::string::npos);
    EXPECT_NE(registerError("", tid).find("the name is empty"), std::string::npos);
    EXPECT_NE(registerError("a,b", tid).find("may only hold"), std::string::npos);
    EXPECT_NE(registerError("-x", tid).find("must start with"), std::string::npos);
    EXPECT_NE(registerError("alone", tid).find("stand-alone mode"), std::string::npos);
    EXPECT_NE(registerError("obj", Object::GetTypeId()).find("not derived from ns3::CommScheduler"),
              std::string::npos);
    EXPECT_NE(registerError("abstract", CommScheduler::GetTypeId()).find("has no constructor"),
              std::string::npos);
    try
    {
        RegisterCommScheduler("bad-preset", tid, {{"Shortest", "true"}});
        ADD_FAILURE() << "unknown preset attribute accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("has no attribute 'Shortest' (attributes: "
                                             "LongestFirst)"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(RegisterCommScheduler("empty-factory", CommSchedulerFactory()),
                 std::invalid_argument);

    const std::string unknown = test::CreateError("crux", {{"Samples", "3"}});
    EXPECT_NE(unknown.find("scheduler 'crux': ns3::CruxScheduler has no attribute 'Samples'"),
              std::string::npos)
        << unknown;
    EXPECT_NE(unknown.find("PriorityAssignment"), std::string::npos) << unknown;
    const std::string invalid = test::CreateError("crux", {{"PathSelection", "maybe"}});
    EXPECT_NE(invalid.find("invalid value 'maybe' for attribute PathSelection"), std::string::npos)
        << invalid;
    EXPECT_NE(test::CreateError("crux", {{"Compression", "ns3::CruxDefaultPaths"}})
                  .find("invalid value 'ns3::CruxDefaultPaths' for attribute Compression"),
              std::string::npos);
    EXPECT_NE(test::CreateError("null-factory", {}).find("factory returned null"),
              std::string::npos);
    EXPECT_NE(test::CreateError("cassini", {{"MaxPerimeterBins", "100"}})
                  .find("scheduler 'cassini': CassiniOptions.maxPerimeterBins (100)"),
              std::string::npos);
}

TEST(UserScheduler, CruxStageAttributesAndConfigDefaults)
{
    // "crux-pa" / "crux-ps-pa" are presets of ns3::CruxScheduler's stage attributes.
    const ClusterModel m = test::RandomLeafSpine(8, 3);
    SchedulerConfig c;
    c.numLevels = 3;
    Decision pa = CreateCommScheduler("crux",
                                      {{"PathSelection", "ns3::CruxDefaultPaths"},
                                       {"Compression", "ns3::CruxUniquePriorities"}})
                      ->Schedule(m, c);
    Decision psPa =
        CreateCommScheduler("crux", {{"Compression", "ns3::CruxUniquePriorities"}})->Schedule(m, c);
    pa.scheduler = "crux-pa";
    psPa.scheduler = "crux-ps-pa";
    EXPECT_TRUE(pa == CreateCommScheduler("crux-pa")->Schedule(m, c));
    EXPECT_TRUE(psPa == CreateCommScheduler("crux-ps-pa")->Schedule(m, c));
    EXPECT_FALSE(pa == psPa); // path selection moved some flow on this model

    // Config::SetDefault of a stage's knob (and so
    // --ns3::CruxIntensityPriorities::HorizonIterations=... on a command line) reaches the stage
    // objects of schedulers created by the registry, presets or not.
    const auto horizon = [](const std::string& name) {
        DoubleValue v;
        DynamicCast<CruxScheduler>(CreateCommScheduler(name))
            ->GetPriorityAssignment()
            ->GetAttribute("HorizonIterations", v);
        return v.Get();
    };
    EXPECT_EQ(horizon("crux"), 48.0);
    Config::SetDefault("ns3::CruxIntensityPriorities::HorizonIterations", DoubleValue(3));
    EXPECT_EQ(horizon("crux"), 3.0);
    EXPECT_EQ(horizon("crux-pa"), 3.0);
    Config::SetDefault("ns3::CruxIntensityPriorities::HorizonIterations", DoubleValue(48));
    EXPECT_EQ(horizon("crux"), 48.0);
    // ... and so does a stage TypeId: "crux-ps-pa" (no PathSelection preset) then runs as
    // "crux-pa", its Compression preset still applies.
    Config::SetDefault("ns3::CruxScheduler::PathSelection",
                       TypeIdValue(CruxDefaultPaths::GetTypeId()));
    Decision psPaOnDefaultPaths = CreateCommScheduler("crux-ps-pa")->Schedule(m, c);
    Config::SetDefault("ns3::CruxScheduler::PathSelection",
                       TypeIdValue(CruxLeastCongestedPaths::GetTypeId()));
    psPaOnDefaultPaths.scheduler = "crux-pa";
    EXPECT_TRUE(psPaOnDefaultPaths == pa);
    EXPECT_TRUE(CreateCommScheduler("crux-ps-pa")->Schedule(m, c) == psPa);
}

TEST(UserScheduler, ScoredEndToEndByTheStageAblation)
{
    RegisterTestSchedulers();
    RandomClusterParams p;
    p.numJobs = 4;
    p.maxPathChoices = 16;
    const ClusterModel m = GenerateRandomCluster(p, 5);
    StageAblationOptions o;
    o.search.evaluator.horizonIterations = 20;
    o.extraSchedulers = {"compute-order"};
    const std::vector<std::string> columns = StageAblationColumns(o);
    ASSERT_EQ(columns.back(), "e2e.compute-order");
    EXPECT_EQ(columns.size(), StageAblationColumns().size() + 1);
    const StageAblationResult r = RunStageAblation(m, o);
    ASSERT_EQ(r.ratios.back().first, "e2e.compute-order");

    // Independently: the scheduler's decision judged by the same search, over the optimum.
    SchedulerConfig c;
    c.numLevels = o.numLevels;
    c.seed = o.seed;
    const Decision d = CreateCommScheduler("compute-order")->Schedule(m, c);
    OptimalSearch search(m, o.numLevels, o.search);
    std::vector<PathChoice> paths;
    std::vector<uint32_t> blocks;
    for (const SchedJob& j : m.jobs)
    {
        paths.push_back(ChoiceOf(j, d.jobs.at(j.id)));
        blocks.push_back(d.numLevels - 1 - d.LevelOf(j.id));
    }
    const double expected = search.Value(paths, blocks) / r.optimum;
    EXPECT_NEAR(r.ratios.back().second, expected, 1e-12);
    EXPECT_GT(expected, 0);
    EXPECT_LE(expected, 1 + 1e-9);

    o.extraSchedulers = {"nope"};
    EXPECT_THROW(CheckStageAblationOptions(o), std::invalid_argument);
    o.extraSchedulers = {"crux"};
    EXPECT_THROW(CheckStageAblationOptions(o), std::invalid_argument);
}
