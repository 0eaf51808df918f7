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

// Scheduling input model: helpers (M_{j,e}, t_j, I_j), Validate's error messages, the
// scheduler factory and the ECMP baseline.

#include "scheduler-test-util.h"

#include "ns3/cluster-model.h"
#include "ns3/comm-scheduler.h"
#include "ns3/crux-scheduler.h"
#include "ns3/double.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace ns3;

namespace
{

/// Two links (10 and 40 Gbit/s) and one job with two flows.
ClusterModel
SmallModel()
{
    ClusterModel m;
    m.links = {{10e9, "a"}, {40e9, "b"}};
    SchedJob j;
    j.id = 7;
    j.flopsPerIteration = 4e12;
    j.computeTime = 0.5;
    j.overlapStart = 1;
    j.numGpus = 8;
    SchedFlow f0;
    f0.id = 0;
    f0.bytesPerIteration = 1e9;
    f0.candidatePaths = {{0, 1}, {1}};
    f0.defaultPath = 0;
    SchedFlow f1;
    f1.id = 3;
    f1.bytesPerIteration = 2e9;
    f1.candidatePaths = {{1}};
    f1.defaultPath = 0;
    j.flows = {f0, f1};
    m.jobs = {j};
    return m;
}

/// \return the message of the std::invalid_argument Validate throws ("" if none)
std::string
ValidateError(const ClusterModel& m, const SchedulerConfig& c)
{
    try
    {
        Validate(m, c);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(CruxClusterModel, LinkBytesCommTimeAndIntensity)
{
    ClusterModel m = SmallModel();
    const SchedJob& j = m.jobs[0];
    LinkLoad load = JobLinkBytes(j, DefaultPathChoice(j));
    ASSERT_EQ(load.size(), 2u);
    EXPECT_DOUBLE_EQ(load.at(0), 1e9);
    EXPECT_DOUBLE_EQ(load.at(1), 3e9);
    // link a: 8e9 bit / 10e9 = 0.8 s; link b: 24e9 bit / 40e9 = 0.6 s
    EXPECT_DOUBLE_EQ(AnalyticCommTime(m, load), 0.8);
    EXPECT_DOUBLE_EQ(JobCommTime(m, j, {1, 0}), 0.6);
    EXPECT_DOUBLE_EQ(GpuIntensity(j.flopsPerIteration, 0.8), 5e12);
    EXPECT_DOUBLE_EQ(StandaloneIterationTime(j, 0.8), 1.3);
    m.jobs[0].overlapStart = 0;
    EXPECT_DOUBLE_EQ(StandaloneIterationTime(m.jobs[0], 0.8), 0.8);
    m.jobs[0].measuredCommTime = 2.0;
    EXPECT_DOUBLE_EQ(JobCommTime(m, m.jobs[0], {0, 0}), 2.0);
    EXPECT_TRUE(std::isinf(GpuIntensity(1e9, 0)));
    EXPECT_EQ(GpuIntensity(0, 0), 0);
    EXPECT_THROW(JobLinkBytes(j, {0}), std::invalid_argument);
    EXPECT_THROW(JobLinkBytes(j, {2, 0}), std::invalid_argument);
}

TEST(CruxClusterModel, ValidateAcceptsGoodInput)
{
    EXPECT_EQ(ValidateError(SmallModel(), SchedulerConfig()), "");
}

TEST(CruxClusterModel, ValidateNamesTheField)
{
    SchedulerConfig c;
    c.numLevels = 0;
    EXPECT_NE(ValidateError(SmallModel(), c).find("numLevels"), std::string::npos);

    ClusterModel m = SmallModel();
    m.jobs.clear();
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("jobs is empty"), std::string::npos);

    m = SmallModel();
    m.jobs[0].flows[1].candidatePaths = {{1, 5}};
    std::string e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find("candidatePaths[0][1]"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown link id 5"), std::string::npos) << e;

    m = SmallModel();
    m.links[1].bandwidth = -1;
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find("links[1].bandwidth"), std::string::npos) << e;
    m.links[1].bandwidth = 0;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("bandwidth"), std::string::npos);

    m = SmallModel();
    m.jobs[0].flows[0].defaultPath = 2;
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find("defaultPath 2 out of range"), std::string::npos) << e;

    m = SmallModel();
    m.jobs[0].flows[0].candidatePaths.clear();
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("candidatePaths is empty"),
              std::string::npos);

    m = SmallModel();
    m.jobs.push_back(m.jobs[0]);
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find("duplicate job id 7"), std::string::npos) << e;

    m = SmallModel();
    m.jobs[0].flows[1].id = 0;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("duplicate flow id 0"), std::string::npos);

    // the duplicate is the later element, named in full, and found where the checks run in
    // order: an earlier job's or flow's other fault is reported first
    m = SmallModel();
    m.jobs.push_back(m.jobs[0]);
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find("jobs[" + std::to_string(m.jobs.size() - 1) + "] (id 7): duplicate job id 7"),
              std::string::npos)
        << e;
    m.jobs[0].computeTime = -1;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("computeTime"), std::string::npos);
    m = SmallModel();
    m.jobs[0].flows[1].id = m.jobs[0].flows[0].id;
    m.jobs[0].flows[0].bytesPerIteration = -1;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("flows[0]"), std::string::npos);
    m.jobs[0].flows[0].bytesPerIteration = 1;
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(
        e.find(".flows[1] (id " + std::to_string(m.jobs[0].flows[0].id) + "): duplicate flow id"),
        std::string::npos)
        << e;
    // several duplicates: the first element whose id came before (ids 5, 9, 9, 5: flows[2])
    m = SmallModel();
    {
        SchedJob& j = m.jobs[0];
        while (j.flows.size() < 4)
        {
            j.flows.push_back(j.flows[0]);
        }
        const uint32_t ids[] = {5, 9, 9, 5};
        for (std::size_t f = 0; f < 4; ++f)
        {
            j.flows[f].id = ids[f];
        }
        j.phases.clear(); // the phase check comes after the flows' checks anyway
        j.endDeps.clear();
        j.span = 0;
    }
    e = ValidateError(m, SchedulerConfig());
    EXPECT_NE(e.find(".flows[2] (id 9): duplicate flow id 9"), std::string::npos) << e;

    m = SmallModel();
    m.jobs[0].overlapStart = 1.5;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("overlapStart"), std::string::npos);

    m = SmallModel();
    m.jobs[0].computeTime = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("computeTime"), std::string::npos);

    m = SmallModel();
    m.jobs[0].numGpus = 0;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("numGpus"), std::string::npos);

    m = SmallModel();
    m.jobs[0].flows[0].bytesPerIteration = -3;
    EXPECT_NE(ValidateError(m, SchedulerConfig()).find("bytesPerIteration"), std::string::npos);

    // Crux's horizon is an Attribute of its priority-assignment stage: its checker rejects 0.
    EXPECT_FALSE(CreateObject<CruxIntensityPriorities>()->SetAttributeFailSafe("HorizonIterations",
                                                                               DoubleValue(0)));
}

TEST(CruxSchedulerFactory, KnownAndUnknownNames)
{
    const std::vector<std::string> known = KnownCommSchedulers();
    for (const std::string name : {"ecmp",
                                   "crux",
                                   "crux-full",
                                   "crux-pa",
                                   "crux-ps-pa",
                                   "sincronia",
                                   "varys",
                                   "taccl",
                                   "cassini"})
    {
        auto s = CreateCommScheduler(name);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->GetName(), name);
        EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
    }
    for (const std::string& name : known)
    {
        EXPECT_EQ(CreateCommScheduler(name)->GetName(), name);
    }
    try
    {
        CreateCommScheduler("sjf");
        FAIL() << "no exception for an unknown scheduler";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("unknown scheduler 'sjf'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("known: ecmp, crux"), std::string::npos) << msg;
    }
}

TEST(CruxEcmpScheduler, DefaultPathsAndLevelZero)
{
    ClusterModel m = SmallModel();
    SchedJob j2 = m.jobs[0];
    j2.id = 9;
    j2.flows[0].defaultPath = 1;
    m.jobs.push_back(j2);
    SchedulerConfig c;
    c.numLevels = 4;
    Decision d = CreateCommScheduler("ecmp")->Schedule(m, c);
    EXPECT_EQ(d.scheduler, "ecmp");
    EXPECT_EQ(d.numLevels, 4u);
    ASSERT_EQ(d.jobs.size(), 2u);
    EXPECT_EQ(d.PathOf(7, 0), 0u);
    EXPECT_EQ(d.PathOf(7, 3), 0u);
    EXPECT_EQ(d.PathOf(9, 0), 1u);
    EXPECT_EQ(d.LevelOf(7), 0u);
    EXPECT_EQ(d.LevelOf(9), 0u);
    EXPECT_DOUBLE_EQ(d.jobs.at(7).commTime, 0.8);
    EXPECT_DOUBLE_EQ(d.jobs.at(9).commTime, 0.6);
    EXPECT_DOUBLE_EQ(d.jobs.at(7).intensity, 5e12);
    EXPECT_FALSE(d.uniquePriorities);
    EXPECT_THROW(d.LevelOf(8), std::out_of_range);
    EXPECT_THROW(d.PathOf(7, 1), std::out_of_range);
    // Validate runs inside every scheduler.
    c.numLevels = 0;
    EXPECT_THROW(CreateCommScheduler("ecmp")->Schedule(m, c), std::invalid_argument);
}
