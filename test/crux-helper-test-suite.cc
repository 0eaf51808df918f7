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

// Tests of CruxHelper, the one decision installer (suite "crux-helper"): a decision installed on
// a packet fabric built from a cluster description moves every rerouted flow onto the decided
// path by UDP source port (as the switches hash it) or by pinned route, sets the DSCP of each
// level, and a bad decision changes nothing.

#include "crux-test-util.h"

#include "ns3/channel.h"
#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-helper.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/dlt-job.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The test cluster: SmallClosConfig() with 4 aggregation switches (4 paths between ToRs).
struct Setup
{
    Ptr<CruxTopology> topo;   //!< the fabric
    std::vector<DltJob> jobs; //!< two 2-host jobs across the ToRs
    ClusterModel model;       //!< their scheduler view on topo
    Decision decision;        //!< every flow moved to another path, levels 5 and 2
};

Setup
Build()
{
    Setup s;
    ClosConfig cfg = SmallClosConfig();
    cfg.aggs = 4;
    s.topo = CruxTopologyHelper().Install(BuildTwoLayerClos(cfg));
    CruxTopologySteering steering(s.topo);
    s.jobs.push_back(DltJob::FromModel(0, "bert-large", {GpuId{0, 0}, GpuId{4, 0}}));
    s.jobs.push_back(DltJob::FromModel(1, "bert-large", {GpuId{1, 0}, GpuId{5, 0}}));
    for (uint32_t l = 0; l < s.topo->GetNLinks(); ++l)
    {
        s.model.links.push_back({100e9, "l" + std::to_string(l)});
    }
    s.decision.scheduler = "test";
    s.decision.numLevels = 8;
    for (const DltJob& job : s.jobs)
    {
        s.model.jobs.push_back(MakeSchedJob(job, [&](const DltCommFlow& f, SchedFlow& sf) {
            sf.candidatePaths = s.topo->GetEqualCostPaths(f.src.host, 0, f.dst.host, 0);
            const RdmaQpKey key{job.id, f.flowId, f.src, f.dst};
            const auto ecmp = steering.PathOf(key, 0);
            for (uint32_t i = 0; i < sf.candidatePaths.size(); ++i)
            {
                sf.defaultPath = sf.candidatePaths[i] == ecmp ? i : sf.defaultPath;
            }
        }));
        JobDecision jd;
        jd.level = job.id == 0 ? 5 : 2;
        for (const SchedFlow& sf : s.model.jobs.back().flows)
        {
            jd.flowPath[sf.id] = (sf.defaultPath + 1) % sf.candidatePaths.size();
        }
        s.decision.jobs[job.id] = jd;
    }
    return s;
}

/// Source-port and pinned installs put every flow on its decided path.
class InstallTestCase : public TestCase
{
  public:
    InstallTestCase()
        : TestCase("CruxHelper installs paths (source port or pinned route) and DSCP per level")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string mode : {"source-port", "pinned"})
        {
            Setup s = Build();
            CruxTopologySteering steering(s.topo);
            CruxHelper crux;
            crux.SetPathEnforcement(mode);
            const auto report = crux.Install(s.model, s.decision, s.jobs, steering);
            NS_TEST_ASSERT_MSG_EQ(report.size(), 2, mode);
            uint32_t pinned = 0;
            for (uint32_t sw = 0; sw < s.topo->GetNSwitches(); ++sw)
            {
                pinned += s.topo->GetSwitch(sw).sw->GetNPinnedRoutes();
            }
            uint32_t flows = 0;
            for (size_t j = 0; j < s.jobs.size(); ++j)
            {
                const DltJob& job = s.jobs[j];
                const uint32_t level = s.decision.jobs.at(job.id).level;
                NS_TEST_ASSERT_MSG_EQ(unsigned(job.dscp), 8 * level, mode << ": DSCP 8 x level");
                NS_TEST_ASSERT_MSG_EQ(report.at(job.id).level, level, mode);
                for (const DltCommFlow& f : job.CommunicationPattern())
                {
                    ++flows;
                    const RdmaQpKey key{job.id, f.flowId, f.src, f.dst};
                    const SchedFlow& sf = s.model.jobs[j].flows[f.flowId];
                    const auto& want = sf.candidatePaths[s.decision.PathOf(job.id, f.flowId)];
                    // the fabric's own prediction with the port the job's messages will carry
                    NS_TEST_ASSERT_MSG_EQ(
                        (steering.PathOf(key, job.UdpSrcPortOf(f.flowId)) == want),
                        true,
                        mode << ": job " << job.id << " flow " << f.flowId);
                    NS_TEST_ASSERT_MSG_EQ((report.at(job.id).paths.at(f.flowId) == want),
                                          true,
                                          mode);
                    if (mode == "pinned")
                    {
                        NS_TEST_ASSERT_MSG_EQ(job.UdpSrcPortOf(f.flowId), 0, "pinned: no port");
                    }
                    else
                    {
                        NS_TEST_ASSERT_MSG_NE(job.UdpSrcPortOf(f.flowId), 0, "steered port");
                    }
                }
                NS_TEST_ASSERT_MSG_EQ(report.at(job.id).rerouted,
                                      job.CommunicationPattern().size(),
                                      mode << ": every flow left its ECMP default");
            }
            // pinned: one route per switch on each rerouted path (3 switches per path)
            NS_TEST_ASSERT_MSG_EQ(pinned, (mode == "pinned" ? 3 * flows : 0), mode);
            // A second install of the same decision changes no path.
            const auto again = crux.Install(s.model, s.decision, s.jobs, steering);
            NS_TEST_ASSERT_MSG_EQ(again.at(0).pathsChanged + again.at(1).pathsChanged, 0, mode);
            Simulator::Destroy();
        }
    }
};

/// The MPI rank rule (CruxTopologyHelper::AssignRanks): blocks of ToRs with their hosts, the
/// aggregation switches spread evenly; and the fabric it builds (system ids, remote channels on
/// the cables between ranks when ns-3 has its mpi module).
class RankRuleTestCase : public TestCase
{
  public:
    RankRuleTestCase()
        : TestCase("CruxTopologyHelper: MPI rank rule (ToR blocks) and the fabric split by it")
    {
    }

  private:
    void DoRun() override
    {
        ClosConfig cc;
        cc.tors = 4;
        cc.aggs = 2;
        cc.hostsPerTor = 2;
        cc.nicsPerHost = 1;
        cc.gpusPerHost = 8;
        cc.wiring = "rail";
        const ClusterTopology desc = BuildTwoLayerClos(cc);
        for (uint32_t n : {1U, 2U, 3U, 4U})
        {
            const std::vector<uint32_t> rank = CruxTopologyHelper::AssignRanks(desc, n);
            NS_TEST_ASSERT_MSG_EQ(rank.size(), desc.NumNetworkNodes(), n << " ranks");
            for (uint32_t t = 0; t < cc.tors; ++t)
            {
                NS_TEST_ASSERT_MSG_EQ(rank[desc.torNode[t]], t * n / cc.tors, "ToR " << t);
            }
            for (uint32_t h = 0; h < desc.NumHosts(); ++h)
            {
                // hosts 2t and 2t + 1 are under ToR t
                NS_TEST_ASSERT_MSG_EQ(rank[desc.hostNode[h]], (h / 2) * n / cc.tors, "host " << h);
            }
            uint32_t agg = 0;
            for (uint32_t node = 0; node < desc.NumNetworkNodes(); ++node)
            {
                if (desc.nodes[node].kind == ClusterNodeKind::AGG)
                {
                    NS_TEST_ASSERT_MSG_EQ(rank[node], agg * n / cc.aggs, "agg " << agg);
                    ++agg;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(agg, cc.aggs, "aggregation switches");
        }
        for (uint32_t n : {0U, 5U})
        {
            bool threw = false;
            try
            {
                CruxTopologyHelper::AssignRanks(desc, n);
            }
            catch (const std::invalid_argument&)
            {
                threw = true;
            }
            NS_TEST_ASSERT_MSG_EQ(threw, true, n << " ranks for 4 ToRs must be refused");
        }

        // The fabric split over 2 ranks, built only where the remote channel exists.
        TypeId remote;
        if (!TypeId::LookupByNameFailSafe("ns3::QbbRemoteChannel", &remote))
        {
            return; // no ns-3 mpi module in this build (e.g. Debian's packaged ns-3)
        }
        const std::vector<uint32_t> rank = CruxTopologyHelper::AssignRanks(desc, 2);
        CruxTopologyHelper th;
        th.SetRanks(2);
        Ptr<CruxTopology> topo = th.Install(desc);
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            NS_TEST_ASSERT_MSG_EQ(topo->GetHost(h).node->GetSystemId(),
                                  rank[desc.hostNode[h]],
                                  "host " << h);
        }
        uint32_t crossing = 0;
        for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
        {
            const CruxLinkInfo& link = topo->GetLink(l);
            const bool between =
                link.txDev->GetNode()->GetSystemId() != link.rxDev->GetNode()->GetSystemId();
            const bool isRemote = link.txDev->GetChannel()->GetInstanceTypeId() == remote;
            NS_TEST_ASSERT_MSG_EQ(isRemote, between, "link " << l);
            crossing += between ? 1 : 0;
        }
        // ToRs 0, 1 and agg 0 on rank 0, ToRs 2, 3 and agg 1 on rank 1: every ToR has one of
        // its two uplinks to the other rank (4 cables, 8 directed links)
        NS_TEST_ASSERT_MSG_EQ(crossing, 8, "directed links between the ranks");
        Simulator::Destroy();
    }
};

/// A bad decision is rejected before anything changes.
class RejectTestCase : public TestCase
{
  public:
    RejectTestCase()
        : TestCase("CruxHelper rejects a bad decision as a whole, naming job and flow")
    {
    }

  private:
    void DoRun() override
    {
        Setup s = Build();
        CruxTopologySteering steering(s.topo);
        CruxHelper crux;
        crux.SetPathEnforcement("pinned");
        auto expectError = [&](Decision d, const std::string& what) {
            std::vector<DltJob> jobs = s.jobs;
            std::string error;
            try
            {
                crux.Install(s.model, d, jobs, steering);
            }
            catch (const std::invalid_argument& e)
            {
                error = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(error.find(what), std::string::npos, "'" << error << "'");
            for (size_t j = 0; j < jobs.size(); ++j)
            {
                NS_TEST_EXPECT_MSG_EQ(unsigned(jobs[j].dscp), 0, what << ": DSCP unchanged");
            }
            uint32_t pinned = 0;
            for (uint32_t sw = 0; sw < s.topo->GetNSwitches(); ++sw)
            {
                pinned += s.topo->GetSwitch(sw).sw->GetNPinnedRoutes();
            }
            NS_TEST_EXPECT_MSG_EQ(pinned, 0, what << ": no route pinned");
        };
        // the second job is bad: the first must not be installed either
        Decision d = s.decision;
        d.jobs[1].level = 8;
        expectError(d, "job 1: level 8 > 7");
        d = s.decision;
        d.jobs[1].flowPath[0] = 99;
        expectError(d, "job 1 flow 0: path index 99");
        d = s.decision;
        d.jobs[1].flowPath.erase(1);
        expectError(d, "no path for job 1 flow 1");
        d = s.decision;
        d.jobs[1].flowPath[5] = 0;
        expectError(d, "names job 1 flow 5, which the job does not have");
        d = s.decision;
        d.jobs.erase(1);
        expectError(d, "the decision has no job 1");
        ClusterModel swapped = s.model; // job 1's candidates are job 0's paths
        swapped.jobs[1].flows = s.model.jobs[0].flows;
        std::vector<DltJob> jobs = s.jobs;
        std::string error;
        try
        {
            crux.Install(swapped, s.decision, jobs, steering);
        }
        catch (const std::invalid_argument& e)
        {
            error = e.what();
        }
        NS_TEST_ASSERT_MSG_NE(error.find("does not leave source host 1"), std::string::npos, error);
        bool threw = false;
        try
        {
            crux.SetPathEnforcement("ecmp");
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "unknown path enforcement");
        Simulator::Destroy();
    }
};

/// The suite.
class CruxHelperTestSuite : public TestSuite
{
  public:
    CruxHelperTestSuite()
        : TestSuite("crux-helper", UNIT)
    {
        AddTestCase(new InstallTestCase, TestCase::QUICK);
        AddTestCase(new RejectTestCase, TestCase::QUICK);
        AddTestCase(new RankRuleTestCase, TestCase::QUICK);
    }
};

/// Static instance.
CruxHelperTestSuite g_cruxHelperTestSuite;

} // namespace
