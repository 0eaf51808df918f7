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

// Tests of the collectives library and the planned training iteration (suite
// "crux-collectives"): bytes per rank of every algorithm against its closed form, completion
// times on an idle fluid fabric against the alpha-beta closed forms (within 1 %), packet level
// vs flow level per collective (within 5 %), the 1F1B bubble with free communication, a
// mixture-of-experts job on the packet fabric with PFC (no drop), the scheduler's per-flow bytes
// of a 3D-parallel job against the fabric's link counters, and the inter-host flows of PP/EP.

#include "crux-test-util.h"

#include "ns3/collectives.h"
#include "ns3/comm-dag-runner.h"
#include "ns3/comm-dag.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-switch.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-evaluator.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/node.h"
#include "ns3/qbb-net-device.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/training-iteration.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double US = 1e-6; //!< one microsecond in seconds

/// The algorithms under test, by name.
enum class Algo
{
    RING_AR,
    RS,
    AG,
    HIER_AR,
    TREE_AR,
    HD_AR,
    BCAST,
    A2A,
    SENDRECV
};

/// \return the algorithm's name
std::string
Name(Algo a)
{
    switch (a)
    {
    case Algo::RING_AR:
        return "ring all-reduce";
    case Algo::RS:
        return "reduce-scatter";
    case Algo::AG:
        return "all-gather";
    case Algo::HIER_AR:
        return "hierarchical all-reduce";
    case Algo::TREE_AR:
        return "tree all-reduce";
    case Algo::HD_AR:
        return "halving-doubling all-reduce";
    case Algo::BCAST:
        return "broadcast";
    case Algo::A2A:
        return "all-to-all";
    case Algo::SENDRECV:
        return "send/recv";
    }
    return "?";
}

/// Add one collective over ranks 0..n-1 of the DAG. \param chunks pipeline chunks (0 = default)
void
AddCollective(CommDag& dag, Algo a, uint64_t bytes, uint32_t chunks = 0)
{
    std::vector<uint32_t> m;
    for (uint32_t r = 0; r < dag.NumRanks(); ++r)
    {
        m.push_back(r);
    }
    switch (a)
    {
    case Algo::RING_AR:
        Collectives::RingAllReduce(dag, m, bytes, {});
        break;
    case Algo::RS:
        Collectives::RingReduceScatter(dag, m, bytes, {});
        break;
    case Algo::AG:
        Collectives::RingAllGather(dag, m, bytes, {});
        break;
    case Algo::HIER_AR:
        Collectives::HierarchicalAllReduce(dag, m, bytes, {});
        break;
    case Algo::TREE_AR:
        Collectives::TreeAllReduce(dag, m, bytes, {}, chunks);
        break;
    case Algo::HD_AR:
        Collectives::HalvingDoublingAllReduce(dag, m, bytes, {});
        break;
    case Algo::BCAST:
        Collectives::Broadcast(dag, m, bytes, {}, chunks);
        break;
    case Algo::A2A:
        Collectives::AllToAll(dag, m, bytes, {});
        break;
    case Algo::SENDRECV:
        Collectives::SendRecv(dag, {0, dag.NumRanks() - 1}, bytes, {});
        break;
    }
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
    uint64_t messages{0};              //!< messages handed to the transport
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
    r.messages = runner->GetMessagesSent();
    runner->Dispose();
    Simulator::Destroy();
    return r;
}

/**
 * Idle fluid fabric: `hosts` hosts of `gpus` GPUs, host h has an uplink (2h) and a downlink
 * (2h + 1) of `rate`, `delay` each, and every path is [uplink(src), downlink(dst)]: a
 * non-blocking switch, so α = 2 × delay and β = 8 / rate. No framing (PacketPayload 0).
 */
Ptr<FlowTransport>
Star(uint32_t hosts, uint32_t gpus, double rate, Time delay)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, gpus);
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
    }
    t->SetPathResolver(
        crux::MakeFunctorCallback([](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> {
            return {2 * k.src.host, 2 * k.dst.host + 1};
        }));
    return t;
}

/**
 * Fluid full mesh: one link of `rate` and `delay` per ordered host pair and channel (a
 * connection never shares a link): α = delay, β = 8 / rate. Connections are told apart by
 * their flow id (one link per flow id).
 */
Ptr<FlowTransport>
Mesh(uint32_t hosts, uint32_t flows, double rate, Time delay)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, 1);
    }
    for (uint32_t f = 0; f < flows; ++f)
    {
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
    }
    t->SetPathResolver(crux::MakeFunctorCallback(
        [](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> { return {k.flowId}; }));
    return t;
}

/// Small Clos (2 ToRs × 2 hosts, 2 aggs, 100 Gbit/s, 1 µs), `gpus` GPUs per host.
ClosConfig
SmallClos(uint32_t gpus)
{
    ClosConfig cfg = SmallClosConfig();
    cfg.hostsPerTor = 2;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = gpus;
    return cfg;
}

/// Max depth (hops to the root) of NCCL's two trees over n nodes.
uint32_t
TreeHeight(uint32_t n)
{
    uint32_t h = 0;
    for (uint32_t tree = 0; tree < 2; ++tree)
    {
        const auto parent = Collectives::TreeParents(n, tree);
        for (uint32_t x = 0; x < n; ++x)
        {
            uint32_t d = 0;
            for (int32_t y = parent[x]; y >= 0; y = parent[y])
            {
                ++d;
            }
            h = std::max(h, d);
        }
    }
    return h;
}

} // namespace

// ============================================================================ bytes per rank

/// Every algorithm: bytes each rank sends = its closed form (from the DAG and from a real run).
class CollectiveBytesTestCase : public TestCase
{
  public:
    CollectiveBytesTestCase()
        : TestCase("bytes per rank = closed form: ring 2(N-1) over N S, RS AG A2A (N-1) over N S, "
                   "hierarchical, halving-doubling and tree steps")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const uint64_t s = 8ull << 20; // divisible by 8 and by 2 × 64
        auto bytesOf = [&](Algo a, uint32_t hosts, uint32_t gpus, uint32_t chunks = 0) {
            auto dag = std::make_shared<CommDag>(Gpus(hosts, gpus));
            AddCollective(*dag, a, s, chunks);
            auto run = RunDag(CreateObject<FreeTransport>(), dag);
            NS_TEST_EXPECT_MSG_GT(run.seconds, -1, Name(a) << " completed");
            NS_TEST_EXPECT_MSG_EQ((run.bytesByRank == dag->BytesSentByRank()),
                                  true,
                                  Name(a) << ": run sends what the DAG says");
            return std::make_pair(run, dag);
        };
        // ring all-reduce, reduce-scatter, all-gather, all-to-all
        for (auto [a, num] : {std::make_pair(Algo::RING_AR, 2 * (n - 1)),
                              std::make_pair(Algo::RS, n - 1),
                              std::make_pair(Algo::AG, n - 1),
                              std::make_pair(Algo::A2A, n - 1)})
        {
            const auto [run, dag] = bytesOf(a, n, 1);
            for (uint32_t r = 0; r < n; ++r)
            {
                NS_TEST_ASSERT_MSG_EQ(run.bytesByRank[r],
                                      s / n * num,
                                      Name(a) << ": rank " << r << " sends " << num << "/" << n
                                              << " S");
            }
            NS_TEST_ASSERT_MSG_EQ(run.messages, n * num, Name(a) << ": messages");
        }
        // broadcast: every member but the last forwards the whole buffer; send/recv: S
        {
            const auto [run, dag] = bytesOf(Algo::BCAST, n, 1, 4);
            for (uint32_t r = 0; r < n; ++r)
            {
                const uint64_t want = r + 1 < n ? s : 0;
                NS_TEST_ASSERT_MSG_EQ(run.bytesByRank[r], want, "broadcast");
            }
            NS_TEST_ASSERT_MSG_EQ(run.messages, 4 * (n - 1), "broadcast: C (N-1) chunks");
            const auto [p2p, dag2] = bytesOf(Algo::SENDRECV, n, 1);
            NS_TEST_ASSERT_MSG_EQ(p2p.bytesByRank[0], s, "send/recv: S from rank 0");
            NS_TEST_ASSERT_MSG_EQ(p2p.messages, 1, "send/recv: one message");
        }
        // hierarchical, 4 hosts × 2 GPUs: intra-host RS + AG (k−1)/k S each over NVLink, the
        // inter-host ring 2(H−1)/H × S/k per member
        {
            const uint32_t hosts = 4;
            const uint32_t k = 2;
            const auto [run, dag] = bytesOf(Algo::HIER_AR, hosts, k);
            for (uint32_t r = 0; r < hosts * k; ++r)
            {
                uint64_t inter = 0;
                uint64_t intra = 0;
                for (const auto& c : dag->Connections())
                {
                    if (c.src == r)
                    {
                        (c.interHost ? inter : intra) += c.bytes;
                    }
                }
                NS_TEST_ASSERT_MSG_EQ(inter,
                                      2 * (hosts - 1) * (s / k / hosts),
                                      "hierarchical: inter-host 2(H-1)/H x S/k, rank " << r);
                NS_TEST_ASSERT_MSG_EQ(intra, 2 * (k - 1) * (s / k), "hierarchical: intra-host");
            }
        }
        // halving-doubling: N = 8 → 2 lg 8 = 6 messages per rank, 2(N−1)/N S each;
        // N = 6 → p' = 4: members 0, 2 hand over their buffer (1 message), 1, 3 run 2 lg 4 = 4
        // steps plus the hand-back, 4, 5 run 4 steps
        {
            const auto [run, dag] = bytesOf(Algo::HD_AR, n, 1);
            for (uint32_t r = 0; r < n; ++r)
            {
                NS_TEST_ASSERT_MSG_EQ(run.bytesByRank[r], s / n * 2 * (n - 1), "HD bytes");
            }
            NS_TEST_ASSERT_MSG_EQ(run.messages, n * 6, "HD: 2 lg N messages per rank");
            auto dag6 = std::make_shared<CommDag>(Gpus(6, 1));
            AddCollective(*dag6, Algo::HD_AR, 6 * 4096);
            std::map<uint32_t, uint32_t> perRank;
            for (uint32_t id = 0; id < dag6->NumNodes(); ++id)
            {
                if (dag6->GetNode(id).kind == CommDag::Kind::MESSAGE)
                {
                    ++perRank[dag6->GetNode(id).src];
                }
            }
            const std::vector<uint32_t> expect{1, 5, 1, 5, 4, 4};
            for (uint32_t r = 0; r < 6; ++r)
            {
                NS_TEST_ASSERT_MSG_EQ(perRank[r], expect[r], "HD N=6 step count of rank " << r);
            }
            NS_TEST_ASSERT_MSG_GT(RunDag(CreateObject<FreeTransport>(), dag6).seconds,
                                  -1,
                                  "HD N=6 completes");
        }
        // double binary tree, 8 hosts: every tree edge carries S/2 up and S/2 down (2 (N−1) S
        // in all); each tree has height ceil(lg 8) = 3; with C chunks every edge has C
        // messages each way
        {
            const uint32_t c = 4;
            const auto [run, dag] = bytesOf(Algo::TREE_AR, n, 1, c);
            uint64_t total = 0;
            for (auto b : run.bytesByRank)
            {
                total += b;
            }
            NS_TEST_ASSERT_MSG_EQ(total, 2 * (n - 1) * s, "tree: 2 (N-1) S in all");
            NS_TEST_ASSERT_MSG_EQ(run.messages, 2 * 2 * (n - 1) * c, "tree: 2 trees x 2 ways");
            NS_TEST_ASSERT_MSG_EQ(TreeHeight(n), 3, "tree height 3 for 8 nodes");
            // NCCL's 8-rank btree (trees.cc illustration): 0 -> 4 -> {2, 6} -> {1, 3, 5, 7}
            const auto p = Collectives::TreeParents(n, 0);
            const std::vector<int32_t> nccl{-1, 2, 4, 2, 0, 6, 4, 6};
            NS_TEST_ASSERT_MSG_EQ((p == nccl), true, "btree parents as NCCL's");
            const auto m = Collectives::TreeParents(n, 1);
            for (uint32_t x = 0; x < n; ++x)
            {
                const int32_t mirrored =
                    nccl[n - 1 - x] < 0 ? -1 : int32_t(n - 1) - nccl[n - 1 - x];
                NS_TEST_ASSERT_MSG_EQ(m[x], mirrored, "mirror tree");
            }
        }
    }
};

// =================================================================== alpha-beta closed forms

/// Completion time on an idle fluid fabric = the alpha-beta closed form, within 1 %.
class CollectiveTimeTestCase : public TestCase
{
  public:
    CollectiveTimeTestCase()
        : TestCase("completion on an idle fabric = alpha-beta closed form (1 %)")
    {
    }

  private:
    void Check(const std::string& what, double got, double want)
    {
        const double gap = std::abs(got - want) / want;
        std::cout << "[crux-collectives] " << what << ": " << got / US << " us, closed form "
                  << want / US << " us, gap " << 100 * gap << " %" << std::endl;
        NS_TEST_ASSERT_MSG_LT(gap, 0.01, what << " within 1 % of the closed form");
    }

    void DoRun() override
    {
        const uint32_t n = 8;
        const uint64_t s = 8ull << 20;
        const double rate = 100e9;
        const Time delay = MicroSeconds(1);
        const double alpha = 2e-6; // star: uplink + downlink delay
        const double beta = 8.0 / rate;
        auto onStar = [&](Algo a, uint32_t chunks = 0) {
            auto dag = std::make_shared<CommDag>(Gpus(n, 1));
            AddCollective(*dag, a, s, chunks);
            return RunDag(Star(n, 1, rate, delay), dag).seconds;
        };
        const double sn = static_cast<double>(s) / n;
        Check("ring all-reduce N=8, 8 MiB",
              onStar(Algo::RING_AR),
              2 * (n - 1) * (alpha + sn * beta));
        Check("reduce-scatter", onStar(Algo::RS), (n - 1) * (alpha + sn * beta));
        Check("all-gather", onStar(Algo::AG), (n - 1) * (alpha + sn * beta));
        Check("all-to-all (pairwise)", onStar(Algo::A2A), (n - 1) * (alpha + sn * beta));
        Check("halving-doubling all-reduce",
              onStar(Algo::HD_AR),
              2 * std::log2(n) * alpha + 2.0 * (n - 1) / n * s * beta);
        const uint32_t c = 4;
        Check("broadcast, 4 chunks",
              onStar(Algo::BCAST, c),
              (n - 1) * alpha + (c + n - 2) * (static_cast<double>(s) / c) * beta);
        Check("send/recv", onStar(Algo::SENDRECV), alpha + s * beta);

        // hierarchical, 4 hosts × 4 GPUs: NVLink RS and AG, and 4 rails sharing each NIC
        {
            const uint32_t hosts = 4;
            const uint32_t k = 4;
            auto dag = std::make_shared<CommDag>(Gpus(hosts, k));
            AddCollective(*dag, Algo::HIER_AR, s);
            Ptr<FlowTransport> t = Star(hosts, k, rate, delay);
            const double an = 1e-6;         // FlowTransport IntraHostLatency default
            const double bn = 8.0 / 2.4e12; // IntraHostRate default
            const double want = 2 * (k - 1) * (an + static_cast<double>(s) / k * bn) +
                                2 * (hosts - 1) * (alpha + static_cast<double>(s) / hosts * beta);
            Check("hierarchical all-reduce 4x4", RunDag(t, dag).seconds, want);
        }
        // double binary tree on a full mesh (no link sharing): 2 h α + (C + 2h − 1) S/(2C) β
        {
            const uint32_t chunks = 4;
            auto dag = std::make_shared<CommDag>(Gpus(n, 1));
            AddCollective(*dag, Algo::TREE_AR, s, chunks);
            dag->Finalize();
            const uint32_t h = TreeHeight(n);
            const double meshAlpha = 1e-6;
            const double want = 2 * h * meshAlpha +
                                (chunks + 2 * h - 1) * (static_cast<double>(s) / 2 / chunks) * beta;
            Check("double binary tree all-reduce N=8, 4 chunks",
                  RunDag(Mesh(n, dag->Connections().size(), rate, MicroSeconds(1)), dag).seconds,
                  want);
        }
    }
};

// ================================================================= packet level vs flow level

/// Every collective on the same small Clos, packet level (RdmaTransport without congestion
/// control) vs flow level (FlowTransport): completion times within 5 %; the packet level with
/// DCQCN completes without retransmission (its time is printed).
class CollectivePacketVsFlowTestCase : public TestCase
{
  public:
    CollectivePacketVsFlowTestCase()
        : TestCase("packet level vs flow level per collective on a small Clos (5 %)")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t hosts = 4;
        const uint32_t gpus = 2;
        const uint64_t s = 4000000;
        for (Algo a : {Algo::RING_AR,
                       Algo::RS,
                       Algo::AG,
                       Algo::HIER_AR,
                       Algo::TREE_AR,
                       Algo::HD_AR,
                       Algo::BCAST,
                       Algo::A2A,
                       Algo::SENDRECV})
        {
            // Packet level without congestion control (the fluid model has none) and with the
            // default DCQCN, whose rate cuts on the ECMP collisions of these 4 MB transfers are
            // not in the fluid model: its time is printed, not compared.
            std::map<std::string, double> packetBy;
            uint64_t retransmitted = 0;
            for (const std::string cc : {"none", "dcqcn"})
            {
                auto dag = std::make_shared<CommDag>(Gpus(hosts, gpus));
                AddCollective(*dag, a, s);
                CruxTopologyHelper th;
                Ptr<CruxTopology> topo = th.BuildClos(SmallClos(gpus));
                RdmaTransportHelper rdma;
                rdma.SetCongestionControl(cc);
                Ptr<RdmaTransport> t = rdma.Install(topo);
                std::vector<Ptr<RdmaNic>> nics;
                for (uint32_t h = 0; h < hosts; ++h)
                {
                    nics.push_back(t->GetNic(h, 0));
                }
                Ptr<CommDagRunner> runner = CreateObject<CommDagRunner>();
                runner->Setup(t, 1, dag, 0);
                double& packet = packetBy[cc];
                runner->Start(crux::MakeFunctorCallback<void>(
                    [&packet]() { packet = Simulator::Now().GetSeconds(); }));
                Simulator::Run();
                for (auto& nic : nics)
                {
                    retransmitted += nic->GetStats().retransmittedPackets;
                }
                runner->Dispose();
                Simulator::Destroy();
            }
            const double packet = packetBy["none"];
            double flow = 0;
            {
                auto dag = std::make_shared<CommDag>(Gpus(hosts, gpus));
                AddCollective(*dag, a, s);
                CruxTopologyHelper th;
                Ptr<CruxTopology> topo = th.BuildClos(SmallClos(gpus));
                flow = RunDag(FlowTransportHelper().Install(topo), dag).seconds;
            }
            const double gap = std::abs(flow - packet) / packet;
            std::cout << "[crux-collectives] " << Name(a) << ", 4 hosts x 2 GPUs, 4 MB: packet "
                      << packet / US << " us (DCQCN " << packetBy["dcqcn"] / US << " us), flow "
                      << flow / US << " us, gap " << 100 * gap << " %" << std::endl;
            NS_TEST_ASSERT_MSG_GT(packet, 0, Name(a) << ": packet level completed");
            NS_TEST_ASSERT_MSG_GT(packetBy["dcqcn"], 0, Name(a) << ": completed with DCQCN");
            NS_TEST_ASSERT_MSG_GT(flow, 0, Name(a) << ": flow level completed");
            NS_TEST_ASSERT_MSG_EQ(retransmitted, 0, Name(a) << ": no retransmission");
            NS_TEST_ASSERT_MSG_LT(gap, 0.05, Name(a) << ": packet vs flow within 5 %");
        }
    }
};

// ========================================================================= planned iterations

namespace
{

/// A DltJob of `model` on `hosts` hosts × `gpus` GPUs with a plan.
DltJob
PlannedJob(const std::string& model,
           uint32_t hosts,
           uint32_t gpus,
           const ParallelismRequest& req,
           uint32_t iterations = 1)
{
    std::vector<GpuId> g;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        for (uint32_t l = 0; l < gpus; ++l)
        {
            g.push_back(Gpu(h, l));
        }
    }
    DltJob job = DltJob::FromModel(3, model, g);
    job.iterations = iterations;
    job.ApplyPlan(req);
    return job;
}

/// GPT-3 13B on 4 hosts x 8 GPUs: TP 8 inside each host, PP 2 x DP 2 across hosts, 4
/// micro-batches, ring all-reduce.
DltJob
Gpt13bPp2Dp2Tp8()
{
    ParallelismRequest req;
    req.tp = 8;
    req.pp = 2;
    req.dp = 2;
    req.microBatches = 4;
    req.allReduce = "classic-ring";
    return PlannedJob("gpt3-13b", 4, 8, req);
}

/// A small mixture-of-experts transformer for packet-level tests (not in the zoo).
ModelSpec
TinyMoe()
{
    ModelSpec m;
    m.name = "tiny-moe";
    m.layers = 2;
    m.hidden = 512;
    m.heads = 8;
    m.kvHeads = 8;
    m.ffnHidden = 1024;
    m.vocab = 1000;
    m.experts = 4;
    m.topK = 2;
    m.sequenceLength = 512;
    m.parameters = 2 * (4.0 * 512 * 512 + 4 * 3.0 * 512 * 1024) + 2 * 1000 * 512;
    m.expertParameters = 2 * 4 * 3.0 * 512 * 1024;
    m.flopsPerSample = 6 * 1e7 * 512;
    m.globalBatch = 8;
    m.referenceGpus = 8;
    m.computeTime = 2e-3;
    m.microBatchSize = 1;
    m.expertParallel = 4;
    m.numBuckets = 1;
    return m;
}

} // namespace

/// 1F1B with free communication: iteration = (m + p − 1) × per-micro-batch stage time.
class PipelineBubbleTestCase : public TestCase
{
  public:
    PipelineBubbleTestCase()
        : TestCase("1F1B with zero communication cost: iteration = (m + p - 1) x stage time")
    {
    }

  private:
    void DoRun() override
    {
        for (auto [p, m] : {std::make_pair(4u, 8u),
                            std::make_pair(4u, 1u),
                            std::make_pair(2u, 3u),
                            std::make_pair(8u, 16u)})
        {
            ParallelismRequest req;
            req.tp = 1;
            req.pp = p;
            req.dp = 1;
            req.microBatches = m;
            const DltJob job = PlannedJob("gpt3-1.3b", p, 1, req);
            NS_TEST_ASSERT_MSG_EQ(job.plan->pp, p, "plan pp");
            const auto it = RunJobAlone(job, CreateObject<FreeTransport>());
            NS_TEST_ASSERT_MSG_EQ(it.size(), 1, "iteration completed");
            const double stage = job.computeTime / m; // forward + backward of one micro-batch
            const double want = (m + p - 1) * stage;
            const double bubble = 1 - job.computeTime / it[0];
            std::cout << "[crux-collectives] 1F1B p=" << p << " m=" << m << ": iteration " << it[0]
                      << " s, (m+p-1) x stage = " << want << " s, bubble " << bubble
                      << " (closed form " << (p - 1.0) / (m + p - 1) << ")" << std::endl;
            NS_TEST_ASSERT_MSG_EQ_TOL(it[0], want, 1e-6 * want, "(m + p - 1) x stage time");
            NS_TEST_ASSERT_MSG_EQ_TOL(bubble,
                                      (p - 1.0) / (m + p - 1),
                                      1e-6,
                                      "bubble fraction (p - 1)/(m + p - 1)");
            NS_TEST_ASSERT_MSG_EQ_TOL(job.ComputeSpan(), want, 1e-9 * want, "ComputeSpan");
        }
    }
};

/// A mixture-of-experts job on the packet fabric with PFC: every all-to-all completes, no drop.
class MoePacketTestCase : public TestCase
{
  public:
    MoePacketTestCase()
        : TestCase("MoE job (EP 4, DP 8) on the packet fabric with PFC: all-to-alls complete, "
                   "zero drops")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t hosts = 4;
        const uint32_t gpus = 2;
        DltJob job;
        job.id = 5;
        job.modelName = "tiny-moe";
        job.model = TinyMoe();
        job.gpus = Gpus(hosts, gpus);
        job.computeTime = job.model.computeTime;
        job.flopsPerIteration = job.model.FlopsPerIteration(hosts * gpus);
        job.gradientBytes = job.model.GradientBytes();
        job.iterations = 2;
        ParallelismRequest req;
        req.ep = 4;
        job.ApplyPlan(req);
        NS_TEST_ASSERT_MSG_EQ(job.plan->dp, 8, "dp 8");
        NS_TEST_ASSERT_MSG_EQ(job.plan->ep, 4, "ep 4");

        CruxTopologyHelper th;
        Ptr<CruxTopology> topo = th.BuildClos(SmallClos(gpus));
        Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
        uint64_t deviceDrops = 0;
        for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
        {
            topo->GetLink(l).txDev->TraceConnectWithoutContext(
                "Drop",
                crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t, const std::string&>(
                    [&deviceDrops](Ptr<const Packet>, uint8_t, const std::string&) {
                        ++deviceDrops;
                    }));
        }
        Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
        app->SetJob(job);
        app->SetTransport(t);
        topo->GetHost(0).node->AddApplication(app);
        Simulator::Run();
        uint64_t switchDrops = 0;
        for (uint32_t sw = 0; sw < topo->GetNSwitches(); ++sw)
        {
            for (const auto& [reason, count] : topo->GetSwitch(sw).sw->GetDropCounts())
            {
                switchDrops += count;
            }
        }
        uint64_t pauses = 0;
        for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
        {
            pauses += topo->GetLink(l).txDev->GetPauseTxCount();
        }
        RdmaQpStats total;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            const RdmaQpStats st = t->GetNic(h, 0)->GetStats();
            total.retransmittedPackets += st.retransmittedPackets;
            total.timeouts += st.timeouts;
            total.txDataBytes += st.txDataBytes;
        }
        const auto& it = app->GetIterationTimes();
        std::cout << "[crux-collectives] MoE EP 4 x DP 8 on 4 hosts x 2 GPUs, packet level, PFC: "
                  << it.size() << " iterations, first " << (it.empty() ? 0 : it[0]) * 1e3 << " ms; "
                  << total.txDataBytes << " B sent by the NICs, " << pauses << " PAUSE frames, "
                  << switchDrops + deviceDrops << " drops, " << total.retransmittedPackets
                  << " retransmitted packets, " << total.timeouts << " timeouts" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(it.size(), 2, "both iterations completed");
        NS_TEST_ASSERT_MSG_EQ(switchDrops, 0, "no switch drop");
        NS_TEST_ASSERT_MSG_EQ(deviceDrops, 0, "no device drop");
        NS_TEST_ASSERT_MSG_EQ(total.retransmittedPackets, 0, "no retransmission");
        NS_TEST_ASSERT_MSG_EQ(total.timeouts, 0, "no timeout");
        // inter-host all-to-all traffic really ran: each EP group spans 2 hosts
        uint64_t interHostPlanned = 0;
        for (const auto& f : job.CommunicationPattern())
        {
            interHostPlanned += static_cast<uint64_t>(f.bytesPerIteration);
        }
        NS_TEST_ASSERT_MSG_GT(interHostPlanned, 0, "inter-host traffic planned");
        NS_TEST_ASSERT_MSG_EQ(total.txDataBytes, 2 * interHostPlanned, "NICs sent the plan");
        app->Dispose();
        Simulator::Destroy();
    }
};

/// Every message of a planned iteration names its collective and step in the user's terms
/// (CommDag::Describe, what the stall watchdog prints), from a small table, not a string per node.
class MessageDescriptionTestCase : public TestCase
{
  public:
    MessageDescriptionTestCase()
        : TestCase("planned iteration: every message described (PP send stage and micro-batch, DP "
                   "bucket and ring step, EP all-to-all); description table << node array")
    {
    }

  private:
    /// Count the messages of \p dag whose description starts with each of \p prefixes; check
    /// that every message is described. \return counts in the order of \p prefixes
    std::vector<uint32_t> Count(const CommDag& dag, const std::vector<std::string>& prefixes)
    {
        std::vector<uint32_t> n(prefixes.size(), 0);
        for (CommDag::NodeId id = 0; id < dag.NumNodes(); ++id)
        {
            const std::string d = dag.Describe(id);
            if (dag.GetNode(id).kind != CommDag::Kind::MESSAGE)
            {
                NS_TEST_EXPECT_MSG_EQ(d, "", "only messages are described");
                continue;
            }
            NS_TEST_EXPECT_MSG_NE(d, "", "message " << id << " described");
            for (size_t i = 0; i < prefixes.size(); ++i)
            {
                n[i] += d.rfind(prefixes[i], 0) == 0 ? 1 : 0;
            }
        }
        return n;
    }

    void DoRun() override
    {
        // TP 8 per host, PP 2 x DP 2 on 4 hosts, 4 micro-batches: 2 x 8 activation and 2 x 8
        // gradient sends per micro-batch
        const DltJob job = Gpt13bPp2Dp2Tp8();
        CommDag dag(TrainingIteration::RankGpus(job));
        TrainingIteration::Build(job, dag);
        dag.Finalize();
        const auto n =
            Count(dag,
                  {"PP activation send stage 0 -> 1, micro-batch 3",
                   "PP gradient send stage 1 -> 0, micro-batch 0",
                   "DP all-reduce (ring) bucket 0, stage 1, step 2 of 2",
                   "TP all-reduce (ring) stage 0, forward micro-batch 2, step 14 of 14",
                   "PP all-gather (ring) stage 1, micro-batch 3 (TP group), step 7 of 7"});
        NS_TEST_ASSERT_MSG_EQ(n[0], 2 * 8, "activation sends of micro-batch 3: DP 2 x TP 8");
        NS_TEST_ASSERT_MSG_EQ(n[1], 2 * 8, "gradient sends of micro-batch 0");
        NS_TEST_ASSERT_MSG_EQ(n[2], 8 * 2, "DP ring of 2, last step: 8 rails x 2 members");
        NS_TEST_EXPECT_MSG_GT(n[3], 0, "TP ring all-reduce steps 1..14 of a forward pass");
        NS_TEST_EXPECT_MSG_GT(n[4], 0, "the receiving stage's all-gather of the PP shards");
        // memory: the node array is unchanged (the message's step index reuses Node::label);
        // the description table adds a small fraction of it
        const double nodeBytes = static_cast<double>(sizeof(CommDag::Node)) * dag.NumNodes();
        const double tableBytes = static_cast<double>(dag.DescriptionBytes());
        std::cout << "[crux-collectives] description table: " << dag.NumNodes() << " nodes, "
                  << sizeof(CommDag::Node) << " B/node in the node array, "
                  << tableBytes / dag.NumNodes() << " B/node in the description table\n";
        NS_TEST_ASSERT_MSG_LT(tableBytes, 0.15 * nodeBytes, "the table is small beside the nodes");

        // A block of more layers than the stage has is one block per stage, up to 2^32 - 1
        // layers (the block count once wrapped to 0 there and the run crashed): the same DAG as
        // a block of exactly the stage's 12 layers (gpt3-1.3b, 24 layers, PP 2)
        {
            uint32_t nodes[2] = {0, 0};
            const uint32_t block[2] = {12, 0xffffffffU};
            for (int i = 0; i < 2; ++i)
            {
                ParallelismRequest req;
                req.tp = 1;
                req.pp = 2;
                req.microBatches = 2;
                req.layersPerBlock = block[i];
                const DltJob big = PlannedJob("gpt3-1.3b", 4, 2, req);
                CommDag d(TrainingIteration::RankGpus(big));
                TrainingIteration::Build(big, d);
                d.Finalize();
                nodes[i] = d.NumNodes();
            }
            NS_TEST_ASSERT_MSG_GT(nodes[0], 0, "a DAG was built");
            NS_TEST_ASSERT_MSG_EQ(nodes[1], nodes[0], "layersPerBlock 2^32 - 1 = 12 here");
        }

        // EP: the dispatch / combine all-to-all of a MoE job
        DltJob moe;
        moe.id = 5;
        moe.model = TinyMoe();
        moe.gpus = Gpus(4, 2);
        moe.computeTime = moe.model.computeTime;
        moe.gradientBytes = moe.model.GradientBytes();
        ParallelismRequest ep;
        ep.ep = 4;
        moe.ApplyPlan(ep);
        CommDag moeDag(TrainingIteration::RankGpus(moe));
        TrainingIteration::Build(moe, moeDag);
        moeDag.Finalize();
        const auto e = Count(moeDag, {"EP all-to-all forward micro-batch 0, step 3 of 3"});
        NS_TEST_ASSERT_MSG_EQ(e[0] % 4, 0, "last step of an all-to-all of 4: 4 senders each");
        NS_TEST_ASSERT_MSG_GT(e[0], 0, "EP all-to-all described");
    }
};

/// The scheduler's view of planned jobs: PP and EP flows with their bytes; per-link bytes of a
/// 3D-parallel job on the flow fabric equal what the scheduler's flows put on their paths.
class PlannedPatternTestCase : public TestCase
{
  public:
    PlannedPatternTestCase()
        : TestCase("planned jobs: PP, DP and EP inter-host flows and bytes, scheduler view = link "
                   "counters (1 %)")
    {
    }

  private:
    void DoRun() override
    {
        // TP 8 inside each host, PP 2 x DP 2 across 4 hosts: PP flows host d <-> d + 2 carry
        // m activations each way, DP rings host 0 <-> 1 and 2 <-> 3 per (TP rank, stage)
        {
            const DltJob job = Gpt13bPp2Dp2Tp8();
            const ModelSpec& m = job.model;
            const double tokens = m.SamplesPerIteration(32) * m.sequenceLength / 2 / 4;
            const uint64_t act =
                static_cast<uint64_t>(std::llround(tokens * m.hidden * m.bytesPerActivation));
            std::map<std::pair<uint32_t, uint32_t>, double> hostBytes;
            uint32_t ppFlows = 0;
            uint32_t dpFlows = 0;
            for (const auto& f : job.CommunicationPattern())
            {
                hostBytes[{f.src.host, f.dst.host}] += f.bytesPerIteration;
                if (f.src.localGpu == f.dst.localGpu &&
                    (f.src.host + 2 == f.dst.host || f.dst.host + 2 == f.src.host))
                {
                    ++ppFlows;
                    NS_TEST_ASSERT_MSG_EQ(f.bytesPerIteration,
                                          4.0 * std::ceil(act / 8.0),
                                          "PP: m activation shards of 1/tp");
                }
                else
                {
                    ++dpFlows;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(ppFlows, 2 * 2 * 8, "PP: 2 replicas x 2 ways x 8 TP ranks");
            NS_TEST_ASSERT_MSG_EQ(dpFlows, 2 * 2 * 8, "DP: 2 stages x ring of 2 x 8 TP ranks");
            // DP ring of 2: each member sends the group's gradient once (2 (N−1)/N = 1)
            const double group = static_cast<double>(job.gradientBytes) / 2 / 8;
            NS_TEST_ASSERT_MSG_EQ_TOL(hostBytes[std::make_pair(0u, 1u)],
                                      8 * group,
                                      8.0 * job.numBuckets,
                                      "DP bytes host 0 -> 1");
            // the count-only pattern = the inter-host connections of the full DAG (ids, bytes)
            CommDag full(TrainingIteration::RankGpus(job));
            TrainingIteration::Build(job, full);
            full.Finalize();
            const auto pattern = job.CommunicationPattern();
            uint32_t inter = 0;
            for (const auto& c : full.Connections())
            {
                inter += c.interHost ? 1 : 0;
            }
            NS_TEST_ASSERT_MSG_EQ(pattern.size(), inter, "pattern = full DAG's inter-host set");
            for (const auto& f : pattern)
            {
                const auto& c = full.Connections().at(f.flowId);
                NS_TEST_ASSERT_MSG_EQ(c.interHost, true, "inter-host ids first");
                NS_TEST_ASSERT_MSG_EQ(static_cast<double>(c.bytes),
                                      f.bytesPerIteration,
                                      "same bytes, flow " << f.flowId);
            }
            SchedJob sj = MakeSchedJob(job, [](const DltCommFlow&, SchedFlow& sf) {
                sf.candidatePaths = {{}};
                sf.defaultPath = 0;
            });
            NS_TEST_ASSERT_MSG_EQ(sj.flows.size(), ppFlows + dpFlows, "scheduler sees every flow");
            NS_TEST_ASSERT_MSG_EQ_TOL(sj.computeTime,
                                      job.computeTime * (4 + 2 - 1) / 4,
                                      1e-12,
                                      "scheduler compute span includes the bubble");
        }
        // EP: Mixtral with EP 8 over 8 hosts x 1 GPU: the all-to-all peers are all inter-host
        {
            ParallelismRequest req;
            req.pp = 1;
            req.ep = 8;
            req.microBatches = 1;
            req.layersPerBlock = 32;
            req.allReduce = "classic-ring";
            const DltJob job = PlannedJob("mixtral-8x7b", 8, 1, req);
            NS_TEST_ASSERT_MSG_EQ(job.plan->dp, 8, "dp 8");
            const auto flows = job.CommunicationPattern();
            NS_TEST_ASSERT_MSG_EQ(flows.size(), 8 * 7, "EP all-to-all: every ordered pair");
        }

        // Planned jobs on the flow fabric: link counters = scheduler flows on their paths, for a
        // 3D-parallel job, every DP all-reduce algorithm, and TP across hosts
        struct Variant
        {
            const char* what;
            uint32_t tp;
            uint32_t pp;
            uint32_t dp;
            const char* allReduce;
        };

        for (const Variant& v : {Variant{"TP2 x PP2 x DP2, NCCL's choice", 2, 2, 2, ""},
                                 Variant{"DP 8, hierarchical", 1, 1, 8, "hierarchical"},
                                 Variant{"DP 8, double binary tree", 1, 1, 8, "tree"},
                                 Variant{"DP 8, halving-doubling", 1, 1, 8, "halving-doubling"},
                                 Variant{"TP 4 across 2 hosts x DP 2, ring", 4, 1, 2, "ring"}})
        {
            ParallelismRequest req;
            req.tp = v.tp;
            req.pp = v.pp;
            req.dp = v.dp;
            req.microBatches = 2;
            req.layersPerBlock = 12;
            req.allReduce = v.allReduce;
            DltJob job = PlannedJob("gpt3-1.3b", 4, 2, req, 2);
            job.gradientBytes = 40000000; // keep the run short
            job.computeTime = 0.01;
            const auto flows = job.CommunicationPattern();
            CruxTopologyHelper th;
            Ptr<CruxTopology> topo = th.BuildClos(SmallClos(2));
            Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
            Ptr<Node> node = CreateObject<Node>();
            Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
            app->SetJob(job);
            app->SetTransport(t);
            node->AddApplication(app);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(app->GetCompletedIterations(), 2, v.what << ": completed");
            std::vector<double> want(topo->GetNLinks(), 0);
            for (const auto& f : flows)
            {
                for (uint32_t l : t->GetPath(Key(job.id, f.flowId, f.src, f.dst)))
                {
                    want[l] += f.bytesPerIteration * 2;
                }
            }
            double worst = 0;
            uint32_t used = 0;
            for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
            {
                const double got = static_cast<double>(t->GetLinkBytes(l));
                if (want[l] > 0 || got > 0)
                {
                    ++used;
                    worst = std::max(worst, std::abs(got - want[l]) / std::max(want[l], 1.0));
                }
            }
            std::cout << "[crux-collectives] planned job on the flow fabric, " << v.what << ": "
                      << flows.size() << " inter-host flows on " << used << " links, iteration "
                      << app->GetIterationTimes()[0] * 1e3
                      << " ms, worst per-link gap scheduler view vs counters " << 100 * worst
                      << " %" << std::endl;
            NS_TEST_ASSERT_MSG_GT(used, 0, v.what << ": links used");
            NS_TEST_ASSERT_MSG_LT(worst, 0.01, v.what << ": per-link bytes within 1 %");
            app->Dispose();
            Simulator::Destroy();
        }
    }
};

/// The communication timeline (SchedJob::phases from the CommDag) against the flow fabric: the
/// FlowEvaluator's iteration time of a job alone vs the iteration time DltJobApplication
/// measures on FlowTransport (the second model); and the classic one-transfer view for contrast.
class TimelineEvaluatorTestCase : public TestCase
{
  public:
    TimelineEvaluatorTestCase()
        : TestCase("communication timeline: FlowEvaluator iteration = flow fabric iteration "
                   "(planned and bucketed jobs)")
    {
    }

  private:
    /// One case: the job, the tolerance of the timeline and what it shows.
    struct Case
    {
        std::string what; //!< description
        DltJob job;       //!< the job (iterations set)
        double tolerance; //!< relative, evaluator vs fabric
    };

    void DoRun() override
    {
        std::vector<Case> cases;
        {
            // PP across hosts: per-micro-batch sends on the critical path, 1F1B bubble
            ParallelismRequest req;
            req.tp = 2;
            req.pp = 2;
            req.dp = 2;
            req.microBatches = 4;
            req.layersPerBlock = 12;
            req.allReduce = "classic-ring";
            DltJob job = PlannedJob("gpt3-1.3b", 4, 2, req, 3);
            job.gradientBytes = 40000000;
            job.computeTime = 0.01;
            cases.push_back({"TP2 x PP2 x DP2, 4 micro-batches", job, 0.02});
        }
        {
            // DP with buckets released through the last backward pass
            ParallelismRequest req;
            req.tp = 1;
            req.pp = 1;
            req.dp = 8;
            req.microBatches = 2;
            req.layersPerBlock = 12;
            req.allReduce = "classic-ring";
            DltJob job = PlannedJob("gpt3-1.3b", 4, 2, req, 3);
            job.gradientBytes = 40000000;
            job.computeTime = 0.01;
            job.numBuckets = 4;
            cases.push_back({"DP 8 ring, 4 buckets", job, 0.02});
        }
        {
            // MoE: dispatch / combine all-to-alls exposed between attention and experts
            DltJob job;
            job.id = 3;
            job.modelName = "tiny-moe";
            job.model = TinyMoe();
            job.gpus = Gpus(4, 2);
            job.computeTime = job.model.computeTime;
            job.flopsPerIteration = job.model.FlopsPerIteration(8);
            job.gradientBytes = job.model.GradientBytes();
            job.iterations = 3;
            ParallelismRequest req;
            req.ep = 4;
            req.allReduce = "classic-ring";
            job.ApplyPlan(req);
            cases.push_back({"MoE EP 4 x DP 8", job, 0.025});
        }
        {
            // no plan: crux's rings per rail, 4 buckets (one phase per bucket)
            DltJob job = DltJob::FromModel(3, "bert-large", Gpus(4, 2));
            job.iterations = 3;
            job.numBuckets = 4;
            cases.push_back({"no plan, BERT-large rings, 4 buckets", job, 0.02});
        }
        for (const Case& c : cases)
        {
            CruxTopologyHelper th;
            Ptr<CruxTopology> topo = th.BuildClos(SmallClos(2));
            const ClusterModel cm = MakeClusterModel(topo, {c.job});
            Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
            const auto it = RunJobAlone(c.job, t);
            NS_TEST_ASSERT_MSG_EQ(it.size(), c.job.iterations, c.what << ": completed");
            const double fabric = it.back();
            const SchedJob& sj = cm.jobs.at(0);

            FlowEvaluatorOptions opt;
            opt.horizonIterations = 10;
            const FlowEvaluation ev = FlowEvaluator(cm, opt).Evaluate(
                EvaluationInput{{DefaultPathChoice(sj)}, {0}, {}, {}});
            const double timeline = 1 / ev.jobs.at(0).iterationRate;
            // the classic view: one transfer per flow at the first release
            ClusterModel classic = cm;
            classic.jobs[0].phases.clear();
            classic.jobs[0].endDeps.clear();
            classic.jobs[0].span = 0;
            const FlowEvaluation cv =
                FlowEvaluator(classic, opt)
                    .Evaluate(EvaluationInput{{DefaultPathChoice(sj)}, {0}, {}, {}});
            const double single = 1 / cv.jobs.at(0).iterationRate;
            const double gap = timeline / fabric - 1;
            std::cout << "[crux-collectives] timeline, " << c.what << ": " << sj.phases.size()
                      << " phases, " << sj.endDeps.size() << " end lags; iteration flow fabric "
                      << fabric * 1e3 << " ms, evaluator (timeline) " << timeline * 1e3 << " ms ("
                      << 100 * gap << " %), evaluator (one transfer at " << sj.overlapStart
                      << " c) " << single * 1e3 << " ms (" << 100 * (single / fabric - 1) << " %)"
                      << std::endl;
            NS_TEST_ASSERT_MSG_GT(sj.phases.size(), 1, c.what << ": a timeline");
            NS_TEST_ASSERT_MSG_LT(std::abs(gap), c.tolerance, c.what << ": within tolerance");
            NS_TEST_ASSERT_MSG_LT(std::abs(gap),
                                  std::abs(single / fabric - 1),
                                  c.what << ": the timeline is closer than one transfer");
        }
        // NVLink messages above 512 MiB (DataRate::CalculateBytesTxTime wraps at 2^32 bits):
        // a 2-GPU ring all-reduce of 1.6 GB sends S/2 twice per GPU at 300 GB/s
        auto dag = std::make_shared<CommDag>(Gpus(1, 2));
        Collectives::RingAllReduce(*dag, {0, 1}, 1600000000, {});
        dag->Finalize();
        const DagRun r = RunDag(Star(1, 2, 1e11, Seconds(0)), dag);
        NS_TEST_ASSERT_MSG_EQ_TOL(r.seconds, 1.6e9 / 300e9 + 2e-6, 1e-9, "1.6 GB over NVLink");
    }
};

/// The crux-collectives suite.
class CollectivesTestSuite : public TestSuite
{
  public:
    CollectivesTestSuite()
        : TestSuite("crux-collectives", UNIT)
    {
        AddTestCase(new CollectiveBytesTestCase, TestCase::QUICK);
        AddTestCase(new CollectiveTimeTestCase, TestCase::QUICK);
        AddTestCase(new CollectivePacketVsFlowTestCase, TestCase::QUICK);
        AddTestCase(new PipelineBubbleTestCase, TestCase::QUICK);
        AddTestCase(new MoePacketTestCase, TestCase::QUICK);
        AddTestCase(new PlannedPatternTestCase, TestCase::QUICK);
        AddTestCase(new MessageDescriptionTestCase, TestCase::QUICK);
        AddTestCase(new TimelineEvaluatorTestCase, TestCase::QUICK);
    }
};

static CollectivesTestSuite g_collectivesTestSuite; //!< registers the suite
