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

// Tests of the Chakra execution-trace reader and its translation into a CommDag (suite
// "crux-chakra"), on the real ET files of test/data/chakra-et/ (written by ASTRA-sim's tools,
// see SOURCE.md there) and on ETs written here with ChakraTrace::WriteRank:
//  - every microbenchmark (all-reduce, all-gather, reduce-scatter, all-to-all at 4, 8, 16 ranks,
//    1 MiB) reads; bytes per rank = the closed form of the algorithm; idle-fabric time = the
//    alpha-beta closed form within 1 %; it also runs on the packet and the flow fabric of a
//    small Clos with the same bytes;
//  - the custom ring all-reduce of point-to-point nodes vs the library's ring all-reduce;
//  - own ETs: a pipeline send/recv chain and compute/communication overlap (closed forms);
//  - every bad-trace case: one line naming the file and node;
//  - a scenario with a Chakra job and a zoo job under ECMP and Crux, end to end.

#include "crux-test-util.h"

#include "ns3/chakra-trace.h"
#include "ns3/collectives.h"
#include "ns3/comm-dag-runner.h"
#include "ns3/comm-dag.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-experiment.h"
#include "ns3/crux-scenario.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double US = 1e-6;          //!< one microsecond in seconds
constexpr uint64_t MIB = 1ull << 20; //!< the microbenchmarks' buffer

/// The shipped ET files.
std::string
DataDir()
{
    return std::string(CRUX_SOURCE_DIR) + "/test/data/chakra-et";
}

/// Prefix of a microbenchmark: kind "all_reduce" ..., n ranks.
std::string
Micro(const std::string& kind, uint32_t n)
{
    return DataDir() + "/microbenchmarks/" + kind + "/" + std::to_string(n) + "npus_1MB/" + kind;
}

/// Prefix of the custom ring all-reduce.
std::string
CustomRing()
{
    return DataDir() + "/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce";
}

/// A fresh temporary directory.
std::filesystem::path
TempDir(const std::string& tag)
{
    auto p = std::filesystem::temp_directory_path() /
             ("crux-chakra-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

/// GPUs of `hosts` hosts × `gpus` GPUs, rank = host × gpus + local.
std::vector<GpuId>
Gpus(uint32_t hosts, uint32_t gpus)
{
    std::vector<GpuId> out;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        for (uint32_t g = 0; g < gpus; ++g)
        {
            out.push_back(Gpu(h, g));
        }
    }
    return out;
}

/// Result of running one DAG.
struct DagRun
{
    double seconds{-1};                //!< completion time (the run starts at 0)
    std::vector<uint64_t> bytesByRank; //!< bytes each rank handed to the transport
};

/// Run a DAG from time 0 on a transport (Simulator::Run, then Destroy).
DagRun
RunDag(Ptr<MessageTransport> t, std::shared_ptr<CommDag> dag)
{
    DagRun r;
    Ptr<CommDagRunner> runner = CreateObject<CommDagRunner>();
    runner->Setup(t, 1, dag, 0);
    runner->Start(
        crux::MakeFunctorCallback<void>([&r]() { r.seconds = Simulator::Now().GetSeconds(); }));
    Simulator::Run();
    r.bytesByRank = runner->GetBytesSentByRank();
    runner->Dispose();
    Simulator::Destroy();
    return r;
}

/// The trace's iteration as a DAG on the given GPUs.
std::shared_ptr<CommDag>
DagOf(const ChakraTrace& t, const std::vector<GpuId>& gpus)
{
    auto dag = std::make_shared<CommDag>(gpus);
    t.Build(*dag);
    return dag;
}

/**
 * Idle fluid fabric: `hosts` hosts of one GPU, host h has an uplink (2h) and a downlink (2h + 1)
 * of `rate` and 1 µs each, every path is [uplink(src), downlink(dst)] (a non-blocking switch):
 * α = 2 µs, β = 8 / rate. No framing.
 */
Ptr<FlowTransport>
Star(uint32_t hosts, double rate)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, 1);
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), MicroSeconds(1));
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), MicroSeconds(1));
    }
    t->SetPathResolver(
        crux::MakeFunctorCallback([](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> {
            return {2 * k.src.host, 2 * k.dst.host + 1};
        }));
    return t;
}

constexpr double RATE = 100e9;      //!< star link rate, bit/s
constexpr double ALPHA = 2e-6;      //!< star per-message latency, s
constexpr double BETA = 8.0 / RATE; //!< star seconds per byte

/// A node of \p type named prefix + id, with its data dependencies and, if given, its
/// comm_size (bytes).
ChakraNode
Node(uint64_t id,
     const char* prefix,
     ChakraNode::Type type,
     std::vector<uint64_t> deps,
     std::optional<uint64_t> bytes)
{
    ChakraNode n;
    n.id = id;
    n.name = prefix + std::to_string(id);
    n.type = type;
    n.dataDeps = std::move(deps);
    n.hasCommSize = bytes.has_value();
    n.commSize = bytes.value_or(0);
    return n;
}

/// A compute node.
ChakraNode
Comp(uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {})
{
    ChakraNode n = Node(id, "comp", ChakraNode::COMP, std::move(deps), std::nullopt);
    n.durationMicros = micros;
    return n;
}

/// A send node.
ChakraNode
Send(uint64_t id, uint32_t dst, uint64_t bytes, std::vector<uint64_t> deps = {}, int64_t tag = 0)
{
    ChakraNode n = Node(id, "send", ChakraNode::COMM_SEND, std::move(deps), bytes);
    n.hasCommDst = true;
    n.commDst = dst;
    n.commTag = tag;
    return n;
}

/// A receive node.
ChakraNode
Recv(uint64_t id, uint32_t src, uint64_t bytes, std::vector<uint64_t> deps = {}, int64_t tag = 0)
{
    ChakraNode n = Node(id, "recv", ChakraNode::COMM_RECV, std::move(deps), bytes);
    n.hasCommSrc = true;
    n.commSrc = src;
    n.commTag = tag;
    return n;
}

/// A collective node.
ChakraNode
Coll(uint64_t id, int64_t kind, uint64_t bytes, std::vector<uint64_t> deps = {})
{
    ChakraNode n = Node(id, "coll", ChakraNode::COMM_COLL, std::move(deps), bytes);
    n.hasCommType = true;
    n.commType = kind;
    return n;
}

/// Write a trace (one node list per rank) under dir/name and \return its prefix.
std::string
WriteTrace(const std::filesystem::path& dir,
           const std::string& name,
           const std::vector<std::vector<ChakraNode>>& ranks)
{
    const std::string prefix = (dir / name).string();
    for (uint32_t r = 0; r < ranks.size(); ++r)
    {
        ChakraTrace::WriteRank(ChakraTrace::RankFile(prefix, r), ranks[r]);
    }
    return prefix;
}

} // namespace

/// A test case that checks times against closed forms.
class ChakraTimedCase : public TestCase
{
  public:
    /// \param name the case's name
    explicit ChakraTimedCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /// Check a time against a closed form within a relative tolerance; prints both.
    void CheckTime(const std::string& what, double got, double want, double tolerance)
    {
        const double gap = std::abs(got - want) / want;
        std::cout << "[crux-chakra] " << what << ": " << got / US << " us, closed form "
                  << want / US << " us, gap " << 100 * gap << " %" << std::endl;
        NS_TEST_EXPECT_MSG_LT(gap, tolerance, what << " within " << 100 * tolerance << " %");
    }
};

// ===================================================================== reading, bytes, time

/// Every microbenchmark of ASTRA-sim: reads; bytes = closed form; idle time = alpha-beta (1 %).
class ChakraMicrobenchmarkTestCase : public ChakraTimedCase
{
  public:
    ChakraMicrobenchmarkTestCase()
        : ChakraTimedCase("microbenchmark ETs (AR, AG, RS, A2A at 4, 8, 16 ranks, 1 MiB): bytes = "
                          "closed form, idle-fabric time = alpha-beta within 1 %")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string kind : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
        {
            for (uint32_t n : {4u, 8u, 16u})
            {
                const std::string what = kind + " " + std::to_string(n) + " ranks";
                ChakraTrace t = ChakraTrace::Load(Micro(kind, n), n);
                t.SetAllReduce("classic-ring"); // the closed forms below
                NS_TEST_ASSERT_MSG_EQ(t.NumRanks(), n, what);
                NS_TEST_ASSERT_MSG_EQ(t.NumCollectives(), 1, what << ": one collective");
                NS_TEST_ASSERT_MSG_EQ(t.NumPointToPoint(), 0, what);
                NS_TEST_ASSERT_MSG_EQ(t.Nodes(0).at(0).commSize, MIB, what << ": 1 MiB");
                NS_TEST_ASSERT_MSG_EQ(t.FlopsPerIteration(), 0, what << ": no compute");
                // ring AR 2(N-1) chunks of S/N per rank, the others N-1 (S divisible by N)
                const uint32_t steps = kind == "all_reduce" ? 2 * (n - 1) : n - 1;
                auto run = RunDag(Star(n, RATE), DagOf(t, Gpus(n, 1)));
                for (uint32_t r = 0; r < n; ++r)
                {
                    NS_TEST_ASSERT_MSG_EQ(run.bytesByRank[r],
                                          MIB / n * steps,
                                          what << ": rank " << r << " sends the closed form");
                }
                CheckTime(what,
                          run.seconds,
                          steps * (ALPHA + static_cast<double>(MIB) / n * BETA),
                          0.01);
                // the scheduler's view (DltJob::CommunicationPattern, as for zoo jobs): one
                // flow per inter-host connection with the bytes the run sends on it
                if (kind != "all_to_all")
                {
                    auto shared = std::make_shared<ChakraTrace>(t);
                    DltJob job = DltJob::FromChakra(1, shared, Gpus(n, 1));
                    const auto flows = job.CommunicationPattern();
                    NS_TEST_ASSERT_MSG_EQ(flows.size(), n, what << ": ring flows r -> r+1");
                    for (const auto& f : flows)
                    {
                        NS_TEST_ASSERT_MSG_EQ(f.dst.host, (f.src.host + 1) % n, what << ": ring");
                        NS_TEST_ASSERT_MSG_EQ(f.bytesPerIteration,
                                              static_cast<double>(MIB / n * steps),
                                              what << ": flow bytes = closed form");
                    }
                }
                if (kind == "all_reduce")
                {
                    // AUTO: NCCL's choice (NcclModel); one GPU per host on n hosts
                    ChakraTrace a = ChakraTrace::Load(Micro(kind, n), n);
                    auto dag = DagOf(a, Gpus(n, 1));
                    std::vector<uint32_t> members;
                    for (uint32_t r = 0; r < n; ++r)
                    {
                        members.push_back(r);
                    }
                    const auto plan =
                        Collectives::NcclPlan(*dag, members, MIB, NcclFunction::ALL_REDUCE, {});
                    auto ra = RunDag(Star(n, RATE), dag);
                    uint64_t total = 0;
                    for (uint64_t b : ra.bytesByRank)
                    {
                        total += b;
                    }
                    // tree: every tree edge carries its channel's share up and down: 2(N-1) S;
                    // ring: 2(N-1)/N S per rank; both in the protocol's wire format
                    const uint64_t data = plan.algorithm == NcclAlgorithm::TREE
                                              ? 2 * (n - 1) * MIB
                                              : static_cast<uint64_t>(n) * MIB / n * steps;
                    const double want =
                        static_cast<double>(NcclModel::WireBytes(plan.protocol, data));
                    std::cout << "[crux-chakra] " << what << " AUTO = " << ToString(plan.algorithm)
                              << "/" << ToString(plan.protocol) << " on " << plan.channels
                              << " channels, " << total << " bytes" << std::endl;
                    NS_TEST_ASSERT_MSG_EQ_TOL(static_cast<double>(total),
                                              want,
                                              1e-4 * want,
                                              what << ": AUTO bytes");
                }
            }
        }
    }
};

/// The microbenchmarks on a small Clos, packet level and flow level: same bytes, completion.
class ChakraFabricsTestCase : public TestCase
{
  public:
    ChakraFabricsTestCase()
        : TestCase("microbenchmark ETs run on the packet and the flow fabric (4 hosts, 1-4 GPUs "
                   "each): closed-form bytes, no retransmission")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string kind : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
        {
            for (uint32_t n : {4u, 8u, 16u})
            {
                const uint32_t hosts = 4;
                const uint32_t gpus = n / hosts;
                ChakraTrace t = ChakraTrace::Load(Micro(kind, n), n);
                t.SetAllReduce("classic-ring");
                const uint32_t steps = kind == "all_reduce" ? 2 * (n - 1) : n - 1;
                ClosConfig cfg = SmallClosConfig();
                cfg.hostsPerTor = 2;
                cfg.gpusPerHost = gpus;
                double times[2] = {0, 0};
                for (int packet = 1; packet >= 0; --packet)
                {
                    CruxTopologyHelper th;
                    Ptr<CruxTopology> topo = th.BuildClos(cfg);
                    Ptr<MessageTransport> tr;
                    Ptr<RdmaTransport> rdma;
                    if (packet)
                    {
                        rdma = RdmaTransportHelper().Install(topo);
                        tr = rdma;
                    }
                    else
                    {
                        tr = FlowTransportHelper().Install(topo);
                    }
                    std::vector<Ptr<RdmaNic>> nics;
                    for (uint32_t h = 0; rdma && h < hosts; ++h)
                    {
                        nics.push_back(rdma->GetNic(h, 0));
                    }
                    auto dag = DagOf(t, Gpus(hosts, gpus));
                    DagRun run;
                    Ptr<CommDagRunner> runner = CreateObject<CommDagRunner>();
                    runner->Setup(tr, 1, dag, 0);
                    runner->Start(crux::MakeFunctorCallback<void>(
                        [&run]() { run.seconds = Simulator::Now().GetSeconds(); }));
                    Simulator::Run();
                    run.bytesByRank = runner->GetBytesSentByRank();
                    uint64_t retransmitted = 0;
                    for (auto& nic : nics)
                    {
                        retransmitted += nic->GetStats().retransmittedPackets;
                    }
                    runner->Dispose();
                    Simulator::Destroy();
                    const std::string what =
                        kind + " " + std::to_string(n) + " ranks, " + (packet ? "packet" : "flow");
                    NS_TEST_ASSERT_MSG_GT(run.seconds, 0, what << ": completed");
                    NS_TEST_ASSERT_MSG_EQ(retransmitted, 0, what << ": no retransmission");
                    for (uint32_t r = 0; r < n; ++r)
                    {
                        NS_TEST_ASSERT_MSG_EQ(run.bytesByRank[r],
                                              MIB / n * steps,
                                              what << ": rank " << r << " bytes");
                    }
                    times[packet] = run.seconds;
                }
                std::cout << "[crux-chakra] " << kind << " " << n << " ranks on 4 hosts: packet "
                          << times[1] / US << " us, flow " << times[0] / US << " us" << std::endl;
            }
        }
    }
};

/// The custom ring all-reduce (point-to-point nodes) vs the library's ring all-reduce.
class ChakraCustomRingTestCase : public ChakraTimedCase
{
  public:
    ChakraCustomRingTestCase()
        : ChakraTimedCase(
              "custom ring all-reduce ET (8 ranks, send, recv and comp nodes) vs the built-in "
              "ring: same per-rank bytes, time within 2 % (reduction steps subtracted)")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        ChakraTrace t = ChakraTrace::Load(CustomRing(), n);
        NS_TEST_ASSERT_MSG_EQ(t.NumCollectives(), 0, "no collective node");
        NS_TEST_ASSERT_MSG_EQ(t.NumPointToPoint(), n * 2 * (n - 1), "14 sends per rank");
        // the reduce-scatter half has one 7 µs reduction (COMP_NODE) after each receive
        NS_TEST_ASSERT_MSG_EQ_TOL(t.ComputeTime(), 7 * 7 * US, 1e-12, "7 reductions of 7 us");
        NS_TEST_ASSERT_MSG_EQ_TOL(t.FlopsPerIteration(),
                                  n * 7 * 7 * US * ChakraTrace::DEFAULT_FLOP_RATE,
                                  1,
                                  "W_j = durations x the assumed FLOP rate");
        auto custom = RunDag(Star(n, RATE), DagOf(t, Gpus(n, 1)));
        auto dag = std::make_shared<CommDag>(Gpus(n, 1));
        std::vector<uint32_t> members{0, 1, 2, 3, 4, 5, 6, 7};
        Collectives::RingAllReduce(*dag, members, MIB, {});
        auto builtin = RunDag(Star(n, RATE), dag);
        for (uint32_t r = 0; r < n; ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(custom.bytesByRank[r],
                                  builtin.bytesByRank[r],
                                  "rank " << r << ": same bytes as the built-in ring");
        }
        std::cout << "[crux-chakra] custom ring " << custom.seconds / US << " us (of which "
                  << t.ComputeTime() / US << " us reduction steps on the critical path), built-in "
                  << builtin.seconds / US << " us" << std::endl;
        CheckTime("custom ring minus its reduction steps vs built-in ring",
                  custom.seconds - t.ComputeTime(),
                  builtin.seconds,
                  0.02);
    }
};

// ============================================================================== own traces

/// ETs written here: a pipeline send/recv chain and compute/communication overlap.
class ChakraOwnTracesTestCase : public ChakraTimedCase
{
  public:
    ChakraOwnTracesTestCase()
        : ChakraTimedCase(
              "own ETs (written with ChakraTrace::WriteRank): pipeline send-recv chain, "
              "compute-communication overlap, FLOPs from num_ops; closed forms")
    {
    }

  private:
    void DoRun() override
    {
        const auto dir = TempDir("own");
        const uint64_t s = 4 * MIB;
        // pipeline of 4 stages: stage r receives (r > 0), computes c_r, sends to r+1 (r < 3)
        {
            const uint32_t n = 4;
            const uint64_t c = 100;
            std::vector<std::vector<ChakraNode>> ranks(n);
            for (uint32_t r = 0; r < n; ++r)
            {
                if (r > 0)
                {
                    ranks[r].push_back(Recv(10, r - 1, s));
                    ranks[r].push_back(Comp(11, c, {10}));
                }
                else
                {
                    ranks[r].push_back(Comp(11, c));
                }
                if (r + 1 < n)
                {
                    ranks[r].push_back(Send(12, r + 1, s, {11}));
                }
            }
            ChakraTrace t = ChakraTrace::Load(WriteTrace(dir, "pipeline", ranks), n);
            // the writer and the reader agree
            NS_TEST_ASSERT_MSG_EQ(t.Nodes(1).size(), 3, "rank 1: recv, comp, send");
            NS_TEST_ASSERT_MSG_EQ(t.Nodes(1)[2].commDst, 2, "send to rank 2");
            NS_TEST_ASSERT_MSG_EQ(t.Nodes(1)[1].dataDeps.size(), 1, "comp waits for the recv");
            NS_TEST_ASSERT_MSG_EQ(t.NumPointToPoint(), 3, "3 send/recv pairs");
            NS_TEST_ASSERT_MSG_EQ_TOL(t.FirstCommStart(), c * US, 1e-12, "first send after c");
            auto run = RunDag(Star(n, RATE), DagOf(t, Gpus(n, 1)));
            CheckTime("pipeline chain 4 stages, 100 us + 4 MiB each",
                      run.seconds,
                      n * c * US + (n - 1) * (ALPHA + s * BETA),
                      0.01);
        }
        // overlap: every rank computes A (500 µs) while an all-reduce of 4 MiB runs, then B
        // (100 µs) after both; the no-overlap variant starts the all-reduce after A
        for (bool overlap : {true, false})
        {
            const uint32_t n = 8;
            std::vector<std::vector<ChakraNode>> ranks(n);
            for (uint32_t r = 0; r < n; ++r)
            {
                ranks[r].push_back(Comp(1, 500));
                ranks[r].push_back(
                    Coll(2,
                         ChakraNode::ALL_REDUCE,
                         s,
                         overlap ? std::vector<uint64_t>{} : std::vector<uint64_t>{1}));
                ranks[r].push_back(Comp(3, 100, {1, 2}));
            }
            ChakraTrace t =
                ChakraTrace::Load(WriteTrace(dir, overlap ? "overlap" : "serial", ranks), n);
            t.SetAllReduce("classic-ring");
            const double ar = 2 * (n - 1) * (ALPHA + static_cast<double>(s) / n * BETA);
            auto run = RunDag(Star(n, RATE), DagOf(t, Gpus(n, 1)));
            const double want =
                overlap ? std::max(500 * US, ar) + 100 * US : 500 * US + ar + 100 * US;
            CheckTime(overlap ? "compute 500 us overlapping a 4 MiB ring all-reduce, then 100 us"
                              : "compute 500 us, then the all-reduce, then 100 us",
                      run.seconds,
                      want,
                      0.01);
            NS_TEST_ASSERT_MSG_EQ_TOL(t.FirstCommStart(),
                                      (overlap ? 0.0 : 500 * US),
                                      1e-12,
                                      "first communication");
        }
        // FLOPs: a compute node with num_ops and no duration takes num_ops / rate
        {
            std::vector<std::vector<ChakraNode>> ranks(2);
            for (auto& r : ranks)
            {
                ChakraNode c = Comp(1, 0);
                c.hasNumOps = true;
                c.numOps = 3.12e12; // 20 ms at the default 156 TFLOP/s
                r.push_back(c);
                ChakraNode cpu = Comp(2, 1000, {1});
                cpu.isCpuOp = true; // 1 ms on the host: time, no GPU FLOPs
                r.push_back(cpu);
            }
            ChakraTrace t = ChakraTrace::Load(WriteTrace(dir, "flops", ranks), 2);
            NS_TEST_ASSERT_MSG_EQ_TOL(t.FlopsPerIteration(), 2 * 3.12e12, 1, "W_j = num_ops");
            NS_TEST_ASSERT_MSG_EQ_TOL(t.ComputeTime(),
                                      3.12e12 / ChakraTrace::DEFAULT_FLOP_RATE + 1e-3,
                                      1e-12,
                                      "num_ops / rate + the CPU op");
            auto run = RunDag(Star(2, RATE), DagOf(t, Gpus(2, 1)));
            NS_TEST_ASSERT_MSG_EQ_TOL(run.seconds, 0.021, 1e-9, "20 ms + 1 ms");
        }
        std::filesystem::remove_all(dir);
    }
};

// ============================================================================== bad traces

/// Every bad-trace case: a ChakraError of one line naming the file (and the node).
class ChakraBadTraceTestCase : public TestCase
{
  public:
    ChakraBadTraceTestCase()
        : TestCase("bad traces: truncated, not protobuf, missing rank file, extra ranks, unknown "
                   "dependency, cycle, send without receive, unsupported nodes: one line naming "
                   "file and node")
    {
    }

  private:
    /// Expect Load to fail with a one-line message containing every part of `want`.
    void Expect(const std::string& what,
                const std::string& prefix,
                uint32_t ranks,
                const std::vector<std::string>& want)
    {
        std::string msg;
        try
        {
            ChakraTrace::Load(prefix, ranks);
        }
        catch (const ChakraError& e)
        {
            msg = e.what();
        }
        std::cout << "[crux-chakra] " << what << ": " << msg << std::endl;
        NS_TEST_ASSERT_MSG_EQ(msg.empty(), false, what << ": refused");
        NS_TEST_ASSERT_MSG_EQ(msg.find('\n'), std::string::npos, what << ": one line");
        for (const auto& w : want)
        {
            NS_TEST_ASSERT_MSG_NE(msg.find(w), std::string::npos, what << ": names '" << w << "'");
        }
    }

    void DoRun() override
    {
        const auto dir = TempDir("bad");
        const std::string good = Micro("all_reduce", 4);
        auto copy = [&](const std::string& name) {
            for (uint32_t r = 0; r < 4; ++r)
            {
                std::filesystem::copy_file(ChakraTrace::RankFile(good, r),
                                           ChakraTrace::RankFile((dir / name).string(), r));
            }
            return (dir / name).string();
        };
        // truncated: rank 2 loses its last 5 bytes
        {
            const std::string p = copy("truncated");
            const std::string f = ChakraTrace::RankFile(p, 2);
            std::filesystem::resize_file(f, std::filesystem::file_size(f) - 5);
            Expect("truncated", p, 4, {f, "truncated"});
        }
        // not protobuf: a text file
        {
            const std::string p = copy("text");
            const std::string f = ChakraTrace::RankFile(p, 1);
            std::ofstream(f, std::ios::trunc) << "{\"this\": \"is JSON, not a Chakra trace\"}\n";
            Expect("not protobuf", p, 4, {f, "not a"});
        }
        // missing rank file, and more rank files than GPUs
        {
            const std::string p = copy("missing");
            std::filesystem::remove(ChakraTrace::RankFile(p, 3));
            Expect("missing rank", p, 4, {ChakraTrace::RankFile(p, 3), "missing rank file"});
            Expect("extra ranks", good, 3, {ChakraTrace::RankFile(good, 3), "more ranks"});
        }
        // unknown dependency, cycle (one rank; across ranks), send without receive
        std::vector<std::vector<ChakraNode>> ranks(2);
        ranks[0] = {Comp(1, 10), Comp(2, 10, {1, 7})};
        ranks[1] = {Comp(1, 10)};
        std::string p = WriteTrace(dir, "dep", ranks);
        Expect("unknown dependency",
               p,
               2,
               {ChakraTrace::RankFile(p, 0), "node 2 'comp2'", "depends on node 7"});
        ranks[0] = {Comp(1, 10, {3}), Comp(2, 10, {1}), Comp(3, 10, {2})};
        p = WriteTrace(dir, "cycle", ranks);
        Expect("cycle", p, 2, {ChakraTrace::RankFile(p, 0), "node", "dependency cycle"});
        // rank 0 waits for rank 1's message before sending its own, and rank 1 likewise
        ranks[0] = {Recv(1, 1, 100), Send(2, 1, 100, {1})};
        ranks[1] = {Recv(1, 0, 100), Send(2, 0, 100, {1})};
        p = WriteTrace(dir, "deadlock", ranks);
        Expect("cross-rank cycle", p, 2, {"dependency cycle", "rank 1 node"});
        ranks[0] = {Send(1, 1, 100), Send(2, 1, 100)};
        ranks[1] = {Recv(1, 0, 100)};
        p = WriteTrace(dir, "unmatched", ranks);
        Expect("send without receive",
               p,
               2,
               {ChakraTrace::RankFile(p, 0), "node 2 'send2'", "no matching receive"});
        ranks[0] = {Coll(1, ChakraNode::ALL_REDUCE, 100)};
        ranks[1] = {Coll(1, ChakraNode::ALL_GATHER, 100)};
        p = WriteTrace(dir, "collmismatch", ranks);
        Expect("collectives differ", p, 2, {ChakraTrace::RankFile(p, 1), "ALL_GATHER"});
        ranks[1] = {Coll(1, ChakraNode::REDUCE, 100)};
        p = WriteTrace(dir, "reduce", ranks);
        Expect("unsupported collective", p, 2, {"REDUCE", "not run by crux"});
        ChakraNode mem = Comp(1, 0);
        mem.type = ChakraNode::MEM_LOAD;
        ranks[1] = {mem};
        p = WriteTrace(dir, "mem", ranks);
        Expect("memory node", p, 2, {ChakraTrace::RankFile(p, 1), "MEM_LOAD_NODE"});
        // issue 29: a compute time beyond the simulator's clock (2^62 and 2^63 us), a trace of
        // metadata only, and rank files that are not regular files
        ranks[0] = {Comp(1, uint64_t{1} << 62)};
        ranks[1] = {Comp(1, 10)};
        p = WriteTrace(dir, "huge62", ranks);
        Expect("duration 2^62 us",
               p,
               2,
               {ChakraTrace::RankFile(p, 0),
                "node 1 'comp1'",
                "duration_micros 4611686018427387904",
                "beyond the"});
        ranks[0] = {Comp(1, uint64_t{1} << 63)};
        p = WriteTrace(dir, "huge", ranks);
        Expect("duration 2^63 us",
               p,
               2,
               {ChakraTrace::RankFile(p, 0), "duration_micros 9223372036854775808", "beyond the"});
        ChakraNode meta = Comp(1, 0);
        meta.type = ChakraNode::METADATA;
        ranks[0] = {meta};
        ranks[1] = {meta};
        p = WriteTrace(dir, "meta", ranks);
        Expect("metadata only",
               p,
               2,
               {ChakraTrace::RankFile(p, 0),
                "no compute time and no communication",
                "2 metadata nodes"});
        {
            const std::string d = copy("isdir");
            std::filesystem::remove(ChakraTrace::RankFile(d, 1));
            std::filesystem::create_directory(ChakraTrace::RankFile(d, 1));
            Expect("a directory", d, 4, {ChakraTrace::RankFile(d, 1), "is a directory"});
            const std::string f = copy("fifo");
            std::filesystem::remove(ChakraTrace::RankFile(f, 2));
            NS_TEST_ASSERT_MSG_EQ(::mkfifo(ChakraTrace::RankFile(f, 2).c_str(), 0600), 0, "mkfifo");
            Expect("a FIFO", f, 4, {ChakraTrace::RankFile(f, 2), "is not a regular file"});
            const std::string z = copy("zero");
            std::filesystem::remove(ChakraTrace::RankFile(z, 3));
            std::filesystem::create_symlink("/dev/zero", ChakraTrace::RankFile(z, 3));
            Expect("a link to /dev/zero",
                   z,
                   4,
                   {ChakraTrace::RankFile(z, 3), "is not a regular file"});
        }
        // test/data/chakra-et/bad/ holds the dep, cycle, deadlock, unmatched, huge and meta
        // traces for the command-line test (test/check-cli-errors.sh): exactly what the writer
        // writes above. CRUX_CHAKRA_REGENERATE=1 rewrites them.
        const std::filesystem::path bad = DataDir() + "/bad";
        for (const std::string name : {"dep", "cycle", "deadlock", "unmatched", "huge", "meta"})
        {
            for (uint32_t r = 0; r < 2; ++r)
            {
                const auto fresh = ChakraTrace::RankFile((dir / name).string(), r);
                const auto shipped = ChakraTrace::RankFile((bad / name).string(), r);
                if (std::getenv("CRUX_CHAKRA_REGENERATE") != nullptr)
                {
                    std::filesystem::create_directories(bad);
                    std::filesystem::copy_file(fresh,
                                               shipped,
                                               std::filesystem::copy_options::overwrite_existing);
                }
                auto bytes = [](const std::string& f) {
                    std::ifstream in(f, std::ios::binary);
                    return std::string((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
                };
                NS_TEST_EXPECT_MSG_EQ((bytes(fresh) == bytes(shipped) && !bytes(fresh).empty()),
                                      true,
                                      shipped << " = what ChakraTrace::WriteRank writes");
            }
        }
        std::filesystem::remove_all(dir);
    }
};

// ============================================================================== end to end

/// A Chakra job next to a zoo job under ECMP and Crux: runs, writes the result files.
class ChakraScenarioTestCase : public TestCase
{
  public:
    ChakraScenarioTestCase()
        : TestCase("scenario: Chakra job (custom ring ET) + zoo job under ECMP and Crux, flow and "
                   "packet fabric, end to end")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = std::string(CRUX_SOURCE_DIR) + "/scenarios/chakra-ring-bert.json";
        for (const std::string fabric : {"flow", "packet"})
        {
            Scenario sc = Scenario::Load(file);
            const auto dir = TempDir("scenario-" + fabric);
            sc.outputDir = (dir / "out").string();
            sc.fabric = fabric;
            CruxExperiment exp(sc);
            const auto& jobs = exp.GetJobs();
            NS_TEST_ASSERT_MSG_EQ(jobs.size(), 2, "two jobs");
            NS_TEST_ASSERT_MSG_EQ((jobs[0].chakra != nullptr), true, "job 0 runs the trace");
            NS_TEST_ASSERT_MSG_GT(jobs[0].flopsPerIteration, 0, "W_j from the trace");
            NS_TEST_ASSERT_MSG_GT(jobs[0].CommunicationPattern().size(),
                                  0,
                                  "the scheduler sees the trace's inter-host flows");
            auto runs = exp.Run({"alone", "ecmp", "crux"});
            exp.WriteResults(runs);
            for (const char* f : {"jobs.csv", "iterations.csv", "links.csv", "summary.json"})
            {
                NS_TEST_ASSERT_MSG_EQ(std::filesystem::exists(dir / "out" / f),
                                      true,
                                      fabric << ": " << f << " written");
            }
            for (const auto& r : runs)
            {
                NS_TEST_ASSERT_MSG_EQ(r.complete, true, fabric << " " << r.run << ": complete");
                NS_TEST_ASSERT_MSG_EQ(r.retransmittedPackets, 0, fabric << ": no retransmission");
                for (const auto& j : r.jobs)
                {
                    std::cout << "[crux-chakra] " << fabric << " " << r.run << " " << j.name
                              << ": level " << j.level << ", intensity " << j.intensity
                              << ", mean iteration " << j.meanIterationTime * 1e3 << " ms, comm "
                              << j.meanCommTime * 1e3 << " ms, JCT " << j.jct << " s" << std::endl;
                    NS_TEST_ASSERT_MSG_GT(j.meanIterationTime, 0, j.name << " iterated");
                    NS_TEST_ASSERT_MSG_GT(j.jct, 0, j.name << " finished");
                }
            }
            std::filesystem::remove_all(dir);
        }
    }
};

/// The test suite.
class ChakraTestSuite : public TestSuite
{
  public:
    ChakraTestSuite()
        : TestSuite("crux-chakra", UNIT)
    {
        AddTestCase(new ChakraMicrobenchmarkTestCase, TestCase::QUICK);
        AddTestCase(new ChakraFabricsTestCase, TestCase::QUICK);
        AddTestCase(new ChakraCustomRingTestCase, TestCase::QUICK);
        AddTestCase(new ChakraOwnTracesTestCase, TestCase::QUICK);
        AddTestCase(new ChakraBadTraceTestCase, TestCase::QUICK);
        AddTestCase(new ChakraScenarioTestCase, TestCase::QUICK);
    }
};

/// Static instance.
static ChakraTestSuite g_chakraTestSuite;
