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

// System tests of the experiment driver (CruxExperiment): a small two-job contention scenario
// run end to end on the packet-level fabric: same seed -> identical result files, another seed
// -> other ECMP choices, ECMP contention slows the intensive job and Crux gives it back its
// stand-alone speed, the flow-level fabric agrees with the packet level, and bad input gives
// one clear error with nothing written.

#include "crux-test-util.h"

#include "ns3/config.h"
#include "ns3/crux-experiment.h"
#include "ns3/experiment-output.h"
#include "ns3/nstime.h"
#include "ns3/result-directory.h"
#include "ns3/sample-statistics.h"
#include "ns3/test.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace ns3;

namespace
{

/**
 * A scaled-down §2.2 shape: 2 ToRs x 4 hosts (8 GPUs, one 100 Gbit/s NIC each), 2 aggregation
 * switches with 20 Gbit/s ToR-agg cables. "big" (GPT, 4 hosts x 8 GPUs, 48 MB of gradients,
 * 50 ms compute, one bucket) and "small" (BERT-large, 4 hosts x 4 GPUs, 8 MB, 10 ms compute,
 * background) cross the aggregation layer.
 */
std::string
SmallScenario(const std::string& outDir, uint64_t seed, const std::string& fabric = "packet")
{
    std::ostringstream os;
    os << R"({
  "name": "small-contention",
  "topology": {"type": "clos", "tors": 2, "aggs": 2, "hostsPerTor": 4, "gpusPerHost": 8,
               "nicsPerHost": 1, "hostLinkRate": "100Gbps", "fabricLinkRate": "20Gbps"},
  "jobs": [
    {"name": "big", "model": "gpt", "hosts": [0, 1, 4, 5], "gpusPerHost": 8,
     "gradientBytes": 48000000, "computeTime": 0.05, "iterations": 4},
    {"name": "small", "model": "bert-large", "hosts": [2, 3, 6, 7], "gpusPerHost": 4,
     "gradientBytes": 8000000, "computeTime": 0.01, "iterations": 3, "background": true}
  ],
  "scheduler": "crux", "priorityLevels": 8, "profileIterations": 1,
  "seed": )"
       << seed << R"(, "fabric": ")" << fabric << R"(", "outputDir": ")" << outDir << R"("
})";
    return os.str();
}

/// Read a whole file.
std::string
Slurp(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A fresh temporary directory path (not created).
std::filesystem::path
TempDir(const std::string& name)
{
    auto p = std::filesystem::temp_directory_path() / ("crux-exp-test-" + name);
    std::filesystem::remove_all(p);
    return p;
}

/// The result of a job in a run.
const ExperimentJobResult&
JobOf(const ExperimentRunResult& r, const std::string& name)
{
    for (const auto& j : r.jobs)
    {
        if (j.name == name)
        {
            return j;
        }
    }
    NS_FATAL_ERROR("no job " << name << " in run " << r.run);
}

/// The run of \p runs that stands for \p role (ExperimentRunResult::roles) and ECMP seed
/// \p seed (0: any) and has job \p job (empty: any).
const ExperimentRunResult&
RunOf(const std::vector<ExperimentRunResult>& runs,
      const std::string& role,
      const std::string& job = "",
      uint64_t seed = 0)
{
    for (const auto& r : runs)
    {
        const bool hasRole = std::find(r.roles.begin(), r.roles.end(), role) != r.roles.end();
        const bool hasSeed =
            seed == 0 || std::find(r.seeds.begin(), r.seeds.end(), seed) != r.seeds.end();
        const bool hasJob =
            job.empty() ||
            std::any_of(r.jobs.begin(), r.jobs.end(), [&job](const ExperimentJobResult& j) {
                return j.name == job;
            });
        if (hasRole && hasSeed && hasJob)
        {
            return r;
        }
    }
    NS_FATAL_ERROR("no run with role " << role << " job '" << job << "' seed " << seed);
}

} // namespace

/// Same seed -> identical result files; another seed -> other ECMP choices.
class ExperimentDeterminismTestCase : public TestCase
{
  public:
    ExperimentDeterminismTestCase()
        : TestCase("same seed gives identical result files, another seed other ECMP paths")
    {
    }

  private:
    void DoRun() override
    {
        const auto d1 = TempDir("seed1");
        const auto d3 = TempDir("seed2");
        const std::vector<std::string> files = {"summary.json",
                                                "jobs.csv",
                                                "iterations.csv",
                                                "links.csv",
                                                "paths.csv",
                                                "pfc.csv",
                                                "drops.csv",
                                                "utilization.csv",
                                                "table.txt"};
        std::map<std::string, std::string> first;
        for (int rep = 0; rep < 2; ++rep)
        {
            CruxExperiment exp(Scenario::Parse(SmallScenario(d1.string(), 1), "small.json"));
            auto runs = exp.Run({"ecmp", "crux"});
            exp.WriteResults(runs);
            for (const auto& f : files)
            {
                const std::string text = Slurp(d1 / f);
                NS_TEST_ASSERT_MSG_GT(text.size(), 0, f << " is missing");
                if (rep == 0)
                {
                    first[f] = text;
                }
                else
                {
                    NS_TEST_ASSERT_MSG_EQ((text == first[f]), true, f << " differs between runs");
                }
            }
        }
        NS_TEST_ASSERT_MSG_GT(first["iterations.csv"].size(), 200, "iterations recorded");
        {
            CruxExperiment exp(Scenario::Parse(SmallScenario(d3.string(), 2), "small.json"));
            exp.WriteResults(exp.Run({"ecmp", "crux"}));
        }
        // Another seed salts the switches' ECMP hashes: the ECMP run's paths differ.
        auto ecmpPaths = [](const std::filesystem::path& d) {
            std::istringstream in(Slurp(d / "paths.csv"));
            std::string line;
            std::string out;
            while (std::getline(in, line))
            {
                if (line.rfind("ecmp,", 0) == 0)
                {
                    out += line + "\n";
                }
            }
            return out;
        };
        NS_TEST_ASSERT_MSG_GT(ecmpPaths(d1).size(), 0, "no ECMP paths recorded");
        NS_TEST_ASSERT_MSG_EQ((ecmpPaths(d1) != ecmpPaths(d3)),
                              true,
                              "seed 2 gave the same ECMP paths as seed 1");
        std::filesystem::remove_all(d1);
        std::filesystem::remove_all(d3);
    }
};

/// ECMP contention slows the intensive job; Crux restores it; PFC keeps the fabric lossless.
class ExperimentContentionTestCase : public TestCase
{
  public:
    ExperimentContentionTestCase()
        : TestCase("ECMP contention slows the big job, Crux restores its stand-alone speed")
    {
    }

  private:
    void DoRun() override
    {
        const auto dir = TempDir("contention");
        CruxExperiment exp(Scenario::Parse(SmallScenario(dir.string(), 1), "small.json"));
        auto runs = exp.Run({"alone", "ecmp", "crux"});
        const ExperimentRunResult& ecmpRun = RunOf(runs, "mix:ecmp");
        const ExperimentRunResult& cruxRun = RunOf(runs, "mix:crux");
        const double alone = JobOf(RunOf(runs, "alone@ECMP", "big"), "big").meanIterationTime;
        const auto& ecmp = JobOf(ecmpRun, "big");
        const auto& crux = JobOf(cruxRun, "big");
        std::cout << "[crux-experiment] big job iteration: alone " << alone << " s, ecmp "
                  << ecmp.meanIterationTime << " s, crux " << crux.meanIterationTime
                  << " s; utilization ecmp " << ecmpRun.utilization << ", crux "
                  << cruxRun.utilization << std::endl;
        // Stand-alone: compute 50 ms + a ring all-reduce of 48 MB over 4 hosts.
        NS_TEST_ASSERT_MSG_GT(alone, 0.05, "an iteration is at least its compute");
        NS_TEST_ASSERT_MSG_EQ(ecmp.measuredIterations, 3, "iterations 1..3 are measured");
        NS_TEST_ASSERT_MSG_GT(ecmp.meanIterationTime, alone * 1.02, "ECMP contention slows it");
        NS_TEST_ASSERT_MSG_LT(crux.meanIterationTime,
                              ecmp.meanIterationTime,
                              "Crux is faster than ECMP for the intensive job");
        NS_TEST_ASSERT_MSG_LT(crux.meanIterationTime, alone * 1.01, "Crux gives it back");
        NS_TEST_ASSERT_MSG_NE(crux.level, JobOf(cruxRun, "small").level, "two jobs, two levels");
        NS_TEST_ASSERT_MSG_EQ(ecmp.level, 0, "ECMP: one traffic class");
        NS_TEST_ASSERT_MSG_EQ(crux.dscp, 8 * crux.level, "DSCP = 8 x level");
        NS_TEST_ASSERT_MSG_GT(cruxRun.utilization, ecmpRun.utilization, "utilization recovers");
        for (const auto& r : runs)
        {
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, r.run << " finished");
            NS_TEST_ASSERT_MSG_EQ(r.drops.size(), 0, r.run << ": PFC keeps the fabric lossless");
        }
        // Crux's traffic runs in the big job's class: its link bytes are in TC = level (the
        // ring of 4 hosts x 8 rails sends 2 x 3/4 x 48 MB per host and iteration).
        uint64_t inTc = 0;
        for (const auto& [link, tcs] : cruxRun.linkTcBytes)
        {
            inTc += tcs[crux.level];
        }
        NS_TEST_ASSERT_MSG_GT(inTc, 48000000, "the big job's bytes travel in its TC");
        std::filesystem::remove_all(dir);
    }
};

/// The flow-level fabric gives iteration times close to the packet level on the same scenario.
class ExperimentFlowVsPacketTestCase : public TestCase
{
  public:
    ExperimentFlowVsPacketTestCase()
        : TestCase("flow-level and packet-level fabrics agree per job (10 % without shared "
                   "classes, 25 % with)")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string mode : {"ecmp", "crux"})
        {
            CruxExperiment p(Scenario::Parse(SmallScenario("/tmp/unused", 1, "packet"), "p"));
            CruxExperiment f(Scenario::Parse(SmallScenario("/tmp/unused", 1, "flow"), "f"));
            auto rp = p.RunMode(mode);
            auto rf = f.RunMode(mode);
            for (const auto& jp : rp.back().jobs)
            {
                const auto& jf = JobOf(rf.back(), jp.name);
                const double gap = std::abs(jf.meanIterationTime / jp.meanIterationTime - 1);
                std::cout << "[crux-experiment] " << mode << " " << jp.name << ": packet "
                          << jp.meanIterationTime << " s, flow " << jf.meanIterationTime
                          << " s, gap " << gap * 100 << " %" << std::endl;
                // Without contention in a class (Crux separates the jobs) the fluid model is
                // within 10 %. When flows of two jobs share one FIFO class (ECMP), the packet
                // level shares by arrival order with PFC back-pressure, not max-min fairly; the
                // measured gap is then larger (19 % for the small job here), bounded at 25 %.
                const double bound = mode == "crux" ? 0.10 : 0.25;
                NS_TEST_ASSERT_MSG_LT(gap, bound, mode << " " << jp.name << " packet vs flow");
            }
        }
    }
};

/**
 * The scenario topology type "three-tier" on both fabrics: 4 ToRs in 2 aggregation groups
 * (2 aggregation switches each), 4 core switches, 2 hosts per ToR with 2 NICs each; one GPT job
 * on hosts 0, 2, 4, 6 (ToRs 0..3), so its ring crosses both groups. Checked against a second
 * construction of the same cluster (BuildThreeTier() called here): every flow's path climbs
 * exactly as high as its ends need (2 links within a ToR, 4 within a group, 6 across groups,
 * through 2 core-switch links), the core links carry, on the flow fabric, twice the bytes of the
 * cross-group flows (each crosses one core switch: up and down), nothing is dropped or resent on
 * the packet fabric, and the two fabrics agree within 10 %.
 */
class ExperimentThreeTierTestCase : public TestCase
{
  public:
    ExperimentThreeTierTestCase()
        : TestCase("topology type three-tier: paths climb to the core only across groups; core "
                   "bytes = 2 x cross-group bytes; packet and flow agree")
    {
    }

  private:
    static std::string Text(const std::string& fabric)
    {
        return R"({"name": "three-tier",
  "topology": {"type": "three-tier", "tors": 4, "torsPerGroup": 2, "aggs": 4, "cores": 4,
               "hostsPerTor": 2, "gpusPerHost": 8, "nicsPerHost": 2, "hostLinkRate": "100Gbps",
               "fabricLinkRate": "100Gbps", "coreLinkRate": "25Gbps"},
  "jobs": [{"name": "gpt", "model": "gpt", "hosts": [0, 2, 4, 6], "gpusPerHost": 8,
            "gradientBytes": 48000000, "computeTime": 0.05, "iterations": 2}],
  "scheduler": "ecmp", "profileIterations": 0, "seed": 1,
  "fabric": ")" +
               fabric + R"(", "outputDir": "/tmp/unused"})";
    }

    void DoRun() override
    {
        // the second construction: the same cluster from the library's builder
        ThreeTierConfig tc;
        tc.aggsPerGroup = 2;
        tc.cores = 4;
        tc.gpusPerHost = 8;
        tc.nicsPerHost = 2;
        tc.hostLinkBps = 100e9;
        tc.torAggBps = 100e9;
        tc.aggCoreBps = 25e9;
        const ClusterTopology c = BuildThreeTier({0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 1, 1}, tc);
        NS_TEST_ASSERT_MSG_EQ(c.nodes.size(), 8 + 4 + 4 + 4, "hosts, ToRs, aggs, cores");
        auto isCore = [&c](uint32_t link) {
            return c.nodes[c.linkEnds[link].first].kind == ClusterNodeKind::CORE ||
                   c.nodes[c.linkEnds[link].second].kind == ClusterNodeKind::CORE;
        };
        double iteration[2] = {0, 0};
        int k = 0;
        for (const std::string fabric : {"packet", "flow"})
        {
            CruxExperiment exp(Scenario::Parse(Text(fabric), "three-tier.json"));
            const auto runs = exp.RunMode("ecmp");
            const auto& r = runs.back();
            const auto& job = JobOf(r, "gpt");
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, fabric << ": the job finishes");
            NS_TEST_ASSERT_MSG_EQ(job.measuredIterations, 1, fabric << ": iteration 1 measured");
            iteration[k++] = job.meanIterationTime;
            NS_TEST_ASSERT_MSG_GT(job.flowPaths.size(), 0, fabric << ": flows have paths");
            uint64_t crossBytes = 0;
            std::map<uint32_t, bool> firstLinkCross; // NIC up link -> its flows cross groups
            for (const auto& [flow, path] : job.flowPaths)
            {
                std::vector<uint32_t> links;
                std::istringstream is(path);
                std::string tok;
                while (is >> tok)
                {
                    links.push_back(static_cast<uint32_t>(std::stoul(tok.substr(1))));
                }
                NS_TEST_ASSERT_MSG_GT(links.size(), 0, "flow " << flow << " has a path");
                const uint32_t src = c.linkEnds[links.front()].first;
                const uint32_t dst = c.linkEnds[links.back()].second;
                NS_TEST_ASSERT_MSG_EQ(ToString(c.nodes[src].kind), "host", "path from a host");
                NS_TEST_ASSERT_MSG_EQ(ToString(c.nodes[dst].kind), "host", "path to a host");
                const uint32_t ts = c.hostTor[src];
                const uint32_t td = c.hostTor[dst];
                const bool cross = c.torGroup[ts] != c.torGroup[td];
                const size_t want = ts == td ? 2 : (cross ? 6 : 4);
                NS_TEST_ASSERT_MSG_EQ(links.size(),
                                      want,
                                      fabric << " flow " << flow << ": " << path);
                size_t core = 0;
                for (uint32_t l : links)
                {
                    core += isCore(l) ? 1 : 0;
                }
                NS_TEST_ASSERT_MSG_EQ(core,
                                      (cross ? 2 : 0),
                                      fabric << " flow " << flow << ": core");
                firstLinkCross[links.front()] = cross;
            }
            if (fabric == "packet")
            {
                NS_TEST_ASSERT_MSG_EQ(r.drops.size(), 0, "lossless");
                NS_TEST_ASSERT_MSG_EQ(r.retransmittedPackets, 0, "no retransmission");
                NS_TEST_ASSERT_MSG_EQ(r.timeouts, 0, "no timeout");
                continue;
            }
            // flow fabric: payload bytes; a NIC's up link carries only its own flows
            for (const auto& [l, cross] : firstLinkCross)
            {
                if (cross)
                {
                    const auto it = r.linkTcBytes.find(l);
                    NS_TEST_ASSERT_MSG_EQ((it != r.linkTcBytes.end()), true, "link counted");
                    for (uint64_t b : it->second)
                    {
                        crossBytes += b;
                    }
                }
            }
            uint64_t coreBytes = 0;
            for (const auto& [l, tcs] : r.linkTcBytes)
            {
                for (uint64_t b : tcs)
                {
                    coreBytes += isCore(l) ? b : 0;
                }
            }
            std::cout << "[crux-experiment] three-tier flow fabric: core-link bytes " << coreBytes
                      << ", cross-group flows' bytes " << crossBytes << std::endl;
            NS_TEST_ASSERT_MSG_GT(crossBytes, 0, "the ring crosses groups");
            NS_TEST_ASSERT_MSG_EQ(coreBytes, 2 * crossBytes, "core bytes = 2 x cross-group bytes");
        }
        std::cout << "[crux-experiment] three-tier iteration: packet " << iteration[0]
                  << " s, flow " << iteration[1] << " s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(iteration[1] / iteration[0], 1.0, 0.10, "flow vs packet");
    }
};

/**
 * The scenario topology type "double-sided" (the paper's §6.3 double-sided topology) on both
 * fabrics: 2 ToR pairs (4 ToRs), 2 aggregation switches per pair, 4 core switches, 2 hosts per
 * pair with 2 NICs of 2 ports each (port p to ToR p of the pair); GPT on hosts 0 and 2 (one per
 * pair), so every flow crosses the core. Checked against a second construction of the same
 * cluster (BuildDoubleSided() called here): every path is 6 links long (NIC port, ToR, agg,
 * core, agg, ToR, NIC port) with 2 core links, leaves on one of the source NIC's two ports and
 * enters one of the destination NIC's; a NIC sends on both its ports; on the flow fabric every
 * link carries exactly (flows through it) x iterations x the flow bytes of a 2-host ring
 * (2(N-1)/N x gradientBytes / 8 rails = gradientBytes / 8), every other link nothing; on the
 * packet fabric a link carries data iff a flow's path crosses it, and nothing is dropped, resent
 * or timed out (PAUSE counted and printed); the two fabrics agree within 10 %. The packet
 * fabric runs without congestion control (PFC only, so PAUSE frames do occur) to compare the
 * two-port NIC model with the fluid one: measured GPT iteration 0.0259 s (none) = 0.0259 s
 * (flow); DCQCN gives 0.0306 s here (its cuts overshoot against the 25 Gbit/s core links, see
 * "Congestion control"), HPCC 0.0267 s.
 */
class ExperimentDoubleSidedTestCase : public TestCase
{
  public:
    ExperimentDoubleSidedTestCase()
        : TestCase("topology type double-sided: two ports per NIC, 6-link paths through the "
                   "core, bytes per link = flows x ring bytes; packet and flow agree")
    {
    }

  private:
    static constexpr uint64_t GRADIENT_BYTES = 48000000; //!< the job's gradient bytes
    static constexpr uint64_t ITERATIONS = 2;            //!< iterations of the job

    static std::string Text(const std::string& fabric)
    {
        return R"({"name": "double-sided",
  "topology": {"type": "double-sided", "tors": 4, "aggs": 4, "cores": 4, "hostsPerTor": 2,
               "gpusPerHost": 8, "nicsPerHost": 2, "hostLinkRate": "100Gbps",
               "fabricLinkRate": "100Gbps", "coreLinkRate": "25Gbps"},
  "jobs": [{"name": "gpt", "model": "gpt", "hosts": [0, 2], "gpusPerHost": 8,
            "gradientBytes": 48000000, "computeTime": 0.02, "iterations": 2}],
  "scheduler": "ecmp", "profileIterations": 0, "seed": 1, "congestionControl": "none",
  "fabric": ")" +
               fabric + R"(", "outputDir": "/tmp/unused"})";
    }

    /// \return the data bytes of link l in a run (0 if not listed) \param r run \param l link
    static uint64_t LinkBytes(const ExperimentRunResult& r, uint32_t l)
    {
        uint64_t b = 0;
        const auto it = r.linkTcBytes.find(l);
        if (it != r.linkTcBytes.end())
        {
            for (uint64_t x : it->second)
            {
                b += x;
            }
        }
        return b;
    }

    void DoRun() override
    {
        // the second construction: the same cluster from the library's builder
        DoubleSidedConfig dc;
        dc.tors = 4;
        dc.aggs = 4;
        dc.cores = 4;
        dc.numHosts = 4;
        dc.gpusPerHost = 8;
        dc.nicsPerHost = 2;
        dc.portsPerNic = 2;
        dc.hostLinkBps = 100e9;
        dc.torAggBps = 100e9;
        dc.aggCoreBps = 25e9;
        const ClusterTopology c = BuildDoubleSided(dc);
        NS_TEST_ASSERT_MSG_EQ(c.nodes.size(), 4 + 4 + 4 + 4, "hosts, ToRs, aggs, cores");
        NS_TEST_ASSERT_MSG_EQ(c.PortsPerNic(), 2, "two ports per NIC");
        auto isCore = [&c](uint32_t link) {
            return c.nodes[c.linkEnds[link].first].kind == ClusterNodeKind::CORE ||
                   c.nodes[c.linkEnds[link].second].kind == ClusterNodeKind::CORE;
        };
        // NIC port of a host link (either direction): (host, NIC, port)
        std::map<uint32_t, std::array<uint32_t, 3>> portOf;
        for (uint32_t h = 0; h < c.NumHosts(); ++h)
        {
            for (uint32_t n = 0; n < c.nicsPerHost; ++n)
            {
                for (uint32_t p = 0; p < c.nicUp[h][n].size(); ++p)
                {
                    portOf[c.nicUp[h][n][p]] = {h, n, p};
                    portOf[ClusterTopology::Reverse(c.nicUp[h][n][p])] = {h, n, p};
                }
            }
        }
        double iteration[2] = {0, 0};
        int k = 0;
        for (const std::string fabric : {"packet", "flow"})
        {
            CruxExperiment exp(Scenario::Parse(Text(fabric), "double-sided.json"));
            const auto runs = exp.RunMode("ecmp");
            const auto& r = runs.back();
            const auto& job = JobOf(r, "gpt");
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, fabric << ": the job finishes");
            iteration[k++] = job.meanIterationTime;
            NS_TEST_ASSERT_MSG_EQ(job.flowPaths.size(), 16, fabric << ": 8 rails x 2 ranks");
            std::map<uint32_t, uint64_t> flowsOn;                            // link -> flows
            std::map<std::array<uint32_t, 2>, std::set<uint32_t>> portsUsed; // (host, NIC)
            for (const auto& [flow, path] : job.flowPaths)
            {
                std::vector<uint32_t> links;
                std::istringstream is(path);
                std::string tok;
                while (is >> tok)
                {
                    links.push_back(static_cast<uint32_t>(std::stoul(tok.substr(1))));
                }
                NS_TEST_ASSERT_MSG_EQ(links.size(), 6, fabric << " flow " << flow << ": " << path);
                size_t core = 0;
                for (uint32_t l : links)
                {
                    core += isCore(l) ? 1 : 0;
                    ++flowsOn[l];
                }
                NS_TEST_ASSERT_MSG_EQ(core, 2, fabric << " flow " << flow << ": core links");
                const auto src = portOf.find(links.front());
                const auto dst = portOf.find(links.back());
                NS_TEST_ASSERT_MSG_EQ((src != portOf.end() && dst != portOf.end()),
                                      true,
                                      fabric << " flow " << flow << ": NIC port to NIC port");
                NS_TEST_ASSERT_MSG_NE(src->second[0], dst->second[0], "between the two hosts");
                portsUsed[{src->second[0], src->second[1]}].insert(src->second[2]);
            }
            uint32_t bothPorts = 0;
            for (const auto& [nic, ports] : portsUsed)
            {
                bothPorts += ports.size() == 2 ? 1 : 0;
            }
            std::cout << "[crux-experiment] double-sided " << fabric << ": " << bothPorts << " of "
                      << portsUsed.size() << " sending NICs use both ports" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(portsUsed.size(), 4, fabric << ": 2 hosts x 2 NICs send");
            NS_TEST_ASSERT_MSG_GT(bothPorts, 0, fabric << ": a NIC sends on both its ports");
            if (fabric == "packet")
            {
                std::cout << "[crux-experiment] double-sided packet: PAUSE " << r.pauseFrames
                          << ", drops " << r.drops.size() << ", retransmitted "
                          << r.retransmittedPackets << ", timeouts " << r.timeouts << std::endl;
                NS_TEST_ASSERT_MSG_EQ(r.drops.size(), 0, "lossless");
                NS_TEST_ASSERT_MSG_EQ(r.retransmittedPackets, 0, "no retransmission");
                NS_TEST_ASSERT_MSG_EQ(r.timeouts, 0, "no timeout");
                // data classes only (ACKs travel in the control class): a link carries data
                // bytes iff a flow's path crosses it
                for (uint32_t l = 0; l < c.links.size(); ++l)
                {
                    NS_TEST_ASSERT_MSG_EQ((LinkBytes(r, l) > 0),
                                          (flowsOn.count(l) > 0),
                                          "packet fabric: link " << l
                                                                 << " carries data iff on a path");
                }
                continue;
            }
            // flow fabric: payload bytes, flows x iterations x gradientBytes / 8 per link
            const uint64_t perFlow = ITERATIONS * GRADIENT_BYTES / 8;
            for (uint32_t l = 0; l < c.links.size(); ++l)
            {
                const uint64_t want = flowsOn.count(l) ? flowsOn.at(l) * perFlow : 0;
                NS_TEST_ASSERT_MSG_EQ(LinkBytes(r, l), want, "flow fabric: bytes on link " << l);
            }
        }
        std::cout << "[crux-experiment] double-sided iteration: packet " << iteration[0]
                  << " s, flow " << iteration[1] << " s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(iteration[1] / iteration[0], 1.0, 0.10, "flow vs packet");
    }
};

/// Bad input: one clear error naming the field, nothing written.
class ExperimentBadInputTestCase : public TestCase
{
  public:
    ExperimentBadInputTestCase()
        : TestCase("bad input raises one error naming the field; nothing is written")
    {
    }

  private:
    /// Expect constructing the experiment to fail with a message containing \p what.
    void Expect(const std::string& text, const std::string& what)
    {
        const auto dir = TempDir("bad");
        std::string msg;
        try
        {
            CruxExperiment exp(Scenario::Parse(text, "bad.json"));
        }
        catch (const std::exception& e)
        {
            msg = e.what();
        }
        NS_TEST_ASSERT_MSG_NE(msg.find(what), std::string::npos, "'" << msg << "' lacks " << what);
        NS_TEST_ASSERT_MSG_EQ(msg.find('\n'), std::string::npos, "one line: " << msg);
        NS_TEST_ASSERT_MSG_EQ(std::filesystem::exists(dir), false, "nothing written");
    }

    void DoRun() override
    {
        const std::string good = SmallScenario(TempDir("bad").string(), 1);
        auto replace = [&good](const std::string& from, const std::string& to) {
            std::string s = good;
            s.replace(s.find(from), from.size(), to);
            return s;
        };
        Expect(replace(R"("model": "gpt")", R"("model": "gpt-9")"),
               "bad.json: jobs[0].model: unknown model 'gpt-9'");
        Expect(replace(R"("scheduler": "crux")", R"("scheduler": "cruxx")"),
               "scheduler: unknown scheduler 'cruxx'");
        Expect(replace(R"("priorityLevels": 8)", R"("priorityLevels": 0)"), "priorityLevels");
        Expect(replace(R"("hosts": [0, 1, 4, 5])", R"("hosts": [0, 1, 4, 9])"),
               "jobs[0].hosts: host 9 does not exist");
        Expect(replace(R"("hosts": [0, 1, 4, 5], "gpusPerHost": 8,)", R"("gpus": 100,)"),
               "jobs[0].gpus: job asks for 100 GPUs");
        Expect(replace(R"("hosts": [2, 3, 6, 7])", R"("hosts": [0, 3, 6, 7])"),
               "jobs[1].hosts: host 0 has only 0 free GPUs");
        Expect(replace(R"("fabricLinkRate": "20Gbps")", R"("fabricLinkRate": "fast")"),
               "topology.fabricLinkRate");
        Expect(replace("{", "{{"), "bad.json: malformed JSON");
        std::string msg;
        try
        {
            Scenario::Load("/nonexistent/scenario.json");
        }
        catch (const std::exception& e)
        {
            msg = e.what();
        }
        NS_TEST_ASSERT_MSG_EQ(msg, "/nonexistent/scenario.json: cannot open scenario file", msg);
        NS_TEST_ASSERT_MSG_EQ(ParseByteSize("32MiB", "f"), 33554432, "MiB");
        NS_TEST_ASSERT_MSG_EQ(ParseByteSize("1.5KB", "f"), 1500, "KB");
    }
};

/**
 * \ingroup crux-tests
 * \brief ResultDirectory::Problem() of runs started together (a sweep's workers) on one missing
 * output directory, each with its own subdirectory, while one run writes its results there
 * (ResultDirectory, Commit): 8 threads released at once, 40 rounds. Every call must report no
 * problem, the writing run must commit its file, and nothing else may be left (no probe file,
 * no other subdirectory). The constructor failed too ("cannot create output directory: No such
 * file or directory") when a probe removed the empty output directory before the partial one
 * was made in it. Before the fix a call that lost the race to create a shared parent reported
 * "cannot create '<dir>': Success" (std::filesystem::create_directory returns false without an
 * error when the directory appeared meanwhile), "'<dir>' is not writable" when a parallel
 * probe removed the directory between the status and the access check, and "cannot write files
 * in '<dir>'" when threads retried in step (5-11 of 320 calls failed on this machine).
 */
class ResultDirectoryRaceTestCase : public TestCase
{
  public:
    ResultDirectoryRaceTestCase()
        : TestCase("ResultDirectory::Problem of parallel runs on one missing directory")
    {
    }

  private:
    void DoRun() override
    {
        namespace fs = std::filesystem;
        const fs::path base =
            fs::temp_directory_path() / ("crux-race-" + std::to_string(::getpid()));
        constexpr int kThreads = 8;
        int failures = 0;
        std::string firstFailure;
        for (int round = 0; round < 40; ++round)
        {
            const fs::path dir = base / std::to_string(round) / "fig23" / "clos";
            std::atomic<int> ready{0};
            std::vector<std::string> why(kThreads);
            std::vector<std::thread> threads;
            for (int t = 0; t < kThreads; ++t)
            {
                threads.emplace_back([&, t]() {
                    ready.fetch_add(1);
                    while (ready.load() < kThreads)
                    {
                    }
                    if (t > 0)
                    {
                        why[t] = ResultDirectory::Problem(dir.string(), {"s" + std::to_string(t)});
                        return;
                    }
                    // one run already past its check writes its results meanwhile
                    try
                    {
                        ResultDirectory out((dir / "s0").string());
                        out.Open("jobs.csv") << "job\n";
                        out.Commit();
                    }
                    catch (const std::exception& e)
                    {
                        why[t] = e.what();
                    }
                });
            }
            for (auto& th : threads)
            {
                th.join();
            }
            for (const std::string& w : why)
            {
                if (!w.empty())
                {
                    ++failures;
                    firstFailure = firstFailure.empty() ? w : firstFailure;
                }
            }
            std::error_code ec;
            NS_TEST_EXPECT_MSG_EQ(fs::is_regular_file(dir / "s0" / "jobs.csv", ec),
                                  true,
                                  "round " << round << ": the writing run's file");
            for (const auto& e : fs::directory_iterator(dir, ec))
            {
                NS_TEST_EXPECT_MSG_EQ(e.path().filename().string(),
                                      "s0",
                                      "round " << round << ": probe leftover in " << dir);
            }
        }
        std::error_code ec;
        fs::remove_all(base, ec);
        NS_TEST_EXPECT_MSG_EQ(failures, 0, "calls reporting a problem; first: " << firstFailure);
    }
};

/**
 * \ingroup crux-tests
 * \brief ResultDirectory::Retire(): a run that does not write an optional file (a throughput
 * series that was off) or the figures of an earlier run removes them at its commit, so that a
 * directory never holds one run's results beside another's (a second run into the same
 * directory without sampling kept the first run's link_throughput.csv, which the loader and
 * the plots then read as the second run's). A name the run also writes is replaced, not
 * removed, and nothing is removed before the commit.
 */
class ResultDirectoryRetireTestCase : public TestCase
{
  public:
    ResultDirectoryRetireTestCase()
        : TestCase("ResultDirectory removes an earlier run's files the run does not write")
    {
    }

  private:
    void DoRun() override
    {
        namespace fs = std::filesystem;
        const fs::path dir = TempDir("retire");
        fs::create_directories(dir / "plots");
        std::ofstream(dir / "link_throughput.csv") << "run\nold\n";
        std::ofstream(dir / "plots" / "utilization.png") << "old";
        std::ofstream(dir / "jobs.csv") << "old\n";
        std::ofstream(dir / "notes.txt") << "the user's\n";
        {
            ResultDirectory out(dir.string());
            out.Open("jobs.csv") << "new\n";
            out.Retire("link_throughput.csv");
            out.Retire("plots");
            out.Retire("jobs.csv"); // written: replaced, not removed
            out.Retire("absent.csv");
            out.Close();
            NS_TEST_EXPECT_MSG_EQ(fs::exists(dir / "link_throughput.csv"),
                                  true,
                                  "nothing removed before the commit");
            out.Commit();
        }
        NS_TEST_EXPECT_MSG_EQ(fs::exists(dir / "link_throughput.csv"), false, "retired file");
        NS_TEST_EXPECT_MSG_EQ(fs::exists(dir / "plots"), false, "retired figures");
        std::ifstream jobs(dir / "jobs.csv");
        std::string line;
        std::getline(jobs, line);
        NS_TEST_EXPECT_MSG_EQ(line, "new", "the written file replaced");
        NS_TEST_EXPECT_MSG_EQ(fs::exists(dir / "notes.txt"), true, "other files kept");
        size_t entries = 0;
        for (const auto& e : fs::directory_iterator(dir))
        {
            (void)e;
            ++entries;
        }
        NS_TEST_EXPECT_MSG_EQ(entries, 2, "jobs.csv and notes.txt, no partial folder");
        fs::remove_all(dir);
    }
};

/**
 * The shipped §2.2 scenario (scenarios/sec22-gpt-bert.json, found through the module root given
 * at compile time) with GPT cut to 2 iterations: contention under ECMP, recovery under Crux, on
 * the flow fabric and on the packet fabric with its default DCQCN and without congestion control,
 * and packet-level vs flow-level agreement within 10 % per job (issue 3's system test). The
 * agreement is checked for every job without congestion control (the fluid model has none) and
 * for GPT under DCQCN; BERT's iteration time under DCQCN is not comparable: its ECMP paths put
 * two of its own ring crossings on one 25 Gbit/s uplink, where DCQCN's cuts from 100 Gbit/s
 * overshoot (doc/results-scenarios.rst, "The §2.2 scenario").
 */
class Sec22ScenarioTestCase : public TestCase
{
  public:
    Sec22ScenarioTestCase()
        : TestCase("§2.2 scenario: ECMP slows GPT, Crux recovers it (flow, packet with DCQCN and "
                   "without congestion control), flow level within 10 %")
    {
    }

  private:
    void DoRun() override
    {
        std::map<std::string, std::vector<ExperimentRunResult>> byFabric;
        for (const std::string fabric : {"flow", "packet-none", "packet-dcqcn"})
        {
            Scenario s =
                Scenario::Load(std::string(CRUX_SOURCE_DIR) + "/scenarios/sec22-gpt-bert.json");
            s.fabric = fabric == "flow" ? "flow" : "packet";
            s.congestionControl = fabric == "packet-none" ? "none" : "dcqcn";
            s.jobs[0].iterations = 2;
            CruxExperiment exp(s);
            byFabric[fabric] = exp.Run({"alone", "ecmp", "crux"});
        }
        for (const auto& [fabric, runs] : byFabric)
        {
            const double alone = JobOf(RunOf(runs, "alone@ECMP", "gpt"), "gpt").meanIterationTime;
            const double ecmp = JobOf(RunOf(runs, "mix:ecmp"), "gpt").meanIterationTime;
            const double crux = JobOf(RunOf(runs, "mix:crux"), "gpt").meanIterationTime;
            std::cout << "[crux-sec22] " << fabric << ": GPT alone " << alone << " s, ecmp " << ecmp
                      << " s (" << (ecmp / alone - 1) * 100 << " %), crux " << crux << " s ("
                      << (crux / alone - 1) * 100 << " %)" << std::endl;
            // Calibrated: GPT alone takes the paper's 1.53 s per iteration.
            NS_TEST_ASSERT_MSG_EQ_TOL(alone, 1.53, 0.01, fabric << ": GPT alone");
            NS_TEST_ASSERT_MSG_GT(ecmp, alone * 1.05, fabric << ": ECMP contention slows GPT");
            NS_TEST_ASSERT_MSG_LT(crux, alone * 1.01, fabric << ": Crux recovers GPT");
            NS_TEST_ASSERT_MSG_GT(RunOf(runs, "mix:crux").utilization,
                                  RunOf(runs, "mix:ecmp").utilization,
                                  "utilization");
            for (const auto& r : runs)
            {
                NS_TEST_ASSERT_MSG_EQ(r.drops.size(), 0, fabric << " " << r.run << ": lossless");
                NS_TEST_ASSERT_MSG_EQ(r.retransmittedPackets, 0, fabric << " " << r.run);
                NS_TEST_ASSERT_MSG_EQ(r.timeouts, 0, fabric << " " << r.run << ": no timeout");
            }
        }
        // the same run on both fabrics: by role and job
        auto same = [&byFabric](const std::string& fabric, const ExperimentRunResult& r) {
            return RunOf(byFabric[fabric], r.roles.front(), r.jobs.front().name);
        };
        // the runs this test compared before issue 26: each job alone under ECMP, the mixes
        auto compared = [](const ExperimentRunResult& r) {
            for (const char* role : {"alone@ECMP", "mix:ecmp", "mix:crux"})
            {
                if (r.roles.front() == role)
                {
                    return true;
                }
            }
            return false;
        };
        for (const std::string packet : {"packet-none", "packet-dcqcn"})
        {
            for (size_t r = 0; r < byFabric[packet].size(); ++r)
            {
                if (!compared(byFabric[packet][r]))
                {
                    continue;
                }
                for (const auto& jp : byFabric[packet][r].jobs)
                {
                    const auto& jf = JobOf(same("flow", byFabric[packet][r]), jp.name);
                    const double gap = std::abs(jf.meanIterationTime / jp.meanIterationTime - 1);
                    std::cout << "[crux-sec22] " << packet << " " << byFabric[packet][r].run << " "
                              << jp.name << ": packet " << jp.meanIterationTime << " s, flow "
                              << jf.meanIterationTime << " s, gap " << gap * 100 << " %"
                              << std::endl;
                    if (packet == "packet-none" || jp.name == "gpt")
                    {
                        NS_TEST_ASSERT_MSG_LT(gap,
                                              0.10,
                                              packet << " " << byFabric[packet][r].run << " "
                                                     << jp.name);
                    }
                }
            }
        }
        // DCQCN keeps PFC mostly idle: far fewer PAUSE frames than PFC alone
        for (size_t r = 0; r < byFabric["packet-dcqcn"].size(); ++r)
        {
            const uint64_t none = same("packet-none", byFabric["packet-dcqcn"][r]).pauseFrames;
            if (compared(byFabric["packet-dcqcn"][r]) && none > 0)
            {
                NS_TEST_ASSERT_MSG_LT(10 * byFabric["packet-dcqcn"][r].pauseFrames,
                                      none,
                                      byFabric["packet-dcqcn"][r].run
                                          << ": DCQCN >= 10x fewer PAUSE");
            }
        }
    }
};

/// Scenario of the profiled-t_j test: one planned GPT job alone on a 2-ToR Clos (flow fabric),
/// tensor parallelism inside a host (tp 8 of 8 GPUs per host) or across two hosts (tp 8 over
/// 4 GPUs per host).
std::string
PlanScenario(const std::string& outDir, bool tpAcrossHosts)
{
    std::ostringstream os;
    os << R"({
  "name": "tj-plan",
  "topology": {"type": "clos", "tors": 2, "aggs": 2, "hostsPerTor": 4, "gpusPerHost": 8,
               "nicsPerHost": 1, "hostLinkRate": "100Gbps", "fabricLinkRate": "100Gbps"},
  "jobs": [
    {"name": "gpt", "model": "gpt", "hosts": [0, 1, 4, 5], "iterations": 3, )"
       << (tpAcrossHosts ? R"("gpusPerHost": 4, "parallelism": {"tp": 8, "pp": 2, "dp": 1})"
                         : R"("gpusPerHost": 8, "parallelism": {"tp": 8, "pp": 2, "dp": 2})")
       << R"(}
  ],
  "scheduler": "crux", "priorityLevels": 8, "profileIterations": 2, "seed": 1,
  "fabric": "flow", "outputDir": ")"
       << outDir << R"("
})";
    return os.str();
}

/// Profiled t_j (link time per iteration on the busiest link) equals the analytic t_j of the
/// cluster model on an idle fabric, for TP inside and across hosts (issue: GPU intensity as
/// defined; NVLink-only TP traffic does not enter any NIC link's time).
class ProfiledCommTimeTestCase : public TestCase
{
  public:
    ProfiledCommTimeTestCase()
        : TestCase("profiled t_j = analytic t_j (busiest link) for TP x PP x DP jobs, TP inside "
                   "and across hosts")
    {
    }

  private:
    void DoRun() override
    {
        for (bool across : {false, true})
        {
            const auto dir = TempDir("tj");
            CruxExperiment exp(Scenario::Parse(PlanScenario(dir.string(), across), "tj.json"));
            const auto runs = exp.Run({"alone"});
            const ExperimentJobResult& j = JobOf(RunOf(runs, "alone@ECMP", "gpt"), "gpt");
            // the alone run's decision is ECMP's on the same paths, analytic (no t_j known yet)
            const double analytic = j.schedulerCommTime;
            const double profiled = j.profiledCommTime;
            std::cout << "[crux-tj] TP " << (across ? "across" : "inside")
                      << " hosts: analytic t_j " << analytic << " s, profiled " << profiled
                      << " s, mean collective wall time per iteration " << j.meanCommTime << " s"
                      << std::endl;
            NS_TEST_ASSERT_MSG_GT(analytic, 0, "the job crosses NIC links");
            NS_TEST_ASSERT_MSG_EQ_TOL(profiled / analytic, 1.0, 0.05, "profiled = analytic");
            NS_TEST_ASSERT_MSG_EQ_TOL(exp.GetMeasuredCommTimes().at(0),
                                      profiled,
                                      1e-15,
                                      "the schedulers see the profiled t_j");
            std::filesystem::remove_all(dir);
        }
    }
};

/// The fair references: alone on the scheduler's own paths is never slower than alone under
/// ECMP's mean, the contention decomposition adds up, the interval shrinks with more seeds,
/// and a job with too few measured iterations is flagged (flow level, §2.2 and testbed).
class FairReferencesTestCase : public TestCase
{
  public:
    FairReferencesTestCase()
        : TestCase("alone@paths <= alone@ECMP mean, decomposition adds up, intervals shrink with "
                   "seeds, few iterations flagged (flow level)")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string file : {"sec22-gpt-bert.json", "testbed-gpt-bert.json"})
        {
            Scenario s = Scenario::Load(std::string(CRUX_SOURCE_DIR) + "/scenarios/" + file);
            s.fabric = "flow";
            s.seeds = 5;
            const auto dir = TempDir("fair");
            s.outputDir = dir.string();
            CruxExperiment exp(s);
            const auto runs = exp.Run({"alone", "ecmp", "crux"});
            const ExperimentSummary sum = ExperimentOutput(s,
                                                           exp.GetNHosts(),
                                                           exp.GetGpusPerHost(),
                                                           exp.GetJobs(),
                                                           exp.GetMeasuredCommTimes())
                                              .Summary(runs);
            for (const auto& ref : sum.jobs)
            {
                NS_TEST_ASSERT_MSG_EQ(ref.aloneEcmp.n, 5, file << " " << ref.name);
                for (const auto& [sched, paths] : ref.alonePaths)
                {
                    std::cout << "[crux-fair] " << file << " " << ref.name << ": alone@ECMP "
                              << ref.aloneEcmp.mean << " ± " << ref.aloneEcmp.halfWidth
                              << " s, alone@paths(" << sched << ") " << paths.mean << " s"
                              << std::endl;
                    NS_TEST_ASSERT_MSG_LT_OR_EQ(paths.mean,
                                                ref.aloneEcmp.mean * (1 + 1e-9),
                                                file << " " << ref.name << " " << sched);
                }
            }
            for (const auto& c : sum.clusters)
            {
                NS_TEST_ASSERT_MSG_EQ(c.mix.n, 5, file << " " << c.scheduler << ": every seed");
                NS_TEST_ASSERT_MSG_LT(c.maxResidual, 1e-12, "the terms add up");
                NS_TEST_ASSERT_MSG_EQ_TOL(
                    c.mix.mean - c.aloneEcmp.mean,
                    c.pathGain.mean - c.interJobLoss.mean +
                        (c.priorityRecovery.n > 0 ? c.priorityRecovery.mean : 0.0),
                    1e-12,
                    file << " " << c.scheduler << ": means add up too");
            }
            // Crux pins every path: one simulation of its mix for the five seeds
            for (const auto& c : sum.clusters)
            {
                if (c.scheduler == "crux")
                {
                    NS_TEST_ASSERT_MSG_EQ(c.distinctRuns, 1, file << ": crux runs once");
                }
            }
            // vs ECMP, paired seed by seed, by a second route: the mixes' utilizations per seed
            std::map<std::string, std::map<uint64_t, double>> util;
            for (const auto& r : runs)
            {
                for (const auto& role : r.roles)
                {
                    if (role == "mix:ecmp" || role == "mix:crux")
                    {
                        for (uint64_t sd : r.seeds)
                        {
                            util[role][sd] = r.utilization;
                        }
                    }
                }
            }
            std::vector<double> ratios;
            for (const auto& [sd, u] : util["mix:crux"])
            {
                ratios.push_back(u / util["mix:ecmp"].at(sd) - 1);
            }
            const SampleSummary expect = Summarize(ratios);
            for (const auto& c : sum.clusters)
            {
                if (c.scheduler == "ecmp")
                {
                    NS_TEST_ASSERT_MSG_EQ(c.vsEcmp.n, 0, file << ": ECMP is the reference");
                    continue;
                }
                std::cout << "[crux-fair] " << file << " crux vs ECMP " << c.vsEcmp.mean << " ± "
                          << c.vsEcmp.halfWidth << std::endl;
                NS_TEST_ASSERT_MSG_EQ(c.vsEcmp.n, 5, file << ": paired over the 5 seeds");
                NS_TEST_ASSERT_MSG_EQ_TOL(c.vsEcmp.mean, expect.mean, 1e-12, file << " mean");
                NS_TEST_ASSERT_MSG_EQ_TOL(c.vsEcmp.halfWidth,
                                          expect.halfWidth,
                                          1e-12,
                                          file << " interval");
                NS_TEST_ASSERT_MSG_GT(c.vsEcmp.halfWidth, 0, file << ": ECMP varies by seed");
            }
            std::filesystem::remove_all(dir);
        }
        // More seeds, a narrower interval of the ECMP reference (§2.2, BERT's alone time)
        std::map<uint32_t, double> halfWidth;
        for (uint32_t n : {3u, 10u})
        {
            Scenario s =
                Scenario::Load(std::string(CRUX_SOURCE_DIR) + "/scenarios/sec22-gpt-bert.json");
            s.fabric = "flow";
            s.seeds = n;
            CruxExperiment exp(s);
            const auto runs = exp.Run({"alone"});
            const auto sum = ExperimentOutput(s,
                                              exp.GetNHosts(),
                                              exp.GetGpusPerHost(),
                                              exp.GetJobs(),
                                              exp.GetMeasuredCommTimes())
                                 .Summary(runs);
            halfWidth[n] = sum.jobs.at(1).aloneEcmp.halfWidth;
            std::cout << "[crux-fair] bert alone@ECMP over " << n
                      << " seeds: " << sum.jobs.at(1).aloneEcmp.mean << " ± " << halfWidth[n]
                      << " s" << std::endl;
        }
        NS_TEST_ASSERT_MSG_GT(halfWidth[3], 0, "ECMP seeds move BERT's alone time");
        NS_TEST_ASSERT_MSG_LT(halfWidth[10], halfWidth[3], "10 seeds: a narrower interval");
        // Too few measured iterations: flagged in the table and summary.json
        {
            Scenario s =
                Scenario::Load(std::string(CRUX_SOURCE_DIR) + "/scenarios/sec22-gpt-bert.json");
            s.fabric = "flow";
            s.jobs[0].iterations = 2; // GPT: one measured iteration
            const auto dir = TempDir("few");
            s.outputDir = dir.string();
            CruxExperiment exp(s);
            const auto runs = exp.Run({"alone", "ecmp"});
            exp.WriteResults(runs);
            const std::string table = Slurp(dir / "table.txt");
            const std::string summary = Slurp(dir / "summary.json");
            NS_TEST_ASSERT_MSG_NE(table.find("1 few"), std::string::npos, "flag in the table");
            NS_TEST_ASSERT_MSG_NE(summary.find("\"fewIterations\": true"),
                                  std::string::npos,
                                  "flag in summary.json");
            NS_TEST_ASSERT_MSG_EQ(table.find("inf"), std::string::npos, "no inf printed");
            NS_TEST_ASSERT_MSG_EQ(table.find("nan"), std::string::npos, "no nan printed");
            std::filesystem::remove_all(dir);
        }
    }
};

/// The sampled link throughput (ns3::LinkThroughputSampler::Interval): its samples add up to
/// the run's per-link totals exactly, no sample exceeds its link's rate over its interval, and
/// sampling changes no result (flow and packet fabric, the small §2.2 shape, ECMP mix only).
class LinkThroughputTestCase : public TestCase
{
  public:
    LinkThroughputTestCase()
        : TestCase("link throughput samples: sums = links.csv totals, at most the link rate, "
                   "results unchanged (flow and packet)")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string fabric : {"flow", "packet"})
        {
            std::map<bool, std::vector<ExperimentRunResult>> runs;
            for (bool on : {false, true})
            {
                const auto dir = TempDir("lt-" + fabric);
                Config::SetDefault("ns3::LinkThroughputSampler::Interval",
                                   TimeValue(on ? MilliSeconds(2) : Seconds(0)));
                CruxExperiment exp(
                    Scenario::Parse(SmallScenario(dir.string(), 1, fabric), "lt.json"));
                runs[on] = exp.Run({"ecmp"});
                std::filesystem::remove_all(dir);
            }
            Config::SetDefault("ns3::LinkThroughputSampler::Interval", TimeValue(Seconds(0)));
            const ExperimentRunResult& off = RunOf(runs[false], "mix:ecmp");
            const ExperimentRunResult& on = RunOf(runs[true], "mix:ecmp");
            NS_TEST_ASSERT_MSG_EQ(off.linkThroughput.size(), 0, "off: no samples");
            NS_TEST_ASSERT_MSG_GT(on.linkThroughput.size(), 0, "on: samples");
            NS_TEST_ASSERT_MSG_EQ(on.linkThroughputInterval, 0.002, "the interval");
            // results unchanged: iteration ends and per-link totals bit for bit
            NS_TEST_ASSERT_MSG_EQ((on.linkTcBytes == off.linkTcBytes), true, "link totals");
            for (size_t j = 0; j < on.jobs.size(); ++j)
            {
                NS_TEST_ASSERT_MSG_EQ((on.jobs[j].iterEnd == off.jobs[j].iterEnd),
                                      true,
                                      "iteration ends of " << on.jobs[j].name);
            }
            std::map<std::pair<uint32_t, uint32_t>, uint64_t> sum;
            double last = 0;
            double peak = 0;
            for (const LinkThroughputSample& x : on.linkThroughput)
            {
                sum[{x.link, x.tc}] += x.bytes;
                NS_TEST_ASSERT_MSG_GT_OR_EQ(x.time, last, "samples in time order");
                last = x.time;
                NS_TEST_ASSERT_MSG_GT(x.seconds, 0, "an interval has a length");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(x.seconds, 0.002 + 1e-12, "at most the interval");
                // 100 Gbit/s host links, 20 Gbit/s ToR-agg: no link carries more than 100 Gbit/s
                const double gbps = x.bytes * 8.0 / x.seconds / 1e9;
                peak = std::max(peak, gbps);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(gbps, 100.0, "link " << x.link << " at " << x.time);
            }
            for (const auto& [link, perTc] : on.linkTcBytes)
            {
                for (uint32_t tc = 0; tc < perTc.size(); ++tc)
                {
                    const auto it = sum.find({link, tc});
                    NS_TEST_ASSERT_MSG_EQ((it == sum.end() ? 0 : it->second),
                                          perTc[tc],
                                          "samples of link " << link << " TC " << tc
                                                             << " sum to its total");
                }
            }
            for (const auto& [key, bytes] : sum)
            {
                const auto it = on.linkTcBytes.find(key.first);
                NS_TEST_ASSERT_MSG_EQ(
                    (it != on.linkTcBytes.end() && key.second < it->second.size() &&
                     it->second[key.second] == bytes),
                    true,
                    "sampled link " << key.first << " TC " << key.second << " is in the totals");
            }
            std::cout << "[crux-link-throughput] " << fabric << ": " << on.linkThroughput.size()
                      << " samples of 2 ms, peak " << peak << " Gbit/s" << std::endl;
        }
    }
};

/// The §2.2 system test, a suite of its own (it runs for minutes at packet level).
class CruxSec22TestSuite : public TestSuite
{
  public:
    CruxSec22TestSuite()
        : TestSuite("crux-sec22", SYSTEM)
    {
        // the §2.2 scenario at packet level: minutes (ns-3's grading: TAKES_FOREVER)
        AddTestCase(new Sec22ScenarioTestCase, TestCase::TAKES_FOREVER);
    }
};

/// Static instance.
static CruxSec22TestSuite g_cruxSec22TestSuite;

/// The crux-experiment TestSuite.
class CruxExperimentTestSuite : public TestSuite
{
  public:
    CruxExperimentTestSuite()
        : TestSuite("crux-experiment", SYSTEM)
    {
        AddTestCase(new ExperimentBadInputTestCase, TestCase::QUICK);
        AddTestCase(new ResultDirectoryRaceTestCase, TestCase::QUICK);
        AddTestCase(new ResultDirectoryRetireTestCase, TestCase::QUICK);
        // flow-level scenario runs: seconds
        AddTestCase(new ProfiledCommTimeTestCase, TestCase::QUICK);
        AddTestCase(new FairReferencesTestCase, TestCase::QUICK);
        AddTestCase(new LinkThroughputTestCase, TestCase::QUICK);
        // packet-level scenario runs: tens of seconds each (ns-3's grading: EXTENSIVE)
        AddTestCase(new ExperimentContentionTestCase, TestCase::EXTENSIVE);
        AddTestCase(new ExperimentDeterminismTestCase, TestCase::EXTENSIVE);
        AddTestCase(new ExperimentFlowVsPacketTestCase, TestCase::EXTENSIVE);
        AddTestCase(new ExperimentThreeTierTestCase, TestCase::EXTENSIVE);
        AddTestCase(new ExperimentDoubleSidedTestCase, TestCase::EXTENSIVE);
    }
};

/// Static instance.
static CruxExperimentTestSuite g_cruxExperimentTestSuite;
